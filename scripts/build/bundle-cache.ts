// An esbuild bundle kept on disk between runs. The build's worker thread runs a bundle of its
// code (start-worker.ts says why); making it takes about 0.2 s of esbuild's time at each build,
// while checking a kept one takes a few milliseconds. A kept bundle is used only while each file
// esbuild read for it has the size and modification time it had then, and the esbuild version
// and options are the same: editing any of the worker's modules, or updating zod, makes a new one.

import { build, version, type BuildOptions, type BuildResult } from 'esbuild';
import { readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the project keeps a bundle called `name`: node_modules/.cache, which npm and git leave alone. */
export function cacheFile(name: string): string {
  return fileURLToPath(new URL(`../../node_modules/.cache/static-drf-api/${name}.json`, import.meta.url));
}

interface Kept {
  /** The esbuild version and options the bundle was made with. */
  key: string;
  /** Each file esbuild read: absolute path, size, modification time (ms). */
  inputs: Array<[file: string, size: number, mtimeMs: number]>;
  code: string;
}

type InMemory = BuildOptions & { write: false; metafile: true };
export type Bundler = (options: InMemory) => Promise<BuildResult<InMemory>>;

const unchanged = ([file, size, mtimeMs]: Kept['inputs'][number]) => {
  const stats = statSync(file, { throwIfNoEntry: false });
  return stats !== undefined && stats.size === size && stats.mtimeMs === mtimeMs;
};

// Synchronous, a millisecond or two: the caller's next step is to start the thread, and with an
// asynchronous read that would wait behind whatever work the build's thread does meanwhile.
function readKept(cacheFile: string, key: string): string | null {
  try {
    const kept = JSON.parse(readFileSync(cacheFile, 'utf8')) as Kept;
    return kept.key === key && kept.inputs.length > 0 && kept.inputs.every(unchanged) ? kept.code : null;
  } catch {
    // No cache yet, or one from a crashed write: bundle again.
    return null;
  }
}

/** The one output file of bundling `options`, from `cacheFile` when nothing it was made from changed. */
export async function cachedBundle(options: BuildOptions, cacheFile: string, bundler: Bundler = build): Promise<string> {
  const cwd = options.absWorkingDir ?? process.cwd();
  const key = JSON.stringify({ esbuild: version, cwd, options });
  const kept = readKept(cacheFile, key);
  if (kept !== null) return kept;

  const started = Date.now();
  const result = await bundler({ ...options, write: false, metafile: true });
  const [output] = result.outputFiles;
  if (!output || result.outputFiles.length !== 1) throw new Error(`esbuild made ${result.outputFiles.length} files of ${String(options.entryPoints)}, expected 1`);
  const inputs = Object.keys(result.metafile.inputs).flatMap((input): Kept['inputs'] => {
    const file = path.resolve(cwd, input);
    const stats = statSync(file, { throwIfNoEntry: false });
    return stats ? [[file, stats.size, stats.mtimeMs]] : [];
  });
  // A file changed while esbuild read it may be bundled as it was before: keep no such bundle.
  if (inputs.some(([, , mtimeMs]) => mtimeMs >= started - 1000)) return output.text;
  const entry: Kept = { key, inputs, code: output.text };
  // Written aside and renamed: builds running at once (the tests do) never read half a file.
  const partial = `${cacheFile}.${process.pid}.${Date.now()}.tmp`;
  try {
    await mkdir(path.dirname(cacheFile), { recursive: true });
    await writeFile(partial, JSON.stringify(entry));
    await rename(partial, cacheFile);
  } catch {
    // A read-only node_modules only costs the bundling at each build.
    await rm(partial, { force: true }).catch(() => {});
  }
  return output.text;
}
