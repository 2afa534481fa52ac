// Bundles the worker into one ES module with the `_headers` rules built in: Pages takes
// `_worker.js` only as a single file, and one self-contained file per target means a deployed
// worker never depends on where the project's scripts/ folder is.

import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HeaderRule } from '../../api/headers.ts';

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));
/** The project root: the bundle's path comments are relative to it, whatever the cwd. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

// Both Cloudflare targets bundle the same worker with the same rules: bundle it once per build.
const bundles = new Map<string, Promise<string>>();

/** Asynchronous: esbuild bundles in its own process while the build renders and writes. */
export async function bundleWorker(rules: readonly HeaderRule[], banner: string): Promise<string> {
  const key = JSON.stringify(rules);
  const code = bundles.get(key) ?? bundle(key);
  bundles.set(key, code);
  return `${banner}\n\n${await code}`;
}

async function bundle(rulesJson: string): Promise<string> {
  const result = await build({
    stdin: {
      // The rules are data of the build (the project's `_headers`), so they are inlined here
      // rather than read at run time: Pages does not serve `_headers` to the worker.
      contents: `import { createWorker } from './${path.basename(WORKER)}';\nexport default createWorker(${rulesJson});\n`,
      resolveDir: path.dirname(WORKER),
      sourcefile: 'worker-entry.ts',
      loader: 'ts',
    },
    absWorkingDir: ROOT,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    write: false,
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error('esbuild produced no worker bundle');
  return output.text;
}
