// Changes a folder that is being served, file by file: the live preview's writer. Each file is
// written beside its place and renamed over it, so a request opens the whole old file or the
// whole new one, never half of one; the files nobody changed keep their inode and time. A folder
// written whole, where every file changes at once, goes through write.ts instead.

import { close, open, writeFile as writeFileWithCallback, writev } from 'node:fs';
import { mkdir, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ENCODINGS, writeSiblings } from './compress.ts';
import { bytesOf, type FileBody, Pieces } from './file-body.ts';
import { mapLimited } from './map-limited.ts';

const WRITE_CONCURRENCY = 32;

// The callback API, promisified, for the reason write.ts gives.
const [openFile, writeFile, writePieces, closeFile] = [
  promisify(open),
  promisify(writeFileWithCallback),
  promisify(writev),
  promisify(close),
];

/** Writes `body` as the file `file`: pieces in one writev, not joined first. */
async function writeBody(file: string, body: FileBody): Promise<void> {
  if (!(body instanceof Pieces)) return writeFile(file, body);
  const descriptor = await openFile(file, 'w');
  try {
    await writePieces(descriptor, body.pieces);
  } finally {
    await closeFile(descriptor);
  }
}

export interface ReplaceOptions {
  /** Removes the precompressed siblings (compress.ts) of each file changed: writeSiblingsOf() writes them again. */
  precompress?: boolean;
}

/**
 * Puts `body` at `file` in `dir` in one rename, then removes the previous bytes' siblings. From the
 * rename on every answer is the new one: the local server sends no sibling whose time is not its
 * file's (compress.ts siblingOfFile). Removed first, they would leave an instant in which the old
 * file is there without them, and a client that knew them would be sent the old bytes again.
 */
async function replaceFile(dir: string, file: string, body: FileBody, options: ReplaceOptions): Promise<void> {
  const destination = path.join(dir, file);
  const partial = `${destination}.partial-${process.pid}`;
  await writeBody(partial, body);
  await rename(partial, destination);
  if (options.precompress) {
    await Promise.all(ENCODINGS.map(({ extension }) => rm(`${destination}${extension}`, { force: true })));
  }
}

/** Removes `file` from `dir`, its siblings, and the folders it leaves empty. */
async function removeFile(dir: string, file: string): Promise<void> {
  const destination = path.join(dir, file);
  await Promise.all(
    [destination, ...ENCODINGS.map(({ extension }) => `${destination}${extension}`)].map((name) =>
      rm(name, { force: true }),
    ),
  );
  for (let folder = path.dirname(file); folder !== '.'; folder = path.dirname(folder)) {
    const emptied = await rmdir(path.join(dir, folder)).then(
      () => true,
      () => false,
    );
    if (!emptied) return;
  }
}

/**
 * Applies `changes` (path → new text or bytes, or null to remove it) to the folder `dir`, which holds a
 * complete output. The removals come last, so that a folder they empty is not removed while a
 * file is being written into it.
 */
export async function replaceFiles(
  dir: string,
  changes: ReadonlyMap<string, FileBody | null>,
  options: ReplaceOptions = {},
): Promise<void> {
  const written = [...changes].filter((change): change is [string, FileBody] => change[1] !== null);
  const removed = [...changes].filter(([, text]) => text === null).map(([file]) => file);
  const folders = new Map<string, Promise<unknown>>();
  await mapLimited(written, WRITE_CONCURRENCY, async ([file, body]) => {
    const folder = path.dirname(path.join(dir, file));
    if (!folders.has(folder)) folders.set(folder, mkdir(folder, { recursive: true }));
    await folders.get(folder);
    await replaceFile(dir, file, body, options);
  });
  // One at a time: two removals emptying the same folder would race to remove it.
  for (const file of removed) await removeFile(dir, file);
}

/**
 * Writes the siblings of the files of `changes` that replaceFiles() wrote, those worth compressing
 * (compress.ts decides). Apart, and after: compressing a large answer takes a second of two
 * threads, which a server in the same process can first use to send the new answers.
 */
export async function writeSiblingsOf(dir: string, changes: ReadonlyMap<string, FileBody | null>): Promise<void> {
  const written = [...changes].filter((change): change is [string, FileBody] => change[1] !== null);
  await mapLimited(written, WRITE_CONCURRENCY, ([file, body]) => writeSiblings(dir, file, bytesOf(body)));
}
