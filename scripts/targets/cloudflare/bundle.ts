// The worker as one ES module with the `_headers` rules built in: Pages takes `_worker.js` only
// as a single file, and one self-contained file means a deployed worker never depends on where
// the project's scripts/ folder is. Both Cloudflare targets with code ship this same bundle.

import { fileURLToPath } from 'node:url';
import { bundleEntry, oncePerBuild, resourcesArgument } from '../bundle.ts';
import type { TargetContext } from '../target.ts';

const WORKER = fileURLToPath(new URL('../../respond/cloudflare-worker.ts', import.meta.url));

/** The bundle without a banner; each target puts its own generated note first. */
export const bundleWorker = oncePerBuild(({ headerRules, resources }: TargetContext) =>
  bundleEntry({
    module: WORKER,
    // The rules are data of the build (the project's `_headers`), so they are inlined here
    // rather than read at run time: Pages does not serve `_headers` to the worker. So are the
    // resources.
    contents: `import { createWorker } from './cloudflare-worker.ts';\nexport default createWorker(${JSON.stringify(headerRules)}${resourcesArgument(resources)});\n`,
    platform: 'neutral',
    languageTarget: 'es2022',
  }),
);
