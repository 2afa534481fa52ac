// A file's body held as text, bytes or pieces (shared/file-body.ts): the same bytes whichever way
// it is held and wherever its pieces are cut, and written whole by the live preview's writer.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bytesOf, type FileBody, Pieces, sameBody, sizeOf } from '../../scripts/shared/file-body.ts';
import { replaceFiles } from '../../scripts/shared/replace-files.ts';

const TEXT = '[{"id":1,"name":"Müller & Söhne"},{"id":2,"name":"東京 Booths"},{"id":3,"name":"Ørsted 🎪"}]';

/** `bytes` cut at `cuts` (offsets, any order), each piece a view or a copy by turns. */
function cutAt(bytes: Buffer, cuts: readonly number[]): Pieces {
  const ends = [...new Set([0, ...cuts, bytes.length])].sort((a, b) => a - b);
  return new Pieces(
    ends.slice(1).map((end, index) => {
      const piece = bytes.subarray(ends[index], end);
      return index % 2 === 0 ? piece : Uint8Array.from(piece);
    }),
  );
}

/** A small deterministic generator, so that a failing case is the same on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('a body in pieces', () => {
  const bytes = Buffer.from(TEXT);

  it('is the bytes of its pieces, in order, and their size', () => {
    const pieces = cutAt(bytes, [1, 17, 40]);
    expect(sizeOf(pieces)).toBe(bytes.length);
    expect(bytesOf(pieces).equals(bytes)).toBe(true);
    expect(bytesOf(new Pieces([])).length).toBe(0);
  });

  it('is the same body as its text and its bytes, wherever it is cut', () => {
    const next = random(7);
    for (let round = 0; round < 300; round++) {
      const cuts = Array.from({ length: Math.floor(next() * 12) }, () => Math.floor(next() * bytes.length));
      const pieces = cutAt(bytes, cuts);
      const others: FileBody[] = [
        TEXT,
        bytes,
        cutAt(
          bytes,
          cuts.map((cut) => (cut * 7) % bytes.length),
        ),
      ];
      for (const other of others) {
        expect(sameBody(pieces, other), `cut at ${cuts}`).toBe(true);
        expect(sameBody(other, pieces), `cut at ${cuts}`).toBe(true);
      }
    }
  });

  it('differs from a body of other bytes of the same size, and of another size', () => {
    const next = random(11);
    for (let round = 0; round < 300; round++) {
      const changed = Buffer.from(bytes);
      const at = Math.floor(next() * changed.length);
      changed[at] = (changed[at] as number) ^ 0x01;
      const cuts = Array.from({ length: 1 + Math.floor(next() * 8) }, () => Math.floor(next() * bytes.length));
      expect(sameBody(cutAt(bytes, cuts), cutAt(changed, cuts)), `byte ${at} changed`).toBe(false);
      expect(sameBody(cutAt(bytes, cuts), changed), `byte ${at} changed`).toBe(false);
      expect(sameBody(TEXT, cutAt(changed, cuts)), `byte ${at} changed`).toBe(false);
    }
    expect(sameBody(cutAt(bytes, [5]), bytes.subarray(1))).toBe(false);
    expect(sameBody(cutAt(bytes, [5]), undefined)).toBe(false);
  });

  it('passes over the pieces two bodies share, and still compares the ones they do not', () => {
    const record = Buffer.from('{"id":1}');
    const comma = Buffer.from(',');
    const list = (middle: Uint8Array) =>
      new Pieces([Buffer.from('['), record, comma, middle, comma, record, Buffer.from(']')]);
    expect(sameBody(list(Buffer.from('{"id":2}')), list(Buffer.from('{"id":2}')))).toBe(true);
    expect(sameBody(list(Buffer.from('{"id":2}')), list(Buffer.from('{"id":3}')))).toBe(false);
  });

  it('is written whole by the preview writer, in more pieces than one system call takes', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'file-body-'));
    try {
      // Linux's writev takes at most 1,024 pieces a call.
      const records = Array.from({ length: 5000 }, (_, index) =>
        Buffer.from(`{"id":${index},"name":"Ørsted ${index}"}`),
      );
      const pieces = [Buffer.from('[')];
      for (const [index, record] of records.entries())
        pieces.push(...(index > 0 ? [Buffer.from(','), record] : [record]));
      pieces.push(Buffer.from(']'));
      const body = new Pieces(pieces);
      await replaceFiles(dir, new Map([['company/index.json', body]]));
      const written = await readFile(path.join(dir, 'company/index.json'));
      expect(written.equals(bytesOf(body))).toBe(true);
      expect(JSON.parse(written.toString('utf8'))).toHaveLength(5000);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
