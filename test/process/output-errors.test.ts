// Output errors in plain words: a full disk, a read-only file system, no permission and a path
// that is a file each end `npm run build` with one line naming the path and the cause, exit
// status 1 and no stack trace; the previous output stays as it was and nothing is left beside it.
//
// How each cause is made:
//   - ENOSPC, EROFS: a real small tmpfs (mount needs root; skipped, saying why, otherwise);
//   - EACCES, EPERM: a test double of node:fs/promises and of exchange.ts (as root, chmod does
//     not stop a write);
//   - ENOTDIR, EEXIST: the real file system (a file where a folder is expected).

import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { OutputError, writeOutput } from '../../scripts/shared/write.ts';
import { GOOD_DATA, hasStackTrace, outputArgs, runCommand } from '../unit/helpers/cli.ts';
import { readTree, readTreeText, tempDirs } from '../unit/helpers/tree.ts';

const failure = vi.hoisted(() => ({
  on: undefined as undefined | ((call: string, target: string) => string | undefined),
}));

// The double: the real module, except that mkdir and rename fail with the code `failure.on` gives.
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const fail = (call: string, target: string) => {
    const code = failure.on?.(call, target);
    if (!code) return;
    throw Object.assign(new Error(`${code}: refused, ${call} '${target}'`), { code, syscall: call, path: target });
  };
  return {
    ...real,
    default: real,
    mkdir: async (target: string, options?: object) => {
      fail('mkdir', target);
      return real.mkdir(target, options);
    },
    rename: async (from: string, to: string) => {
      fail('rename', from);
      return real.rename(from, to);
    },
  };
});

// The exchange of the finished folder with the output (Linux), refused the same way.
vi.mock('../../scripts/shared/exchange.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../scripts/shared/exchange.ts')>();
  return {
    exchangeFolders: async (a: string, b: string) => {
      const code = failure.on?.('exchange', b);
      if (code) throw Object.assign(new Error(`${code}: refused, exchange '${b}'`), { code, path: b });
      return real.exchangeFolders(a, b);
    },
  };
});

const tempDir = tempDirs('output-errors-');

/** Runs a system command (mount, umount) that only this test needs. */
function system(command: string, args: string[], options: { stdio?: 'ignore' } = {}): void {
  execFileSync(command, args, options);
}

afterEach(() => {
  failure.on = undefined;
  vi.unstubAllEnvs();
});

/** The last line of stderr, and a check that the command failed in one line of plain words. */
function failedInOneLine(result: { code: number | null; stderr: string }): string {
  expect(result.code, result.stderr).toBe(1);
  expect(hasStackTrace(result.stderr), result.stderr).toBe(false);
  const lines = result.stderr.trim().split('\n');
  return lines[lines.length - 1] as string;
}

function buildArgs(dir: string): string[] {
  return ['--data', GOOD_DATA, ...outputArgs(dir), '--target', 'nginx'];
}

async function previousOutput(out: string): Promise<void> {
  await mkdir(path.join(out, 'event'), { recursive: true });
  await writeFile(path.join(out, 'event/index.json'), '[{"id":1}]');
  await writeFile(path.join(out, '_headers'), '/*\n  Vary: Accept\n');
}

describe('with a test double of the file system calls', () => {
  it('EACCES (no permission to create the folder beside the output): one line, the old output kept', async () => {
    const parent = await tempDir();
    const out = path.join(parent, 'public');
    await previousOutput(out);
    const before = await readTreeText(out);
    failure.on = (call, target) => (call === 'mkdir' && target.includes('.tmp-') ? 'EACCES' : undefined);
    const error = await writeOutput(out, new Map([['a.json', '1']])).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutputError);
    expect((error as Error).message).toBe(`cannot write ${out}: permission denied (EACCES)`);
    expect(await readTreeText(out)).toEqual(before);
    expect(await readdir(parent)).toEqual(['public']);
  });

  // The step that replaces the output: the one exchange (Linux), or the rename of the old output aside.
  it.each([
    ['exchange', 'exchanging the output with the new one'],
    ['rename', 'moving the old output aside, where the swap is renames'],
  ])('EPERM (%s: %s is not permitted): one line, the old output kept', async (call) => {
    if (call === 'rename') vi.stubEnv('STATIC_API_SWAP', 'renames');
    const parent = await tempDir();
    const out = path.join(parent, 'public');
    await previousOutput(out);
    const before = await readTreeText(out);
    failure.on = (refused, target) => (refused === call && target === out ? 'EPERM' : undefined);
    const error = await writeOutput(out, new Map([['a.json', '1']])).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutputError);
    expect((error as Error).message).toBe(`cannot write ${out}: operation not permitted (EPERM)`);
    expect(await readTreeText(out)).toEqual(before);
    expect(await readdir(parent)).toEqual(['public']);
  });

  it('EACCES on a file inside the output names the file as it would be in the output', async () => {
    const parent = await tempDir();
    const out = path.join(parent, 'public');
    failure.on = (call, target) => (call === 'mkdir' && target.endsWith(`${path.sep}event`) ? 'EACCES' : undefined);
    const error = await writeOutput(out, new Map([['event/index.json', '[]']])).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe(`cannot write ${path.join(out, 'event')}: permission denied (EACCES)`);
    expect(await readdir(parent)).toEqual([]);
  });
});

