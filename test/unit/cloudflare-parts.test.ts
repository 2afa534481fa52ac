// A file too large for Cloudflare's static assets, as the build writes it (targets/cloudflare/
// assets.ts) and as the worker sends it (respond/cloudflare-worker.ts), in-process: the parts
// split at characters and join to the exact bytes; `.assetsignore` leaves the whole file out of
// the upload; and the worker streams the parts one after another, fetching a part only once the
// one before it has been read, so it never holds more than one. The same worker under workerd,
// on a catalogue past 25 MiB, is cloudflare-parts-workerd.test.ts.

import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parseHeadersFile } from '../../scripts/contract/headers.ts';
import { manifestFile, PART_BYTES, parseManifest, partFile } from '../../scripts/respond/cloudflare-parts.ts';
import { createWorker, type Env } from '../../scripts/respond/cloudflare-worker.ts';
import { bytesOf, type FileBody, sizeOf } from '../../scripts/shared/file-body.ts';
import { writeOutput } from '../../scripts/shared/write.ts';
import {
  ASSETS_IGNORE_FILE,
  assetFiles,
  MAX_ASSET_BYTES,
  uploadedFiles,
} from '../../scripts/targets/cloudflare/assets.ts';
import { API, declares, missingList } from '../fixtures/sample.ts';

const ORIGIN = 'https://api.example.com';
const { rules } = parseHeadersFile('/*\n  Vary: Accept\n  Content-Type: application/json\n');

/** A JSON text of about `bytes` UTF-8 bytes, with characters of 1 to 4 bytes throughout. */
function bigList(bytes: number): string {
  const record = (id: number) => `{"id":${id},"name":"Großkopf Präzision 株式会社 😀 ${'x'.repeat(id % 7)}"}`;
  const records: string[] = [];
  let size = 2;
  for (let id = 1; size < bytes; id++) {
    const text = record(id);
    records.push(text);
    size += Buffer.byteLength(text) + 1;
  }
  return `[${records.join(',')}]`;
}

/** A file's text: parts are bytes (views of one encoding), the other files text. */
const textOf = (body: FileBody | undefined) => (body === undefined ? '' : bytesOf(body).toString('utf8'));

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe('a part boundary', () => {
  const partsOf = (text: string) => {
    const files = assetFiles(new Map([['company/index.json', text]]));
    const { parts } = parseManifest(files.get(manifestFile('company/index.json')) as string);
    return parts.map((_, index) => bytesOf(files.get(partFile('company/index.json', index + 1)) as FileBody));
  };
  const starts = (part: Buffer | undefined, text: string) => part?.subarray(0, 4).toString().startsWith(text);
  const ends = (part: Buffer | undefined, text: string) => part?.subarray(-4).toString().endsWith(text);
  const tail = 'a'.repeat(MAX_ASSET_BYTES);

  it('never splits a surrogate pair, and leaves out no character that fits', () => {
    // The pair's four bytes would end 1 byte past the part (its first unit alone, as U+FFFD,
    // would fit); the 3-byte character ends on it.
    const pairs = partsOf(`${'a'.repeat(PART_BYTES - 3)}😀${tail}`);
    expect(pairs.map((part) => part.length).slice(0, 1)).toEqual([PART_BYTES - 3]);
    expect(starts(pairs[1], '😀')).toBe(true);
    const threes = partsOf(`${'a'.repeat(PART_BYTES - 3)}東${tail}`);
    expect(threes.map((part) => part.length).slice(0, 1)).toEqual([PART_BYTES]);
    expect(ends(threes[0], '東')).toBe(true);
  });
});

