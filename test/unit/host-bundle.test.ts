// scripts/targets/bundle.ts: a host target's entry is bundled once per build (both Cloudflare
// targets, both Netlify functions), kept between builds (a rebuild with the same code, rules and
// routes runs no esbuild), and bundled anew when its data changes. esbuild is real; a counting
// wrapper tells whether it ran.

import { rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cacheFile, type Bundler } from '../../scripts/build/bundle-cache.ts';
import { tempDirs } from './helpers/tree.ts';

const tempDir = tempDirs('host-bundle-test-');
// A kind of its own per test process, so that the project's kept bundles are not touched.
const NAME = `test-entry-${process.pid}`;

afterEach(async () => {
  await rm(cacheFile(NAME), { force: true });
});

async function setUp() {
  const dir = await tempDir();
  const module = path.join(dir, 'greet.ts');
  await writeFile(module, 'export const greet = (name: string): string => `hello ${name}`;\n');
  // Not edited just now: a bundle of a file written a moment ago is never kept.
  const earlier = new Date(Date.now() - 3_600_000);
  await utimes(module, earlier, earlier);
  let runs = 0;
  const counting: Bundler = (options) => {
    runs++;
    return build(options);
  };
  const entry = (name: string) => ({
    name: NAME,
    module,
    contents: `import { greet } from './greet.ts';\nexport default greet(${JSON.stringify(name)});\n`,
    platform: 'neutral' as const,
    target: 'es2022',
  });
  return { entry, counting, runs: () => runs };
}

/** The module's default export, run as an ES module. */
async function run(code: string): Promise<unknown> {
  const module = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as { default: unknown };
  return module.default;
}

describe('bundleEntry', () => {
  it('bundles an entry once, however many targets ask for it', async () => {
    const { bundleEntry } = await import('../../scripts/targets/bundle.ts');
    const { entry, counting, runs } = await setUp();
    const [first, second] = await Promise.all([bundleEntry(entry('world'), counting), bundleEntry(entry('world'), counting)]);
    expect(runs()).toBe(1);
    expect(second).toBe(first);
    expect(await run(first)).toBe('hello world');
  });

  it('keeps the bundle for the next build: the same entry runs no esbuild', async () => {
    const { entry, counting, runs } = await setUp();
    const first = await (await import('../../scripts/targets/bundle.ts')).bundleEntry(entry('world'), counting);
    // A fresh module instance: nothing of the first build is left in memory, as in a new process.
    vi.resetModules();
    const again = await (await import('../../scripts/targets/bundle.ts')).bundleEntry(entry('world'), counting);
    expect(runs()).toBe(1);
    expect(again).toBe(first);
  });

  it('bundles anew when the data in the entry changes, with the new data', async () => {
    const { bundleEntry } = await import('../../scripts/targets/bundle.ts');
    const { entry, counting, runs } = await setUp();
    expect(await run(await bundleEntry(entry('world'), counting))).toBe('hello world');
    expect(await run(await bundleEntry(entry('fair'), counting))).toBe('hello fair');
    // Only the last entry of a kind is kept: going back bundles again.
    expect(await run(await bundleEntry(entry('world'), counting))).toBe('hello world');
    expect(runs()).toBe(3);
  });
});
