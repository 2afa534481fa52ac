// Bundles the worker into one ES module with the `_headers` rules built in: Pages takes
// `_worker.js` only as a single file, and one self-contained file per target means a deployed
// worker never depends on where the project's scripts/ folder is.

import { fileURLToPath } from 'node:url';
import type { HeaderRule } from '../../contract/headers.ts';
import { bundleEntry } from '../bundle.ts';

const WORKER = fileURLToPath(new URL('../../respond/fetch-handler.ts', import.meta.url));

/** Asynchronous: esbuild, when it runs, bundles in its own process while the build writes. */
export async function bundleWorker(rules: readonly HeaderRule[], banner: string): Promise<string> {
  const code = await bundleEntry({
    name: 'cloudflare-worker',
    module: WORKER,
    // The rules are data of the build (the project's `_headers`), so they are inlined here
    // rather than read at run time: Pages does not serve `_headers` to the worker.
    contents: `import { createWorker } from './fetch-handler.ts';\nexport default createWorker(${JSON.stringify(rules)});\n`,
    platform: 'neutral',
    target: 'es2022',
  });
  return `${banner}\n\n${code}`;
}