describe('the parts the build writes', () => {
  const list = bigList(MAX_ASSET_BYTES + 5 * 1024 * 1024);
  const output = new Map([
    ['company/index.json', list],
    ['event/index.json', '[]'],
  ]);
  const files = assetFiles(output);

  it('are whole characters, each at most PART_BYTES, joining to the exact bytes; the manifest adds up', () => {
    const manifest = parseManifest(files.get(manifestFile('company/index.json')) as string);
    const parts = manifest.parts.map((_, index) => textOf(files.get(partFile('company/index.json', index + 1))));
    expect(parts.length).toBe(Math.ceil(Buffer.byteLength(list) / PART_BYTES));
    for (const part of parts) {
      expect(Buffer.byteLength(part)).toBeLessThanOrEqual(PART_BYTES);
      // A split character would not survive the round trip through a string.
      expect(part).not.toContain('\uFFFD');
    }
    const joined = Buffer.concat(parts.map((part) => Buffer.from(part, 'utf8')));
    expect(joined.equals(Buffer.from(list, 'utf8'))).toBe(true);
    expect(manifest).toEqual({
      bytes: Buffer.byteLength(list),
      sha256: sha256(list),
      parts: parts.map((part) => Buffer.byteLength(part)),
    });
    // Only the file over the limit.
    expect([...files.keys()].filter((file) => file.includes('event'))).toEqual([]);
  });

  it('are views of one encoding of the file, which takes the place of its text and is written whole', async () => {
    const parts = parseManifest(files.get(manifestFile('company/index.json')) as string).parts.map(
      (_, index) => files.get(partFile('company/index.json', index + 1)) as Uint8Array,
    );
    const whole = files.get('company/index.json') as Uint8Array;
    expect(whole).toBeInstanceOf(Uint8Array);
    expect(new Set([whole, ...parts].map((bytes) => bytes.buffer)).size).toBe(1);
    const out = path.join(await mkdtemp(path.join(os.tmpdir(), 'cloudflare-parts-')), 'public');
    try {
      await writeOutput(out, new Map([...output, ...files]));
      expect((await readFile(path.join(out, 'company/index.json'))).equals(Buffer.from(list, 'utf8'))).toBe(true);
    } finally {
      await rm(path.dirname(out), { recursive: true, force: true });
    }
  });

  it('are the same bytes at every build', () => {
    // Compared as digests: a deep comparison of 30 MB of bytes takes the test runner minutes.
    const digests = (made: Map<string, FileBody>) => [...made].map(([file, body]) => [file, sha256(bytesOf(body))]);
    expect(digests(assetFiles(new Map([...output].reverse())))).toEqual(digests(files));
  });

  it('and `.assetsignore` leave the whole file out of the upload, and precompressed copies', () => {
    expect(
      textOf(files.get(ASSETS_IGNORE_FILE))
        .split('\n')
        .filter((line) => !line.startsWith('#')),
    ).toEqual(['/company/index.json', '*.br', '*.gz', '']);
    const extra: [string, string][] = [
      ['company/index.json.br', 'x'],
      ['_headers', 'x'],
    ];
    const sizes = new Map([...output, ...files, ...extra].map(([file, body]) => [file, sizeOf(body)]));
    const code = uploadedFiles(sizes, 'code');
    expect([...code.keys()].sort()).toEqual(
      [
        'event/index.json',
        manifestFile('company/index.json'),
        partFile('company/index.json', 1),
        partFile('company/index.json', 2),
      ].sort(),
    );
    expect(Math.max(...code.values())).toBeLessThanOrEqual(PART_BYTES);
    // The static target has no code to join parts: it would upload the whole file.
    expect([...uploadedFiles(sizes, 'static').keys()].sort()).toEqual(['company/index.json', 'event/index.json']);
  });

  it('a build with no file over the limit writes `.assetsignore` only', () => {
    expect([...assetFiles(new Map([['company/index.json', '[]']])).keys()]).toEqual([ASSETS_IGNORE_FILE]);
  });
});

