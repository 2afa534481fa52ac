// Stage 4: write the rendered files. Everything goes to a fresh folder beside the output, which
// replaces the output only once complete (swap.ts): a failed build leaves the previous one as it
// was, and a killed one leaves nothing the next build does not repair or remove.
//
// A file whose bytes are those of the same path in the current output is not written but carried
// over as a hard link to that file: it keeps its inode and modification time, which nginx, Caddy
// and Apache make their ETag and Last-Modified of, and which rsync compares; so a build that
// changed one record changes the validators of the answers holding it and no others. Where the
// output is committed, a file holding HEAD's bytes has the time of its last commit instead
// (commit-times.ts), so that builds in other clones give it the same validators.
//
// An answer's precompressed siblings (compress.ts) get its modification time, and are carried
// over with it: compressed again only when its bytes changed.

import {
  link as linkWithCallback,
  lstat as lstatWithCallback,
  readFile as readFileWithCallback,
  writeFile as writeFileWithCallback,
} from 'node:fs';
import { mkdir, rename, rm, stat, unlink, utimes } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { type CommitTime, readCommitTimes } from './commit-times.ts';
import { ENCODINGS, siblingOfFile, siblingsOf, worthCompressing } from './compress.ts';
import { errnoText, UserFacingError } from './errors.ts';
import { exchangeFolders } from './exchange.ts';
import { bytesOf, type FileBody } from './file-body.ts';
import { mapLimited } from './map-limited.ts';
import { recoverOutput, siblingPath, swapStamp } from './swap.ts';

const WRITE_CONCURRENCY = 32;
// The callback API, promisified: fs/promises' writeFile opens a FileHandle for each file, which
// costs about twice the CPU time per file.
const writeFile = promisify(writeFileWithCallback);
const readFile = promisify(readFileWithCallback);
const lstat = promisify(lstatWithCallback);
const link = promisify(linkWithCallback);

/** A write of the output that failed for a reason of the file system: one line for the user. */
export class OutputError extends UserFacingError {
  constructor(
    /** The output folder being written. */
    readonly output: string,
    /** The path the file system refused, named as it would be in the output. */
    readonly file: string,
    readonly code: string,
    options?: ErrorOptions,
  ) {
    const words = file === output && code === 'EEXIST' ? 'it is a file, not a folder' : errnoText(code);
    super(`cannot write ${file}: ${words ?? 'the file system refused'} (${code})`, options);
  }
}

/** A file system error as an OutputError naming the output's path rather than the staging one. */
function asOutputError(error: unknown, output: string, staging: string): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (error instanceof OutputError || typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) return error;
  const where = (error as NodeJS.ErrnoException).path ?? output;
  const named = where.startsWith(staging) ? output + where.slice(staging.length) : where;
  return new OutputError(output, named.startsWith(`${output}.`) ? output : named, code, { cause: error });
}

/**
 * Creates `destination`, never opening a file that is already there: that may be a hard link to
 * a file of the output still being served, which must not change under it. Two paths that name
 * one file (a case-insensitive file system) leave one of their texts, as writing over it did.
 */
