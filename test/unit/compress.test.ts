// scripts/shared/compress.ts and its use by write.ts: each answer of 4 KiB or more gets `.br` and
// `.gz` siblings that decode to its bytes, are the same bytes for the same answer, and have its
// modification time; a rewrite of the output carries an unchanged answer's siblings over with it
// (the same inodes: not compressed again) and compresses only the changed answers. Also the
// local server's choice of a sibling from Accept-Encoding (respond/encodings.ts), and the
// review's reading of a built folder, which leaves the siblings out (review/side.ts).

import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { chooseEncoding } from '../../scripts/respond/encodings.ts';
import { readSide } from '../../scripts/review/side.ts';
import {
  isSibling,
  MIN_COMPRESSED_BYTES,
  siblingsOf,
  worthCompressing,
  writeSiblings,
} from '../../scripts/shared/compress.ts';
import { writeOutput } from '../../scripts/shared/write.ts';
import { tempDirs } from './helpers/tree.ts';

const tempDir = tempDirs('compress-test-');

/** A JSON list of `count` records: big enough to compress from a few records on. */
const list = (count: number, name = 'Company') =>
  JSON.stringify(Array.from({ length: count }, (_, id) => ({ id, name: `${name} ${id}`, city: 'Berlin' })));

async function timeNs(file: string): Promise<bigint> {
  return (await stat(file, { bigint: true })).mtimeNs;
}

describe('siblingsOf', () => {
  it('gives the same bytes for the same answer, decoding to it, with a gzip header naming no file and no time', async () => {
    const bytes = Buffer.from(list(500));
    const [first, second] = [await siblingsOf(bytes), await siblingsOf(Buffer.from(bytes))];
    expect([...first.keys()]).toEqual(['.br', '.gz']);
    expect(second.get('.br')?.equals(first.get('.br') as Buffer)).toBe(true);
    expect(second.get('.gz')?.equals(first.get('.gz') as Buffer)).toBe(true);
    const gz = first.get('.gz') as Buffer;
    expect(brotliDecompressSync(first.get('.br') as Buffer).equals(bytes)).toBe(true);
    expect(gunzipSync(gz).equals(bytes)).toBe(true);
    // RFC 1952: FLG (no FNAME, FCOMMENT, FEXTRA), MTIME 0, OS 3 (Unix) on every system.
    expect(gz[3]).toBe(0);
    expect(gz.readUInt32LE(4)).toBe(0);
    expect(gz[9]).toBe(3);
    expect((first.get('.br') as Buffer).length).toBeLessThan(bytes.length / 4);
  });

  it('compresses the JSON answers of 4 KiB or more, not the files only code reads, and knows a sibling by its name', () => {
    expect(MIN_COMPRESSED_BYTES).toBe(4096);
    expect(worthCompressing('company/index.json', 4096)).toBe(true);
    expect(worthCompressing('company/index.json', 4095)).toBe(false);
    expect(worthCompressing('_reference/index.htm', 5000)).toBe(false);
    expect(worthCompressing('_headers', 5000)).toBe(false);
    expect(worthCompressing('_redirects', 5000)).toBe(false);
    // Read by the handler's code, never sent as they are.
    expect(worthCompressing('_records/company/1.json', 500_000)).toBe(false);
    expect(worthCompressing('_records/company/index.json', 5000)).toBe(false);
    expect(worthCompressing('_parts/company/index.json', 5000)).toBe(false);
    expect(worthCompressing('_options/company/index.json', 5000)).toBe(true);
    expect(isSibling('company/index.json.br')).toBe(true);
    expect(isSibling('company/index.json.gz')).toBe(true);
    expect(isSibling('company/index.json')).toBe(false);
  });
});

