// The precompressed siblings of an answer file: `<file>.br` and `<file>.gz` beside it, which
// nginx (gzip_static, brotli_static), Caddy (precompressed), Apache (mod_rewrite) and the local
// server send to a client that accepts them, so that no server compresses at request time.
//
// Deterministic: the same bytes always give the same siblings, with fixed parameters, a gzip
// header without a name or time and with one OS byte on every system (with the same Node: its
// zlib and brotli are the encoders). The parameters are chosen for the build's time, which
// compresses every answer once (write.ts compresses an answer again only when its bytes
// changed): brotli quality 6 and gzip level 6 compress the benchmark's 44 MB company list in
// about 0.7 s and 0.3 s of one core, to 8.1% and 8.5% of its size. Quality 11 would take some
// 70 times as long (3.7 s instead of 0.05 s for its 2 MB event list, for 8.1% instead of 10.9%),
// about a minute for that one list; level 9 takes one and a half to three times level 6's time
// for 2 to 5% fewer bytes. Both run in libuv's thread pool (node's asynchronous zlib), so they
// overlap the build's writes and each other.

import { lstat, rename, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { concurrencyLimit } from './map-limited.ts';

/**
 * Smaller answers are sent as they are. An answer under 4 KiB arrives within TCP's first round
 * trip compressed or not (the initial window is 10 segments, about 14 KB: RFC 6928), so its
 * siblings would save a couple of kilobytes and no time, and each costs a file: on the
 * benchmark catalogue the 6,000 texture pages of 2 to 3 KiB would add 12,000 files, which cost
 * a file system more than compressing every other answer, and more than doubled the first build.
 */
export const MIN_COMPRESSED_BYTES = 4096;

/**
 * The API's answers. Not `_headers` or `_redirects`, which no server sends, nor the documents beside
 * the API (the reference page), whose servers' rules do not name Accept-Encoding in Vary.
 */
const COMPRESSED_TYPES = /\.json$/;

/**
 * Files under these folders are read by the request handler's code, never sent as they are: the
 * records a query is answered from (`_records/`, store/format.ts) and the parts of a file too
 * large for one store (`_parts/`, respond/cloudflare-parts.ts). No target serves a sibling of them.
 */
const READ_BY_CODE = /^_(records|parts)\//;

/** Each sibling's `Content-Encoding` and file name ending, in the order a server prefers them. */
export const ENCODINGS = [
  { encoding: 'br', extension: '.br' },
  { encoding: 'gzip', extension: '.gz' },
] as const;

export type Encoding = (typeof ENCODINGS)[number]['encoding'];

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
/** The OS byte of the gzip header: zlib writes its own system's, 3 (Unix) on Linux and macOS. */
const GZIP_OS_BYTE = 9;
const GZIP_OS_UNIX = 3;

/** Whether `file` is a sibling (by its name): the review, the deploy copies and git leave them out. */
export function isSibling(file: string): boolean {
  return ENCODINGS.some(({ extension }) => file.endsWith(extension));
}

/**
 * Whether a sibling holds the compression of the file beside it now. Each sibling is written with
 * its file's modification time (to the millisecond: a time read back is in nanoseconds, and one
 * set from it may land a fraction of a microsecond away); a file replaced since has a later one.
 */
export function siblingOfFile(sibling: { mtimeMs: number }, file: { mtimeMs: number }): boolean {
  return Math.trunc(sibling.mtimeMs) === Math.trunc(file.mtimeMs);
}

/** Whether an answer file of this name and size gets siblings. */
export function worthCompressing(file: string, size: number): boolean {
  return size >= MIN_COMPRESSED_BYTES && COMPRESSED_TYPES.test(file) && !READ_BY_CODE.test(file);
}

/**
 * Compressions in flight at once, each on one of libuv's 4 threads: the others stay free for the
 * writes that the build runs meanwhile, which would otherwise wait behind a long compression.
 */
const gate = concurrencyLimit(2);
/**
 * zlib hands its output back to the main thread one chunk at a time, and resumes on the pool
 * only from there: 16 KiB chunks (the default) make a 44 MB list hundreds of round trips, each
 * waiting for the main thread. A chunk of an eighth of the input holds most outputs whole.
 */
const chunkSize = (bytes: Buffer) => Math.min(1 << 20, Math.max(zlib.constants.Z_DEFAULT_CHUNK, bytes.length >> 3));

/** The bytes of each sibling of `bytes`, by file name ending (`.br`, `.gz`). */
export async function siblingsOf(bytes: Buffer): Promise<Map<string, Buffer>> {
  const [br, gz] = await Promise.all([
    gate(() =>
      brotli(bytes, {
        chunkSize: chunkSize(bytes),
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: 6,
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        },
      }),
    ),
    gate(() =>
      gzip(bytes, {
        chunkSize: chunkSize(bytes),
        level: 6,
        memLevel: 8,
        windowBits: 15,
        strategy: zlib.constants.Z_DEFAULT_STRATEGY,
      }),
    ),
  ]);
  gz[GZIP_OS_BYTE] = GZIP_OS_UNIX;
  return new Map([
    ['.br', br],
    ['.gz', gz],
  ]);
}

/**
 * Writes the siblings of the output folder `dir`'s `name` (whose bytes are `bytes`) beside it,
 * each replacing its previous one in one rename, with the file's modification time; removes them
 * when the file is not worth compressing (any more), which its name in the folder decides. For a
 * writer that changes one file in place; a whole output goes through write.ts, which carries
 * unchanged siblings over.
 */
export async function writeSiblings(dir: string, name: string, bytes: Buffer): Promise<void> {
  const file = path.join(dir, name);
  if (!worthCompressing(name, bytes.length)) {
    await Promise.all(ENCODINGS.map(({ extension }) => rm(`${file}${extension}`, { force: true })));
    return;
  }
  // Set on the file too, by the same value: a time read back is in nanoseconds, and one set from
  // it may land a fraction of a microsecond away.
  const time = (await lstat(file)).mtimeMs / 1000;
  await utimes(file, time, time);
  const siblings = await siblingsOf(bytes);
  await Promise.all(
    [...siblings].map(async ([extension, compressed]) => {
      const partial = `${file}${extension}.partial-${process.pid}`;
      await writeFile(partial, compressed);
      await utimes(partial, time, time);
      await rename(partial, `${file}${extension}`);
    }),
  );
}
