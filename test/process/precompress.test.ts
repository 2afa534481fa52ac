// `npm run build` with the precompress setting off (cli/settings.ts): no `.br` or `.gz` anywhere,
// every other file the same bytes as the build with it on, and a build over an output that had
// siblings leaves none (a stale one would be sent for an answer it no longer compresses). The
// deploy targets' files are the same, so the Cloudflare, Netlify and Vercel deploys, which upload
// no sibling, are unchanged; what the web servers answer without siblings is
// served-compressed.test.ts's.

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSibling } from '../../scripts/shared/compress.ts';
import { outputArgs, runCommand } from '../unit/helpers/cli.ts';
import { readTree, tempDirs } from '../unit/helpers/tree.ts';

const tempDir = tempDirs('precompress-');
const BUILD_MS = 60_000;

async function build(dir: string, args: string[] = [], env: Record<string, string> = {}) {
  const finished = await runCommand('build', [...outputArgs(dir), ...args], { env, timeoutMs: BUILD_MS });
  expect(finished.stderr).toContain('wrote');
  expect(finished.code).toBe(0);
}

const without = (tree: Map<string, Buffer>) => new Map([...tree].filter(([file]) => !isSibling(file)));

describe('npm run build with precompress off', () => {
  it(
    'writes no sibling and every other file as the build with it on, the targets included',
    async () => {
      const [on, off] = [await tempDir(), await tempDir()];
      const config = path.join(off, 'static-api.config.json');
      await writeFile(config, JSON.stringify({ precompress: false }));
      await build(on);
      await build(off, ['--config', config]);
      const [onPublic, offPublic] = [await readTree(path.join(on, 'public')), await readTree(path.join(off, 'public'))];
      const siblings = [...onPublic.keys()].filter(isSibling);
      expect(siblings).toContain('company/index.json.br');
      expect(siblings).toContain('company/index.json.gz');
      expect([...offPublic.keys()].filter(isSibling)).toEqual([]);
      expect(offPublic).toEqual(without(onPublic));
      const [onTargets, offTargets] = [
        await readTree(path.join(on, 'targets')),
        await readTree(path.join(off, 'targets')),
      ];
      for (const target of ['cloudflare-workers', 'cloudflare-pages', 'cloudflare-pages-static', 'netlify', 'vercel'])
        expect(
          [...offTargets.keys()].some((file) => file.startsWith(`${target}/`)),
          target,
        ).toBe(true);
      expect([...offTargets.keys()].filter(isSibling)).toEqual([]);
      expect(offTargets).toEqual(onTargets);
    },
    2 * BUILD_MS,
  );

  it(
    'leaves no sibling of an earlier build in the output, by the flag or the variable',
    async () => {
      const dir = await tempDir();
      await build(dir);
      expect([...(await readTree(path.join(dir, 'public'))).keys()].filter(isSibling)).not.toEqual([]);
      await build(dir, ['--precompress', 'off']);
      expect([...(await readTree(path.join(dir, 'public'))).keys()].filter(isSibling)).toEqual([]);
      await build(dir);
      await build(dir, [], { PRECOMPRESS: 'off' });
      expect([...(await readTree(path.join(dir, 'public'))).keys()].filter(isSibling)).toEqual([]);
    },
    4 * BUILD_MS,
  );
});
