// The records a server with code answers a filter, a search or an ordering from, written by the
// build for each resource whose settings ask for them: the list's records in its default order,
// in parts small enough that an answer reads one part at a time (a Cloudflare worker has 128 MB
// for a list of any size), the columns it selects and orders them by without parsing one
// (contract/query.ts), and a manifest with what the answer needs besides them.

import { encodePlain } from '../../contract/json.ts';
import { type Comparable, fieldValue, sortRecords } from '../../contract/ordering.ts';
import {
  COLUMN_BYTES,
  columnText,
  PART_BYTES,
  partText,
  type QuerySettings,
  RECORDS_PER_PART,
  type RecordsManifest,
  recordsColumnFile,
  recordsColumns,
  recordsManifestFile,
  recordsPartFile,
} from '../../contract/query.ts';

import type { Resource } from '../../contract/resources/resource.ts';
import { searchText } from '../../contract/search.ts';
import { type Prepared, type RenderSettings, recordEncoder, sortedOf } from './render.ts';
import { type Catalogue, recordsOf } from './validate.ts';

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

/** `_records/<resource>/index.json`, its parts `1.json`... and its columns, for each resource with settings. */
export function recordsParts(
  catalogue: Catalogue,
  settings: RenderSettings,
  resources: readonly Resource[],
  prepared: Prepared = {},
): Map<string, string> {
  const files = new Map<string, string>();
  for (const resource of resources) {
    if (resource.query === undefined) continue;
    const records =
      prepared.sorted?.get(resource.name) ?? sortedOf(resource, recordsOf(catalogue, resource.name) as object[]);
    const encodeOne = recordEncoder(resource, catalogue, prepared);
    const texts = records.map(encodeOne);
    const parts = splitParts(texts);
    for (const [index, part] of parts.entries()) files.set(recordsPartFile(resource.name, index + 1), partText(part));
    // The values as an answer reads them: the list's own JSON where it shows a record otherwise
    // (embedded records, numbers with decimals), else the record's.
    const shown =
      resource.embeds || resource.floats?.length ? texts.map((text) => JSON.parse(text) as object) : records;
    const columns = columnFiles(resource.name, resource.query, resource.orderingFields, shown);
    for (const [file, text] of columns.files) files.set(file, text);
    const manifest: RecordsManifest = {
      count: records.length,
      parts: parts.length,
      partRecords: parts.map((part) => part.length),
      columns: columns.chunks,
      pageSize: settings.pageSize,
      baseUrl: settings.baseUrl,
      query: resource.query,
    };
    files.set(recordsManifestFile(resource.name), `${encodePlain(manifest as never)}\n`);
  }
  return files;
}
