// scripts/shared/write.ts: writeOutput builds the output in a staging folder beside it and
// swaps it in only when complete. It creates nested folders, replaces an existing output
// (removing files that are no longer rendered), and leaves the old output untouched, with no
// staging or backup folder left over, when writing fails. exchangeFolders (exchange.ts) swaps
// the finished folder in on Linux; the three renames of other systems are forced and tested too.

import { spawnSync } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { exchangeFolders } from '../../scripts/shared/exchange.ts';
import { recoverOutput } from '../../scripts/shared/swap.ts';
import { writeOutput } from '../../scripts/shared/write.ts';
import { readTreeText, tempDirs } from './helpers/tree.ts';

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

  it.runIf(linux)('exchanges two folders on Linux', async () => {
    const parent = await tempDir();
    const a = await folder(path.join(parent, 'a'), 'first');
    const b = await folder(path.join(parent, 'b b'), 'second');
    expect(await exchangeFolders(a, b)).toBe(true);
    expect(await readTreeText(a)).toEqual({ 'a.json': 'second' });
    expect(await readTreeText(b)).toEqual({ 'a.json': 'first' });
  });

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
