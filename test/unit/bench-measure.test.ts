// scripts/bench/measure.ts: the benchmark runs its children with the Node flags of `npm run build`,
// read from package.json, so that it measures the build as users run it; one of them reads
// scripts/build.env, the environment those scripts give Node.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildNodeFlags } from '../../scripts/bench/measure.ts';

async function flagsOf(build: string): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-measure-'));
  try {
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ scripts: { build } }));
    return await buildNodeFlags(path.join(dir, 'package.json'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('buildNodeFlags', () => {
  it("reads the project's build flags, which check and start use too", async () => {
    const flags = await buildNodeFlags();
    expect(flags).toEqual(['--env-file=scripts/build.env', '--initial-old-space-size=300', '--single-threaded-gc']);
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.check).toBe(`tsx ${flags.join(' ')} scripts/build.ts --check`);
    expect(scripts.start).toBe(`tsx ${flags.join(' ')} scripts/start.ts`);
  });

  it("gives libuv's thread pool one thread through scripts/build.env, unless the environment sets its size", () => {
    const poolSize = (env: NodeJS.ProcessEnv) =>
      execFileSync(process.execPath, ['--env-file=scripts/build.env', '-p', 'process.env.UV_THREADPOOL_SIZE'], { env, encoding: 'utf8' }).trim();
    const { UV_THREADPOOL_SIZE: _, ...rest } = process.env;
    expect(poolSize(rest)).toBe('1');
    expect(poolSize({ ...rest, UV_THREADPOOL_SIZE: '4' })).toBe('4');
  });

  it('takes the flags before the script, and none when there are none', async () => {
    expect(await flagsOf('tsx --a=1 --b scripts/build.ts --check')).toEqual(['--a=1', '--b']);
    expect(await flagsOf('tsx scripts/build.ts')).toEqual([]);
  });

  it('refuses a build script that does not run tsx', async () => {
    await expect(flagsOf('node dist/build.js')).rejects.toThrow(/expected the build script to run tsx/);
  });
});