/** Cloudflare's asset binding over a map of files, recording each fetch and each body read to its end. */
function recordingAssets(files: ReadonlyMap<string, string>, events: string[]): Env['ASSETS'] {
  return {
    async fetch(input) {
      const file = new URL(input instanceof Request ? input.url : input).pathname.slice(1);
      events.push(`fetch ${file}`);
      const text = files.get(file);
      if (text === undefined) return new Response(null, { status: 404 });
      const bytes = Buffer.from(text, 'utf8');
      let offset = 0;
      // Small chunks, as a file is read from disk: the worker's reading is then visible.
      const body = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            if (offset >= bytes.length) {
              events.push(`end ${file}`);
              return controller.close();
            }
            controller.enqueue(new Uint8Array(bytes.subarray(offset, offset + 65_536)));
            offset += 65_536;
          },
        },
        { highWaterMark: 0 },
      );
      const headers = {
        'Content-Type': 'application/json',
        'Content-Length': String(bytes.length),
        ETag: `"${sha256(bytes)}"`,
      };
      return new Response(body, { headers });
    },
  };
}

/** A list in three parts of a few bytes, as the build would write it with a smaller PART_BYTES. */
function inParts(file: string, text: string, cuts: number[]): Map<string, string> {
  const bytes = Buffer.from(text, 'utf8');
  const bounds = [0, ...cuts, bytes.length];
  const parts = bounds.slice(1).map((end, index) => bytes.toString('utf8', bounds[index], end));
  const manifest = { bytes: bytes.length, sha256: sha256(bytes), parts: parts.map((part) => Buffer.byteLength(part)) };
  return new Map([
    [manifestFile(file), JSON.stringify(manifest)],
    ...parts.map((part, index): [string, string] => [partFile(file, index + 1), part]),
  ]);
}

