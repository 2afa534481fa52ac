// scripts/shared/write.ts: writeOutput builds the output in a staging folder beside it and
// swaps it in only when complete. It creates nested folders, replaces an existing output
// (removing files that are no longer rendered), and leaves the old output untouched, with no
// staging or backup folder left over, when writing fails. exchangeFolders (exchange.ts) swaps
// the finished folder in on Linux; the three renames of other systems are forced and tested too.
// A file whose bytes did not change is carried over as a hard link (same inode and modification
// time, which web servers make their validators of), also where the swap is renames; where the
// file system refuses the link, it is written again.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chown, link, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { exchangeFolders } from '../../scripts/shared/exchange.ts';
import type { FileBody } from '../../scripts/shared/file-body.ts';
import { recoverOutput } from '../../scripts/shared/swap.ts';
import { writeOutput } from '../../scripts/shared/write.ts';
import { GOOD_DATA, outputArgs, runCommand } from '../unit/helpers/cli.ts';
import { readTreeText, tempDirs } from '../unit/helpers/tree.ts';

const tempDir = tempDirs('write-test-');

async function oldOutput(out: string): Promise<void> {
  await mkdir(path.join(out, 'event'), { recursive: true });
  await writeFile(path.join(out, 'event/index.json'), '[{"id":1}]');
  await writeFile(path.join(out, 'stale.json'), 'old');
}

/** A folder holding one file, a.json, with `text`; returns its path. */
async function folder(dir: string, text: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'a.json'), text);
  return dir;
}

describe('writeOutput', () => {
  it('creates the output and its nested folders', async () => {
    const parent = await tempDir();
    const out = path.join(parent, 'site', 'public');
    await writeOutput(
      out,
      new Map([
        ['_headers', '/*\n  Vary: Accept\n'],
        ['company/index.json', '[]'],
        ['virtualbooth-texture/format=api/page=2.json', '{"count":0}'],
        ['_errors/405/POST.json', '{"detail":"Method \\"POST\\" not allowed."}'],
      ]),
    );
    expect(await readTreeText(out)).toEqual({
      _headers: '/*\n  Vary: Accept\n',
      '_errors/405/POST.json': '{"detail":"Method \\"POST\\" not allowed."}',
      'company/index.json': '[]',
      'virtualbooth-texture/format=api/page=2.json': '{"count":0}',
    });
    expect(await readdir(path.join(parent, 'site'))).toEqual(['public']);
  });

  it('writes the text as UTF-8 bytes', async () => {
    const out = path.join(await tempDir(), 'out');
    await writeOutput(out, new Map([['a.json', '["東京","é"]']]));
    expect(await readTreeText(out)).toEqual({ 'a.json': '["東京","é"]' });
  });

  it('writes bytes as they are', async () => {
    const out = path.join(await tempDir(), 'out');
    const text = '["東京","é"]';
    await writeOutput(out, new Map<string, FileBody>([['bytes.json', Buffer.from(text)]]));
    expect(await readFile(path.join(out, 'bytes.json'), 'utf8')).toBe(text);
  });

  it('replaces an existing output, dropping files no longer rendered', async () => {
    const parent = await tempDir();
    const out = path.join(parent, 'out');
    await oldOutput(out);
    await writeOutput(
      out,
      new Map([
        ['event/index.json', '[{"id":2}]'],
        ['company/index.json', '[]'],
      ]),
    );
    expect(await readTreeText(out)).toEqual({ 'company/index.json': '[]', 'event/index.json': '[{"id":2}]' });
    expect(await readdir(parent)).toEqual(['out']);
  });

  it('accepts a relative output path', async () => {
    const parent = await tempDir();
    const out = path.relative(process.cwd(), path.join(parent, 'rel'));
    await writeOutput(out, new Map([['a.json', '1']]));
    expect(await readTreeText(path.join(parent, 'rel'))).toEqual({ 'a.json': '1' });
  });

  it.each<[string, Array<[string, string]>]>([
    [
      'a file and a folder of the same name',
      [
        ['event', '[]'],
        ['event/index.json', '[]'],
      ],
    ],
    [
      'a NUL character in a file name',
      [
        ['ok.json', '[]'],
        ['bad\0name.json', '[]'],
      ],
    ],
    [
      'a file name too long for the file system',
      [
        ['ok.json', '[]'],
        [`${'x'.repeat(300)}.json`, '[]'],
      ],
    ],
  ])('leaves the old output as it was when writing fails: %s', async (_label, files) => {
    const parent = await tempDir();
    const out = path.join(parent, 'out');
    await oldOutput(out);
    const before = await readTreeText(out);
    await expect(writeOutput(out, new Map(files))).rejects.toThrow();
    expect(await readTreeText(out)).toEqual(before);
    expect(await readdir(parent)).toEqual(['out']);
  });

  it('leaves nothing behind when writing a new output fails', async () => {
    const parent = await tempDir();
    await expect(
      writeOutput(
        path.join(parent, 'out'),
        new Map([
          ['a', '1'],
          ['a/b', '2'],
        ]),
      ),
    ).rejects.toThrow();
    expect(await readdir(parent)).toEqual([]);
  });

  it('keeps the old output when a write fails after other files were written', async () => {
    const parent = await tempDir();
    const out = path.join(parent, 'out');
    await oldOutput(out);
    const before = await readTreeText(out);
    const files = new Map<string, string>(
      Array.from({ length: 100 }, (_, i) => [`page/${i}.json`, `{"n":${i}}`] as const),
    );
    // Under a file, not a folder: the write fails once the others are in the staging folder.
    files.set('page/99.json/x.json', '{}');
    await expect(writeOutput(out, files)).rejects.toThrow();
    expect(await readTreeText(out)).toEqual(before);
    expect(await readdir(parent)).toEqual(['out']);
  });
});

