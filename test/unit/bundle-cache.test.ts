// scripts/build/bundle-cache.ts: a kept bundle is used while its files are unchanged, and made
// again (with the new code) when one of them changes, when the options change, or when the kept
// file is damaged. esbuild is real; a counting wrapper tells whether it ran.

import { readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { cachedBundle, type Bundler } from '../../scripts/build/bundle-cache.ts';
import { tempDirs } from './helpers/tree.ts';

const tempDir = tempDirs('bundle-cache-test-');
const AN_HOUR_AGO = new Date(Date.now() - 3_600_000);

/** Writes a module as it would be when not edited just now (a fresh file is never kept). */
async function writeModule(file: string, text: string, time = AN_HOUR_AGO): Promise<void> {
  await writeFile(file, text);
  await utimes(file, time, time);
}

async function project() {
  const dir = await tempDir();
  await writeModule(path.join(dir, 'answer.ts'), 'export const answer: number = 41;\n');
  await writeModule(path.join(dir, 'entry.ts'), "import { answer } from './answer.ts';\nmodule.exports = answer + 1;\n");
  let runs = 0;
  const counting: Bundler = (options) => {
    runs++;
    return build(options);
  };
  const options = { entryPoints: [path.join(dir, 'entry.ts')], bundle: true, platform: 'node' as const, format: 'cjs' as const, logLevel: 'silent' as const };
  const bundle = (overrides = {}) => cachedBundle({ ...options, ...overrides }, path.join(dir, 'cache', 'bundle.json'), counting);
  return { dir, bundle, runs: () => runs };
}

/** What a CommonJS bundle exports. */
function run(code: string): unknown {
  const module = { exports: {} as unknown };
  new Function('module', 'exports', code)(module, module.exports);
  return module.exports;
}

describe('cachedBundle', () => {
  it('bundles once, then reads the kept bundle while no file changed', async () => {
    const { bundle, runs } = await project();
    const first = await bundle();
    expect(run(first)).toBe(42);
    expect(await bundle()).toBe(first);
    expect(runs()).toBe(1);
  });

  it('bundles again when a module changes, and keeps the new bundle', async () => {
    const { dir, bundle, runs } = await project();
    expect(run(await bundle())).toBe(42);
    // Same size, another time: the content is not compared, the size and time are.
    await writeModule(path.join(dir, 'answer.ts'), 'export const answer: number = 99;\n', new Date(Date.now() - 60_000));
    expect(run(await bundle())).toBe(100);
    expect(run(await bundle())).toBe(100);
    expect(runs()).toBe(2);
  });

  it('does not keep a bundle of a module changed a moment ago, which esbuild may have read half-written', async () => {
    const { dir, bundle, runs } = await project();
    await writeFile(path.join(dir, 'answer.ts'), 'export const answer: number = 1;\n');
    expect(run(await bundle())).toBe(2);
    expect(run(await bundle())).toBe(2);
    expect(runs()).toBe(2);
  });

  it('bundles again for other options, and over a damaged cache file', async () => {
    const { dir, bundle, runs } = await project();
    await bundle();
    const minified = await bundle({ minify: true });
    expect(run(minified)).toBe(42);
    expect(runs()).toBe(2);
    const cacheFile = path.join(dir, 'cache', 'bundle.json');
    expect(JSON.parse(await readFile(cacheFile, 'utf8'))).toMatchObject({ code: minified });
    await writeFile(cacheFile, '{"key":');
    expect(run(await bundle({ minify: true }))).toBe(42);
    expect(runs()).toBe(3);
  });

  it('still bundles when the cache folder cannot be made', async () => {
    const dir = await tempDir();
    await writeModule(path.join(dir, 'entry.ts'), 'module.exports = 7;\n');
    await writeFile(path.join(dir, 'not-a-folder'), '');
    const code = await cachedBundle({ entryPoints: [path.join(dir, 'entry.ts')], bundle: true, format: 'cjs', logLevel: 'silent' }, path.join(dir, 'not-a-folder', 'bundle.json'));
    expect(run(code)).toBe(7);
  });
});