describe('writeOutput with precompress', () => {
  it('writes the siblings of each answer of 4 KiB or more, with its modification time to the nanosecond', async () => {
    const out = path.join(await tempDir(), 'public');
    const big = list(200);
    await writeOutput(
      out,
      new Map([
        ['company/index.json', big],
        ['_errors/not-found.json', '{"detail":"Not found."}'],
        ['_headers', 'x'.repeat(5000)],
      ]),
      undefined,
      {
        precompress: true,
      },
    );
    const answer = path.join(out, 'company/index.json');
    for (const extension of ['.br', '.gz']) {
      expect(await timeNs(`${answer}${extension}`)).toBe(await timeNs(answer));
    }
    expect(brotliDecompressSync(await readFile(`${answer}.br`)).toString()).toBe(big);
    expect(gunzipSync(await readFile(`${answer}.gz`)).toString()).toBe(big);
    await expect(stat(path.join(out, '_errors/not-found.json.br'))).rejects.toThrow();
    await expect(stat(path.join(out, '_headers.gz'))).rejects.toThrow();
  });

  it('writes none without the option', async () => {
    const out = path.join(await tempDir(), 'public');
    await writeOutput(out, new Map([['company/index.json', list(200)]]));
    await expect(stat(path.join(out, 'company/index.json.br'))).rejects.toThrow();
  });

  it('carries an unchanged answer’s siblings over (same inodes), and compresses only the changed answer', async () => {
    const out = path.join(await tempDir(), 'public');
    const files = new Map([
      ['company/index.json', list(200)],
      ['event/index.json', list(200, 'Event')],
    ]);
    await writeOutput(out, files, undefined, { precompress: true });
    const inode = async (file: string) => (await stat(path.join(out, file))).ino;
    const names = ['company/index.json', 'event/index.json'].flatMap((file) => [file, `${file}.br`, `${file}.gz`]);
    const before = new Map(await Promise.all(names.map(async (file) => [file, await inode(file)] as const)));
    const changed = list(200, 'Renamed event');
    await writeOutput(out, new Map([...files, ['event/index.json', changed]]), undefined, { precompress: true });
    for (const file of names.filter((name) => name.startsWith('company/'))) {
      expect(await inode(file), file).toBe(before.get(file));
    }
    for (const file of names.filter((name) => name.startsWith('event/'))) {
      expect(await inode(file), file).not.toBe(before.get(file));
    }
    const event = path.join(out, 'event/index.json');
    expect(brotliDecompressSync(await readFile(`${event}.br`)).toString()).toBe(changed);
    expect(await timeNs(`${event}.gz`)).toBe(await timeNs(event));
  });

  it('gives an unchanged answer a commit time and its siblings the same, without compressing again', async () => {
    const out = path.join(await tempDir(), 'public');
    const files = new Map([['company/index.json', list(200)]]);
    await writeOutput(out, files, undefined, { precompress: true });
    const time = 1_700_000_000;
    await writeOutput(
      out,
      files,
      Promise.resolve(() => time),
      { precompress: true },
    );
    const answer = path.join(out, 'company/index.json');
    for (const file of [answer, `${answer}.br`, `${answer}.gz`]) {
      expect((await stat(file)).mtimeMs, file).toBe(time * 1000);
    }
    expect(gunzipSync(await readFile(`${answer}.gz`)).toString()).toBe(files.get('company/index.json'));
  });
});

describe('writeSiblings (one file changed in place)', () => {
  it('writes the siblings with the file’s time, and removes them once the file is too small', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'company.json');
    const big = Buffer.from(list(200));
    await writeFile(file, big);
    await writeSiblings(dir, 'company.json', big);
    expect(brotliDecompressSync(await readFile(`${file}.br`)).equals(big)).toBe(true);
    expect(await timeNs(`${file}.gz`)).toBe(await timeNs(file));
    const small = Buffer.from('[]');
    await writeFile(file, small);
    await writeSiblings(dir, 'company.json', small);
    await expect(stat(`${file}.br`)).rejects.toThrow();
    await expect(stat(`${file}.gz`)).rejects.toThrow();
  });

  it('writes none for the records a query is read from, decided by the name in the output folder', async () => {
    const dir = await tempDir();
    const name = '_records/company/1.json';
    const big = Buffer.from(list(200));
    await mkdir(path.join(dir, '_records/company'), { recursive: true });
    await writeFile(path.join(dir, name), big);
    await writeSiblings(dir, name, big);
    await expect(stat(path.join(dir, `${name}.br`))).rejects.toThrow();
    await expect(stat(path.join(dir, `${name}.gz`))).rejects.toThrow();
  });
});

describe('chooseEncoding (the local server)', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['identity', undefined],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br', 'br'],
    ['gzip, br;q=0', 'gzip'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'],
    ['BR;Q=1', 'br'],
    ['*', 'br'],
    ['*;q=0', undefined],
    ['identity, gzip;q=0.5', undefined],
    ['gzip;q=0, br;q=0', undefined],
    ['deflate', undefined],
    ['gzip;q=bogus', undefined],
  ])('%j → %j', (header, expected) => {
    expect(chooseEncoding(header)).toBe(expected);
  });
});

describe('readSide of a built folder', () => {
  it('leaves the siblings out', async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, 'company'));
    await writeFile(path.join(dir, 'company/index.json'), '[]');
    await writeFile(path.join(dir, 'company/index.json.br'), 'x');
    await writeFile(path.join(dir, 'company/index.json.gz'), 'x');
    const side = await readSide(dir, dir);
    expect([...side.files.keys()]).toEqual(['company/index.json']);
  });
});