/** Each file's inode and modification time under `dir`, by path relative to it. */
async function identities(dir: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const file of await readdir(dir, { recursive: true })) {
    const stats = await stat(path.join(dir, file));
    if (stats.isFile()) found[file] = `${stats.ino} ${stats.mtimeMs}`;
  }
  return found;
}

const NOBODY = 65534;

/** Why a file cannot be made unlinkable here, or '' when it can (see the fallback's test). */
function linkRefusalUnavailable(): string {
  if (process.getuid?.() !== 0 || !process.seteuid || !process.setegid) return 'not root: cannot act as another user';
  try {
    if (readFileSync('/proc/sys/fs/protected_hardlinks', 'utf8').trim() !== '1') return 'fs.protected_hardlinks is off';
  } catch {
    return 'no fs.protected_hardlinks (not Linux)';
  }
  return '';
}

describe.each([
  ['the exchange', undefined],
  ['the renames', 'renames'],
])('writeOutput carrying unchanged files over, with %s', (_label, swap) => {
  beforeEach(() => {
    if (swap) vi.stubEnv('STATIC_API_SWAP', swap);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const files = new Map([
    ['_headers', '/*\n  Vary: Accept\n'],
    ['event/index.json', '[{"id":1,"name":"Fair"}]'],
    ['event/format=api.json', '[{"id":1,"name":"Fair"}]'],
    ['company/index.json', '[]'],
  ]);

  it('keeps every file, its inode and its modification time, when nothing changed', async () => {
    const parent = await tempDir();
    const out = path.join(parent, 'out');
    await writeOutput(out, files);
    const before = await identities(out);
    // Past the file system's clock resolution: a rewritten file would have a new time.
    await new Promise((done) => setTimeout(done, 20));
    await writeOutput(out, files);
    expect(await identities(out)).toEqual(before);
    expect(Object.keys(before)).toHaveLength(4);
    expect(await readTreeText(out)).toEqual(Object.fromEntries(files));
    // The previous output is gone: each file has its one name again.
    for (const file of files.keys()) expect((await stat(path.join(out, file))).nlink).toBe(1);
    expect(await readdir(parent)).toEqual(['out']);
  });

  it('writes a changed file anew, also one of the same size, adds new ones and drops removed ones', async () => {
    const parent = await tempDir();
    const out = path.join(parent, 'out');
    await writeOutput(out, files);
    const before = await identities(out);
    await new Promise((done) => setTimeout(done, 20));
    const next = new Map(files);
    next.set('event/index.json', '[{"id":1,"name":"Expo"}]');
    next.set('event/format=api.json', '[{"id":1,"name":"Trade fair"}]');
    next.delete('company/index.json');
    next.set('company/page=2.json', '[]');
    await writeOutput(out, next);
    const after = await identities(out);
    expect(after._headers).toBe(before._headers);
    expect(after['event/index.json']).not.toBe(before['event/index.json']);
    expect(after['event/format=api.json']).not.toBe(before['event/format=api.json']);
    expect(Object.keys(after).sort()).toEqual([...next.keys()].sort());
    expect(await readTreeText(out)).toEqual(Object.fromEntries(next));
    expect(await readdir(parent)).toEqual(['out']);
  });

  it('never writes into a file of the output being replaced, even when two paths name one file', async () => {
    const parent = await tempDir();
    const out = path.join(parent, 'out');
    const names = Array.from({ length: 40 }, (_, i) => `page/${i}.json`);
    await writeOutput(out, new Map(names.map((name) => [name, 'same'])));
    // A name of each old file outside the output: what a reader of the old output would see.
    await mkdir(path.join(parent, 'kept'));
    for (const [i, name] of names.entries()) await link(path.join(out, name), path.join(parent, 'kept', `${i}`));
    // Each file twice: carried over under one name, and other bytes of the same size under the other.
    await writeOutput(out, new Map(names.flatMap((name) => [[name, 'same'] as const, [`./${name}`, 'diff'] as const])));
    for (const [i, name] of names.entries()) {
      expect(await readFile(path.join(parent, 'kept', `${i}`), 'utf8')).toBe('same');
      expect(['same', 'diff']).toContain(await readFile(path.join(out, name), 'utf8'));
    }
    expect((await readdir(parent)).sort()).toEqual(['kept', 'out']);
  });

  // Real, not a double: a file owned by another user that this one may read but not write cannot
  // be hard-linked under fs.protected_hardlinks (Linux's default), the case of an output built
  // by another user. It stands for every file system that refuses a link.
  it('writes the file again when the file system refuses the link', async (context) => {
    const unavailable = linkRefusalUnavailable();
    if (unavailable) context.skip(unavailable);
    const parent = await tempDir();
    const out = path.join(parent, 'out');
    await writeOutput(out, files);
    // The folders become nobody's, so that nobody may replace the output; the files stay root's.
    for (const dir of [parent, out, path.join(out, 'event'), path.join(out, 'company')]) {
      await chown(dir, NOBODY, NOBODY);
    }
    const before = await identities(out);
    process.setegid?.(NOBODY);
    process.seteuid?.(NOBODY);
    try {
      await expect(link(path.join(out, '_headers'), path.join(parent, 'probe'))).rejects.toMatchObject({
        code: 'EPERM',
      });
      await writeOutput(out, files);
    } finally {
      process.seteuid?.(0);
      process.setegid?.(0);
    }
    const after = await identities(out);
    for (const file of files.keys()) {
      expect(after[file]).not.toBe(before[file]);
      expect((await stat(path.join(out, file))).uid).toBe(NOBODY);
    }
    expect(await readTreeText(out)).toEqual(Object.fromEntries(files));
    expect(await readdir(parent)).toEqual(['out']);
  });
});

describe('recoverOutput, run first by every write', () => {
  // A PID that no process has any more: a child that has exited.
  const deadPid = spawnSync(process.execPath, ['-e', '']).pid;

  it('restores the complete new output when killed between the renames, and removes the old one', async () => {
    const parent = await tempDir();
    const out = path.join(parent, 'out');
    await folder(`${out}.old-${deadPid}-1000-1`, 'old');
    await folder(`${out}.new-${deadPid}-1000-1`, 'new');
    await folder(`${out}.tmp-${deadPid}-900-1`, 'partial');
    expect(await recoverOutput(out)).toBe(`${out}.new-${deadPid}-1000-1`);
    expect(await readTreeText(out)).toEqual({ 'a.json': 'new' });
    expect(await readdir(parent)).toEqual(['out']);
  });

  it('restores the newest old output when there is no new one', async () => {
    const parent = await tempDir();
    const out = path.join(parent, 'out');
    await folder(`${out}.old-${deadPid}-1000-1`, 'older');
    await folder(`${out}.old-${deadPid}-1000-2`, 'newer');
    await recoverOutput(out);
    expect(await readTreeText(out)).toEqual({ 'a.json': 'newer' });
    expect(await readdir(parent)).toEqual(['out']);
  });

  it('keeps the output and removes every leftover once it exists; a write then leaves only the output', async () => {
    const parent = await tempDir();
    const out = path.join(parent, 'out');
    await folder(out, 'current');
    await folder(`${out}.new-${deadPid}-1000-1`, 'new');
    await folder(`${out}.old-${deadPid}-1000-1`, 'old');
    await folder(`${out}.tmp-${deadPid}-1000-1`, 'partial');
    await writeOutput(out, new Map([['b.json', '2']]));
    expect(await readTreeText(out)).toEqual({ 'b.json': '2' });
    expect(await readdir(parent)).toEqual(['out']);
  });

  it('leaves the folders of a build still running', async () => {
    const parent = await tempDir();
    const out = path.join(parent, 'out');
    await folder(out, 'current');
    const running = `${out}.tmp-${process.ppid}-1000-1`;
    await folder(running, 'being written');
    await recoverOutput(out);
    expect((await readdir(parent)).sort()).toEqual(['out', path.basename(running)]);
  });
});

describe('exchangeFolders, the swap in one step', () => {
  const linux = process.platform === 'linux';
  // Each build of the fixture, killed past it (by its PID) so that a hung exchange fails the test and leaves no process.
  const BUILD_MS = 45_000;

  it.runIf(linux)('exchanges two folders on Linux', async () => {
    const parent = await tempDir();
    const a = await folder(path.join(parent, 'a'), 'first');
    const b = await folder(path.join(parent, 'b b'), 'second');
    expect(await exchangeFolders(a, b)).toBe(true);
    expect(await readTreeText(a)).toEqual({ 'a.json': 'second' });
    expect(await readTreeText(b)).toEqual({ 'a.json': 'first' });
  });

  it.runIf(linux)('exchanges several pairs asked at once, each answered for its own folders', async () => {
    const parent = await tempDir();
    // Names a line-based protocol would split or mangle: a newline, a non-ASCII letter.
    const pairs = await Promise.all(
      ['plain', 'new\nline', 'Zürich'].map(async (name, index) => [
        await folder(path.join(parent, `${name}-a`), `a${index}`),
        await folder(path.join(parent, `${name}-b`), `b${index}`),
      ]),
    );
    const missing = path.join(parent, 'missing');
    const answers = await Promise.allSettled([
      ...pairs.map(([a, b]) => exchangeFolders(a as string, b as string)),
      exchangeFolders(pairs[0]?.[0] as string, missing),
    ]);
    expect(answers.slice(0, 3)).toEqual(pairs.map(() => ({ status: 'fulfilled', value: true })));
    expect(answers[3]).toMatchObject({ status: 'rejected', reason: { code: 'ENOENT', path: missing } });
    for (const [index, [a, b]] of pairs.entries()) {
      expect(await readTreeText(a as string)).toEqual({ 'a.json': `b${index}` });
      expect(await readTreeText(b as string)).toEqual({ 'a.json': `a${index}` });
    }
  });

  it.runIf(linux)(
    'one perl exchanges every folder of a build',
    async () => {
      const dir = await tempDir();
      // A perl on the PATH that counts its starts and keeps what it is asked (the pairs of paths).
      const bin = await folder(path.join(dir, 'bin'), '');
      const realPerl = spawnSync('sh', ['-c', 'command -v perl'], { encoding: 'utf8' }).stdout.trim();
      const starts = path.join(dir, 'starts');
      const asked = path.join(dir, 'asked');
      await writeFile(
        path.join(bin, 'perl'),
        `#!/bin/sh\necho started >> '${starts}'\ntee -a '${asked}' | '${realPerl}' "$@"\n`,
        { mode: 0o755 },
      );
      const env = { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
      const first = await runCommand('build', ['--data', GOOD_DATA, ...outputArgs(dir)], { env, timeoutMs: BUILD_MS });
      expect(first.code, first.stderr).toBe(0);
      // The first build creates the folders: nothing to exchange, no perl.
      await expect(readFile(starts, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
      const second = await runCommand('build', ['--data', GOOD_DATA, ...outputArgs(dir), '--page-size', '1'], {
        env,
        timeoutMs: BUILD_MS,
      });
      expect(second.code, second.stderr).toBe(0);
      expect(await readFile(starts, 'utf8')).toBe('started\n');
      const folders = [
        'public',
        'schemas',
        ...(await readdir(path.join(dir, 'targets'))).map((name) => `targets/${name}`),
      ];
      const exchanged = (await readFile(asked, 'utf8')).split('\0').filter((_, index) => index % 2 === 1);
      expect(exchanged.sort()).toEqual(folders.map((name) => path.join(dir, name)).sort());
      expect(folders.length).toBeGreaterThanOrEqual(10);
      // Nothing left beside the folders: every previous output was exchanged out and removed.
      expect((await readdir(dir)).sort()).toEqual(['asked', 'bin', 'public', 'schemas', 'starts', 'targets']);
    },
    3 * BUILD_MS,
  );

  it.runIf(linux)('reports the file system error, with its code and path, when a folder is missing', async () => {
    const parent = await tempDir();
    const a = await folder(path.join(parent, 'a'), 'first');
    const missing = path.join(parent, 'missing');
    await expect(exchangeFolders(a, missing)).rejects.toMatchObject({ code: 'ENOENT', path: missing });
    expect(await readTreeText(a)).toEqual({ 'a.json': 'first' });
  });

  describe('with the fallback forced (STATIC_API_SWAP=renames)', () => {
    beforeEach(() => {
      vi.stubEnv('STATIC_API_SWAP', 'renames');
    });
    afterEach(() => {
      vi.unstubAllEnvs();
    });

    it('says it cannot and changes nothing', async () => {
      const parent = await tempDir();
      const a = await folder(path.join(parent, 'a'), 'first');
      const b = await folder(path.join(parent, 'b'), 'second');
      expect(await exchangeFolders(a, b)).toBe(false);
      expect(await readTreeText(a)).toEqual({ 'a.json': 'first' });
    });

    it('writeOutput still replaces the output and leaves nothing beside it', async () => {
      const parent = await tempDir();
      const out = path.join(parent, 'out');
      await oldOutput(out);
      await writeOutput(out, new Map([['event/index.json', '[{"id":2}]']]));
      expect(await readTreeText(out)).toEqual({ 'event/index.json': '[{"id":2}]' });
      expect(await readdir(parent)).toEqual(['out']);
    });
  });
});