describe('on the real file system', () => {
  it('EEXIST: --out names a file: one line, the file untouched', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'public'), 'not a folder');
    const result = await runCommand('build', buildArgs(dir));
    expect(failedInOneLine(result)).toBe(
      `cannot write ${path.join(dir, 'public')}: it is a file, not a folder (EEXIST); ${path.join(dir, 'public')}/ was left as it was.`,
    );
    expect((await readTree(dir)).get('public')?.toString()).toBe('not a folder');
    expect((await readdir(dir)).sort()).toEqual(['public']);
  });

  it.each([
    ['EEXIST', 'site/public', 'a file is in the way of the folder'],
    ['ENOTDIR', 'site/sub/public', 'a part of the path is a file, not a folder'],
  ])('%s: a folder of --out (%s) is a file: one line naming it', async (code, out, cause) => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'site'), 'a file');
    const result = await runCommand('build', [...buildArgs(dir), '--out', path.join(dir, out)]);
    const line = failedInOneLine(result);
    expect(line).toMatch(new RegExp(`^cannot write ${dir}/site(/sub)?: ${cause} \\(${code}\\); `));
    expect(line).toMatch(/ was left as it was\.$/);
    expect(await readdir(dir)).toEqual(['site']);
  });
});

describe('on a small tmpfs (root only)', () => {
  let skipReason = '';
  beforeAll(async () => {
    if (process.getuid?.() !== 0) skipReason = 'not root: cannot mount a tmpfs';
    else {
      const probe = await mkdtemp(path.join(tmpdir(), 'output-errors-probe-'));
      try {
        system('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
        system('umount', [probe], { stdio: 'ignore' });
      } catch {
        skipReason = 'mount -t tmpfs failed (no privilege in this container)';
      } finally {
        await rm(probe, { recursive: true, force: true });
      }
    }
  });

  /** Mounts a 1 MB tmpfs, builds the previous output into it, runs `body`, always unmounts. */
  async function onTmpfs(body: (dir: string) => Promise<void>): Promise<void> {
    const dir = await tempDir();
    system('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    try {
      const first = await runCommand('build', buildArgs(dir));
      expect(first.code, first.stderr).toBe(0);
      await body(dir);
    } finally {
      system('umount', [dir]);
    }
  }

  it('ENOSPC: no space left: one line, the old output kept, nothing left behind', async (context) => {
    if (skipReason) context.skip(skipReason);
    await onTmpfs(async (dir) => {
      const before = await readTree(path.join(dir, 'public'));
      const { bavail, bsize } = await statfs(dir);
      // Leaves a few blocks free: less than the new output needs beside the old one.
      await writeFile(path.join(dir, 'filler'), Buffer.alloc(Math.max(0, (bavail - 4) * bsize)));
      const result = await runCommand('build', [...buildArgs(dir), '--page-size', '1']);
      expect(failedInOneLine(result)).toMatch(
        new RegExp(
          `^cannot write ${dir}/public.*: no space left on the device \\(ENOSPC\\); ${dir}/public/ was left as it was\\.$`,
        ),
      );
      expect(await readTree(path.join(dir, 'public'))).toEqual(before);
      expect((await readdir(dir)).sort()).toEqual(['filler', 'public', 'schemas', 'targets']);
    });
  });

  it('EROFS: a read-only file system: one line with the right cause, the old output kept', async (context) => {
    if (skipReason) context.skip(skipReason);
    await onTmpfs(async (dir) => {
      const before = await readTree(path.join(dir, 'public'));
      system('mount', ['-o', 'remount,ro', dir]);
      const result = await runCommand('build', [...buildArgs(dir), '--page-size', '1']);
      expect(failedInOneLine(result)).toMatch(
        new RegExp(
          `^cannot write ${dir}/public.*: the file system is read-only \\(EROFS\\); ${dir}/public/ was left as it was\\.$`,
        ),
      );
      expect(await readTree(path.join(dir, 'public'))).toEqual(before);
      expect((await readdir(dir)).sort()).toEqual(['public', 'schemas', 'targets']);
    });
  });
});