async function createFile(destination: string, bytes: Buffer): Promise<void> {
  for (;;) {
    try {
      return await writeFile(destination, bytes, { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // A folder there fails here (EISDIR, EPERM), as writing over it always did.
    await unlink(destination).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}

/**
 * Puts `bytes` at `destination` in the staging folder: as a hard link to `previous`, the same
 * path in the current output, when it holds the same bytes; otherwise, or where the file system
 * refuses the link (no hard links, EXDEV, EPERM), as a new file, which only costs the file its
 * modification time. `time` (s), when given, is the time the file is to have (commit-times.ts):
 * a previous file with another time is not linked (its time cannot change under a server), and
 * a new file gets it unless it would not be newer than the other bytes it replaces.
 */
async function placeFile(
  destination: string,
  previous: string | undefined,
  bytes: Buffer,
  time: number | undefined,
): Promise<Placed> {
  const stats = previous === undefined ? undefined : await lstat(previous).catch(() => undefined);
  // Read only when the sizes match.
  const same =
    previous !== undefined &&
    stats?.isFile() === true &&
    stats.size === bytes.length &&
    ((await readFile(previous).catch(() => undefined))?.equals(bytes) ?? false);
  if (same && (time === undefined || stats.mtimeMs === time * 1000)) {
    const linked = await link(previous, destination).then(
      () => true,
      () => false,
    );
    if (linked) return { linked, previousTime: stats.mtimeMs };
  }
  await createFile(destination, bytes);
  if (time !== undefined && (same || !stats?.isFile() || time * 1000 > stats.mtimeMs)) {
    await utimes(destination, time, time);
  }
  return { linked: false, previousTime: same ? stats.mtimeMs : undefined };
}

/** How placeFile put a file: linked to the previous one, and that file's time when its bytes were the same. */
interface Placed {
  linked: boolean;
  previousTime: number | undefined;
}

/**
 * Puts the siblings of the file just placed at `destination` (compress.ts) beside it, with its
 * modification time. A previous sibling written with the previous file (the same time, to the
 * millisecond) holds the compression of the same bytes when those bytes did not change: it is
 * linked when the file was, copied with the new time when only the time changed, and compressed
 * again only when the bytes changed or it is missing.
 */
async function placeSiblings(
  destination: string,
  previous: string | undefined,
  bytes: Buffer,
  placed: Placed,
): Promise<void> {
  // One time for the file and its siblings, set by the same call: a time read back is in
  // nanoseconds, and one set from it may land a fraction of a microsecond away. A linked file
  // keeps its time (it is still served from the current output).
  const time = (await lstat(destination)).mtimeMs / 1000;
  if (!placed.linked) await utimes(destination, time, time);
  const reusable = async (extension: string) => {
    if (previous === undefined || placed.previousTime === undefined) return undefined;
    const stats = await lstat(`${previous}${extension}`).catch(() => undefined);
    const sameVersion = stats?.isFile() && siblingOfFile(stats, { mtimeMs: placed.previousTime });
    return sameVersion ? `${previous}${extension}` : undefined;
  };
  let compressed: Promise<Map<string, Buffer>> | undefined;
  const compressOnce = () => {
    compressed ??= siblingsOf(bytes);
    return compressed;
  };
  await Promise.all(
    ENCODINGS.map(async ({ extension }) => {
      const sibling = `${destination}${extension}`;
      const kept = await reusable(extension);
      if (kept !== undefined && placed.linked) {
        const linked = await link(kept, sibling).then(
          () => true,
          () => false,
        );
        if (linked) return;
      }
      const keptBytes = kept === undefined ? undefined : await readFile(kept).catch(() => undefined);
      await createFile(sibling, keptBytes ?? ((await compressOnce()).get(extension) as Buffer));
      await utimes(sibling, time, time);
    }),
  );
}

/**
 * For the kill test only: with STATIC_API_PAUSE_AT=<step>[:<folder name>], the write prints
 * `paused at <step> <output>` on stderr at that step and waits forever, so a test can kill it
 * there. Steps: recovered, partial, written, swapped, and between the last two, where the
 * folders are swapped by renames (STATIC_API_SWAP=renames forces it), marked-new and moved-old.
 */
async function pausePoint(step: string, output: string): Promise<void> {
  const wanted = process.env.STATIC_API_PAUSE_AT;
  if (!wanted) return;
  const [wantedStep, wantedName] = wanted.split(':');
  if (wantedStep !== step || (wantedName && wantedName !== path.basename(output))) return;
  process.stderr.write(`paused at ${step} ${output}\n`);
  await new Promise(() => setInterval(() => {}, 60_000));
}

interface WriteOptions {
  /** Writes each answer's precompressed siblings beside it (compress.ts); none when absent. */
  precompress?: boolean;
}

/**
 * Writes `files` (path → text or bytes) as the new content of `outDir`. `commitTimes` are the files'
 * commit times (commit-times.ts), read for `outDir` unless the caller read them for a folder
 * holding it: one history walk then serves every target's folder of a build.
 */
export async function writeOutput(
  outDir: string,
  files: ReadonlyMap<string, FileBody>,
  commitTimes: Promise<CommitTime | undefined> = readCommitTimes(path.resolve(outDir)),
  options: WriteOptions = {},
): Promise<void> {
  const output = path.resolve(outDir);
  const stamp = swapStamp();
  const staging = siblingPath(output, 'tmp', stamp);
  const complete = siblingPath(output, 'new', stamp);
  const previous = siblingPath(output, 'old', stamp);
  let swapped = false;
  try {
    await recoverOutput(output);
    const existing = await stat(output).catch(() => undefined);
    if (existing && !existing.isDirectory()) {
      throw new OutputError(output, output, existing.isFile() ? 'EEXIST' : 'ENOTDIR');
    }
    await pausePoint('recovered', output);
    await mkdir(path.dirname(output), { recursive: true });
    // Not recursive: a recursive mkdir reports a read-only file system as ENOENT.
    await mkdir(staging);
    const commitTime = await commitTimes;
    const dirs = new Map<string, Promise<unknown>>();
    let written = 0;
    const half = Math.floor(files.size / 2);
    await mapLimited([...files], WRITE_CONCURRENCY, async ([file, body]) => {
      const destination = path.join(staging, file);
      const dir = path.dirname(destination);
      if (!dirs.has(dir)) dirs.set(dir, mkdir(dir, { recursive: true }));
      await dirs.get(dir);
      const bytes = bytesOf(body);
      const previousFile = existing && path.join(output, file);
      const placed = await placeFile(destination, previousFile, bytes, commitTime?.(file, bytes));
      if (options.precompress && worthCompressing(file, bytes.length)) {
        await placeSiblings(destination, previousFile, bytes, placed);
      }
      written += 1;
      if (written === half) await pausePoint('partial', output);
    });
    await pausePoint('written', output);
    if (existing && (await exchangeFolders(staging, output))) {
      // One atomic step: the output is now the new folder, and the staging path holds the
      // previous output, which the finally below removes (a killed build leaves it as a .tmp-
      // folder, which the next build removes and never restores).
      swapped = true;
      await pausePoint('swapped', output);
      return;
    }
    // Where folders cannot be exchanged (exchange.ts), three renames, each atomic (swap.ts).
    // Complete: from here on the next build may restore this folder.
    await rename(staging, complete);
    await pausePoint('marked-new', output);
    const hadPrevious = await rename(output, previous).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return false;
        throw error;
      },
    );
    await pausePoint('moved-old', output);
    try {
      await rename(complete, output);
      swapped = true;
    } catch (error) {
      if (hadPrevious) await rename(previous, output);
      throw error;
    }
    await pausePoint('swapped', output);
    if (hadPrevious) await rm(previous, { recursive: true, force: true });
  } catch (error) {
    throw asOutputError(error, output, staging);
  } finally {
    await rm(staging, { recursive: true, force: true }).catch(() => {});
    if (!swapped) await rm(complete, { recursive: true, force: true }).catch(() => {});
  }
}
