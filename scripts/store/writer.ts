// The build's side of the store: a list's records, as the list writes them, into the files of
// format.ts, in parts small enough that an answer reads one part at a time (a Cloudflare worker
// has 128 MB for a list of any size), the columns it selects and orders them by without parsing
// one, and the manifest with what the answer needs besides them. Run by the build only (Node).

import { encodePlain } from '../contract/json.ts';
import { type Comparable, fieldValue, sortRecords } from '../contract/ordering.ts';
import type { QuerySettings } from '../contract/query.ts';
import { searchText } from '../contract/search.ts';
import {
  COLUMN_BYTES,
  columnText,
  PART_BYTES,
  partText,
  RECORDS_PER_PART,
  type RecordsManifest,
  recordsColumnFile,
  recordsColumns,
  recordsManifestFile,
  recordsPartFile,
} from './format.ts';

/**
 * Texts in parts of at most `records` texts and `bytes` bytes (a longer text alone): the records'
 * parts (RECORDS_PER_PART, PART_BYTES) and the columns' chunks (COLUMN_BYTES).
 */
export function splitParts(
  texts: readonly string[],
  records: number = RECORDS_PER_PART,
  bytes: number = PART_BYTES,
): string[][] {
  const parts: string[][] = [];
  let part: string[] = [];
  let partBytes = 0;
  for (const text of texts) {
    const size = Buffer.byteLength(text) + 2;
    if (part.length > 0 && (part.length === records || partBytes + size > bytes)) {
      parts.push(part);
      part = [];
      partBytes = 0;
    }
    part.push(text);
    partBytes += size;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

/** Each record's rank by `values` (compareValues' order: null last), equal values one rank. */
function ranksOf(values: readonly Comparable[]): number[] {
  const order = sortRecords(
    values.map((value, position) => ({ id: position, value })),
    [{ field: 'value', descending: false }],
    (entry, field) => (field === 'value' ? entry.value : entry.id),
  );
  const ranks = new Array<number>(values.length);
  let rank = -1;
  let previous: Comparable | undefined;
  for (const [index, { id, value }] of order.entries()) {
    if (index === 0 || value !== previous) rank++;
    previous = value;
    ranks[id] = rank;
  }
  return ranks;
}

/** A column's lines (recordsColumns(), columnText()), one per record. */
function columnLines(kind: 'value' | 'upper' | 'rank', values: readonly Comparable[]): string[] {
  if (kind === 'rank') return ranksOf(values).map(String);
  if (kind === 'upper') return values.map((value) => (searchText(value) ?? '').replaceAll('\n', ' '));
  return values.map((value) => encodePlain(value));
}

/** A list's columns (recordsColumns()) for its records in their parts' order: the files, and each one's chunks' lengths. */
export function columnFiles(
  resource: string,
  query: QuerySettings,
  orderingFields: readonly string[],
  records: readonly object[],
  chunkBytes = COLUMN_BYTES,
): { files: Map<string, string>; chunks: Record<string, number[]> } {
  const files = new Map<string, string>();
  const chunks: Record<string, number[]> = {};
  for (const { column, field, kind } of recordsColumns(query, orderingFields)) {
    const lines = columnLines(
      kind,
      records.map((record) => fieldValue(record, field)),
    );
    const split = splitParts(lines, Number.POSITIVE_INFINITY, chunkBytes);
    for (const [index, chunk] of split.entries())
      files.set(recordsColumnFile(resource, column, index + 1), columnText(chunk));
    chunks[column] = split.map((chunk) => chunk.length);
  }
  return { files, chunks };
}

/** A list with settings, as the store is written for it. */
export interface StoredList {
  name: string;
  orderingFields: readonly string[];
  query: QuerySettings;
}

/**
 * The files of a list's `_records/<resource>/`: its parts `1.json`..., its columns and its
 * `index.json`. `texts` are its records' texts in its default order, as the list writes them;
 * `shown`, the same records as an answer reads their values (the list's JSON, parsed).
 */
export function writeRecords(
  list: StoredList,
  texts: readonly string[],
  shown: readonly object[],
  pages: Pick<RecordsManifest, 'pageSize' | 'baseUrl'>,
): Map<string, string> {
  const files = new Map<string, string>();
  const parts = splitParts(texts);
  for (const [index, part] of parts.entries()) files.set(recordsPartFile(list.name, index + 1), partText(part));
  const columns = columnFiles(list.name, list.query, list.orderingFields, shown);
  for (const [file, text] of columns.files) files.set(file, text);
  const manifest: RecordsManifest = {
    count: texts.length,
    parts: parts.length,
    partRecords: parts.map((part) => part.length),
    columns: columns.chunks,
    pageSize: pages.pageSize,
    baseUrl: pages.baseUrl,
    query: list.query,
  };
  files.set(recordsManifestFile(list.name), `${encodePlain(manifest as never)}\n`);
  return files;
}
