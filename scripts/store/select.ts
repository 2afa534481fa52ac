// The answer to a list filtered, searched or ordered at request time, read from the records the
// build wrote (format.ts) through the files of whichever runtime answers: the handler's file
// store, so no Node API is used here and the Cloudflare worker and the Netlify functions run it.

import { answerPage, type ListQuery } from '../contract/query.ts';
import type { Routed } from '../contract/routes.ts';
import { mapLimited } from '../shared/map-limited.ts';
import { answerBody, type ChunkedBody, type HeldRecords } from './body.ts';
import {
  partStarts,
  type RecordsManifest,
  recordStarts,
  recordsColumnFile,
  recordsManifestFile,
  recordsPartFile,
} from './format.ts';
import { type ColumnChunk, queryColumns, selectedPositions } from './positions.ts';

/** A file of the build as the store reads it (the handler's opened files are such). */
export interface StoredFile {
  text(): Promise<string>;
  /** Its bytes, where the files are read without decoding them (else text()'s, encoded). */
  bytes?(): Promise<Uint8Array>;
}

/** How the store reaches the build's files (the handler's file stores are such). */
export interface BuildFiles {
  /** The file at this path of the build output, or null when the build has none. */
  open(file: string): Promise<StoredFile | null>;
}

const UTF8 = new TextEncoder();

/** The text of a file the build must hold: its absence is a bug of the build. */
export async function requiredText(files: BuildFiles, file: string): Promise<string> {
  const opened = await files.open(file);
  if (opened === null) throw new Error(`the build has no ${file}`);
  return opened.text();
}

/** The bytes of a file the build must hold. */
async function requiredBytes(files: BuildFiles, file: string): Promise<Uint8Array> {
  const opened = await files.open(file);
  if (opened === null) throw new Error(`the build has no ${file}`);
  return opened.bytes ? opened.bytes() : UTF8.encode(await opened.text());
}

/**
 * How many of a list's files an answer reads at once: files fetched one by one (the worker's
 * asset binding) are waited for one at a time otherwise; a worker may hold six connections open.
 */
const READS_AT_ONCE = 4;

/**
 * The records `wanted` (positions in the parts' order), where their bytes are held. Only the parts
 * that hold one are read; a part most of whose records the answer shows is kept as read, and of
 * any other only those records are kept, copied out, so what is held is never more than twice the
 * answer.
 */
async function heldRecords(
  files: BuildFiles,
  resource: string,
  partRecords: readonly number[],
  wanted: Int32Array,
): Promise<HeldRecords> {
  const starts = partStarts(partRecords);
  const part = new Int32Array(wanted.length);
  // How many of the answer's records each part holds, then the answer's records grouped by part
  // (a counting sort, each part's in the answer's order).
  const firstOf = new Int32Array(partRecords.length + 1);
  for (let at = 0; at < wanted.length; at++) {
    const position = wanted[at] as number;
    // The last part that starts at or before the position (binary search).
    let low = 0;
    let high = partRecords.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] as number) <= position) low = middle;
      else high = middle - 1;
    }
    part[at] = low;
    firstOf[low + 1] = (firstOf[low + 1] as number) + 1;
  }
  for (let index = 0; index < partRecords.length; index++)
    firstOf[index + 1] = (firstOf[index + 1] as number) + (firstOf[index] as number);
  const grouped = new Int32Array(wanted.length);
  const next = firstOf.slice(0, partRecords.length);
  for (let at = 0; at < wanted.length; at++) {
    const index = part[at] as number;
    const slot = next[index] as number;
    grouped[slot] = at;
    next[index] = slot + 1;
  }
  const held = new Array<Uint8Array>(partRecords.length);
  const from = new Int32Array(wanted.length);
  const to = new Int32Array(wanted.length);
  const needed = partRecords.flatMap((_, index) => (firstOf[index] === firstOf[index + 1] ? [] : [index]));
  await mapLimited(needed, READS_AT_ONCE, async (index) => {
    const first = firstOf[index] as number;
    const end = firstOf[index + 1] as number;
    const read = await requiredBytes(files, recordsPartFile(resource, index + 1));
    // Scanned as the files give it: a Node Buffer finds a byte natively, several times faster.
    const recordAt = recordStarts(read);
    const bytes = new Uint8Array(read.buffer, read.byteOffset, read.byteLength);
    const base = starts[index] as number;
    // Record `i` of the part is from recordAt[i] to before its `,` or `]` and line feed.
    for (let group = first; group < end; group++) {
      const at = grouped[group] as number;
      const record = (wanted[at] as number) - base;
      from[at] = recordAt[record] as number;
      to[at] = (recordAt[record + 1] as number) - 2;
    }
    if ((end - first) * 2 >= (partRecords[index] as number)) {
      held[index] = bytes;
      return;
    }
    let size = 0;
    for (let group = first; group < end; group++) {
      const at = grouped[group] as number;
      size += (to[at] as number) - (from[at] as number);
    }
    const kept = new Uint8Array(size);
    let offset = 0;
    for (let group = first; group < end; group++) {
      const at = grouped[group] as number;
      const length = (to[at] as number) - (from[at] as number);
      kept.set(bytes.subarray(from[at], to[at]), offset);
      from[at] = offset;
      offset += length;
      to[at] = offset;
    }
    held[index] = kept;
  });
  return { held, part, from, to };
}

/**
 * The body of the answer to `query` (one without errors: those are django-filter's 400), or null
 * for a page the selection does not have (404 Invalid page). The records are selected and ordered
 * from the columns the query needs, then only the parts that hold a record of the answer are read,
 * each kept only for its records' texts; no record is parsed, so a large list is never held as
 * objects.
 */
export async function select(
  files: BuildFiles,
  resource: Pick<Routed, 'name' | 'path' | 'paginated' | 'query'>,
  query: ListQuery,
): Promise<ChunkedBody | null> {
  const manifest = JSON.parse(await requiredText(files, recordsManifestFile(resource.name))) as RecordsManifest;
  const settings = resource.query ?? manifest.query;
  const wantedColumns = queryColumns(query, settings);
  const chunksOf = wantedColumns.flatMap((column) =>
    (manifest.columns[column] ?? []).map((lines, index) => ({ column, index, lines })),
  );
  const texts = await mapLimited(chunksOf, READS_AT_ONCE, ({ column, index }) =>
    requiredText(files, recordsColumnFile(resource.name, column, index + 1)),
  );
  // Every column, a list without records' included (no chunk).
  const columns = new Map(wantedColumns.map((column) => [column, [] as ColumnChunk[]]));
  for (const [at, { column, lines }] of chunksOf.entries())
    columns.get(column)?.push({ text: texts[at] as string, lines });
  const positions = selectedPositions(query, settings, manifest.count, columns);
  columns.clear();
  const page = answerPage(query, positions.length, resource, manifest);
  if (page === null) return null;
  const records = await heldRecords(
    files,
    resource.name,
    manifest.partRecords,
    positions.subarray(page.start, page.end),
  );
  return answerBody(UTF8.encode(page.before), records, UTF8.encode(page.after));
}