describe('the worker sends a file in parts', () => {
  const events = [
    {
      id: 2,
      name: 'Zürich Präzision',
      slug: 'b',
      short_code: null,
      start_date: '2024-01-02',
      end_date: '2024-01-03',
      logo: null,
      logo_bg_color: null,
    },
    {
      id: 1,
      name: 'Ärzte',
      slug: 'a',
      short_code: 'A1',
      start_date: '2023-01-02',
      end_date: '2023-01-03',
      logo: null,
      logo_bg_color: null,
    },
    {
      id: 3,
      name: 'Aachen',
      slug: 'c',
      short_code: null,
      start_date: '2025-01-02',
      end_date: '2025-01-03',
      logo: null,
      logo_bg_color: null,
    },
  ];
  const eventList = JSON.stringify(events);
  const company = `[${Array.from({ length: 40_000 }, (_, id) => `{"id":${id},"name":"Müller ${id}"}`).join(',')}]`;
  const files = new Map([
    ...inParts('event/index.json', eventList, [40, 200]),
    ...inParts('company/index.json', company, [300_000, 600_000]),
  ]);
  const worker = createWorker(rules, API);

  it('as the exact bytes, with the whole file’s sha256 as ETag; a part is fetched only when the one before was read', async () => {
    const log: string[] = [];
    const answer = await worker.fetch(new Request(`${ORIGIN}/company/`), { ASSETS: recordingAssets(files, log) });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('ETag')).toBe(`"${sha256(company)}"`);
    expect(answer.headers.get('Content-Type')).toBe('application/json');
    // Before the answer's body is read, the first part is opened and nothing more.
    const manifest = manifestFile('company/index.json');
    await new Promise((done) => setTimeout(done, 20));
    expect(log).toEqual([
      'fetch company/index.json',
      `fetch ${manifest}`,
      `end ${manifest}`,
      `fetch ${partFile('company/index.json', 1)}`,
    ]);
    const body = Buffer.from(await answer.arrayBuffer());
    expect(sha256(body)).toBe(sha256(company));
    const parts = [1, 2, 3].map((n) => partFile('company/index.json', n));
    expect(log.slice(3)).toEqual(parts.flatMap((part) => [`fetch ${part}`, `end ${part}`]));
  });

  it('holds one chunk at a time: a slow reader gets each chunk before the next is read', async () => {
    const log: string[] = [];
    const answer = await worker.fetch(new Request(`${ORIGIN}/company/`), { ASSETS: recordingAssets(files, log) });
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await new Promise((done) => setTimeout(done, 20));
    // One part open, and its end not reached although the reader paused.
    expect(log.slice(3)).toEqual([`fetch ${partFile('company/index.json', 1)}`]);
    await reader.cancel();
  });

  it('answers 304 and HEAD from the manifest alone, with the same ETag', async () => {
    const log: string[] = [];
    const env = { ASSETS: recordingAssets(files, log) };
    const etag = `"${sha256(company)}"`;
    const revalidated = await worker.fetch(
      new Request(`${ORIGIN}/company/`, { headers: { 'If-None-Match': etag } }),
      env,
    );
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('ETag')).toBe(etag);
    const head = await worker.fetch(new Request(`${ORIGIN}/company/`, { method: 'HEAD' }), env);
    expect(head.status).toBe(200);
    expect(head.headers.get('ETag')).toBe(etag);
    expect(await head.text()).toBe('');
    expect(log.filter((line) => /\.json\.\d+$/.test(line))).toEqual([]);
  });

  it('sorts an ordering by several fields from the joined parts as from the whole file', async () => {
    const target = `${ORIGIN}/event/?ordering=name,-id`;
    const fromParts = await worker.fetch(new Request(target), { ASSETS: recordingAssets(files, []) });
    const whole = new Map([['event/index.json', eventList]]);
    const fromWhole = await worker.fetch(new Request(target), { ASSETS: recordingAssets(whole, []) });
    expect(fromParts.status).toBe(200);
    const body = await fromParts.text();
    expect(body).toBe(await fromWhole.text());
    expect(body).not.toBe(eventList);
  });

  it('answers a single range from the parts it spans, against the manifest’s length, and fetches none after it', async () => {
    const log: string[] = [];
    const env = { ASSETS: recordingAssets(files, log) };
    const bytes = Buffer.from(company, 'utf8');
    // Across the first boundary (300,000): the end of part 1 and the start of part 2.
    const ranged = new Request(`${ORIGIN}/company/`, { headers: { Range: 'bytes=299990-300009' } });
    const answer = await worker.fetch(ranged, env);
    expect([answer.status, answer.headers.get('Content-Range')]).toEqual([206, `bytes 299990-300009/${bytes.length}`]);
    expect(Buffer.from(await answer.arrayBuffer())).toEqual(bytes.subarray(299_990, 300_010));
    expect(log.some((line) => line.endsWith(partFile('company/index.json', 3)))).toBe(false);
    const past = new Request(`${ORIGIN}/company/`, { headers: { Range: `bytes=${bytes.length}-` } });
    const refused = await worker.fetch(past, env);
    expect([refused.status, refused.headers.get('Content-Range'), await refused.text()]).toEqual([
      416,
      `bytes */${bytes.length}`,
      '',
    ]);
  });

  it('answers 404 for a file the build has neither whole nor in parts (a page beyond the last)', async ({ skip }) => {
    skip(!declares('virtualbooth-texture'), missingList('virtualbooth-texture'));
    const answer = await worker.fetch(new Request(`${ORIGIN}/virtualbooth-texture/?page=99`), {
      ASSETS: recordingAssets(files, []),
    });
    expect(answer.status).toBe(404);
    expect(await answer.text()).toBe('{"detail":"Invalid page."}');
  });

  it('cuts the answer short, never sends wrong bytes whole, when a part is not the manifest’s size', async () => {
    const broken = new Map(files);
    broken.set(partFile('company/index.json', 2), 'short');
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const answer = await worker.fetch(new Request(`${ORIGIN}/company/`), { ASSETS: recordingAssets(broken, []) });
      await expect(answer.arrayBuffer()).rejects.toThrow(
        `${partFile('company/index.json', 2)} has 5 bytes, not the manifest's`,
      );
      expect(String(logged.mock.calls[0]?.[0])).toContain('sending company/index.json from its parts');
    } finally {
      logged.mockRestore();
    }
  });
});
