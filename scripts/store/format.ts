// The records a query is answered from, as the build writes them under `_records/<resource>/` and
// every reader finds them (the request handler, the pre-rendered filters, npm run verify): the
// files' names, the manifest, the parts and the columns.

import type { QuerySettings } from '../contract/query.ts';

/**
 * The records of a list, in its default order, in parts of at most RECORDS_PER_PART records or
 * PART_BYTES bytes, one record per line, each line the record's text as the list writes it, so
 * an answer holds the very bytes of the files.
 */
export const RECORDS_PER_PART = 1000;
export const PART_BYTES = 1024 * 1024;
const recordsFolder = (resource: string) => `_records/${resource}/`;
export const recordsManifestFile = (resource: string) => `${recordsFolder(resource)}index.json`;
export const recordsPartFile = (resource: string, part: number) => `${recordsFolder(resource)}${part}.json`;

/**
 * Beside the parts, the build writes columns: for every record, in the parts' order, one line an
 * answer needs to select and order without parsing a record. `value-<field>`, a filter's field
 * as JSON (the record's `"field":value` text); `upper-<field>`, a search field as searchText()
 * gives it, null as an empty line and a line feed as a space (a search term holds no white
 * space, so neither changes what it matches); `rank-<field>`, an ordering field's rank (equal
 * values one rank, null last, as compareValues() orders them) and always `rank-id`, the
 * tie-break. A column is in chunks of at most COLUMN_BYTES (a longer line alone), each a line
 * feed, then each line followed by one: a value is found by a search of its text, natively.
 */
export const COLUMN_BYTES = 4 * 1024 * 1024;
export const recordsColumnFile = (resource: string, column: string, chunk: number) =>
  `${recordsFolder(resource)}${column}/${chunk}.txt`;
export const valueColumn = (field: string) => `value-${field}`;
export const upperColumn = (field: string) => `upper-${field}`;
export const rankColumn = (field: string) => `rank-${field}`;

/** A column chunk's text (its lines must hold no line feed). */
export function columnText(lines: readonly string[]): string {
  return `\n${lines.join('\n')}\n`;
}

/** The columns the build writes for a list with these settings and ordering fields. */
export function recordsColumns(
  settings: QuerySettings,
  orderingFields: readonly string[],
): Array<{ column: string; field: string; kind: 'value' | 'upper' | 'rank' }> {
  const ordered = orderingFields.length > 0 ? orderingFields : settings.ordering;
  return [
    ...settings.filters.map(({ field }) => ({ column: valueColumn(field), field, kind: 'value' as const })),
    ...settings.search.map(({ field }) => ({ column: upperColumn(field), field, kind: 'upper' as const })),
    ...[...new Set([...ordered, 'id'])].map((field) => ({ column: rankColumn(field), field, kind: 'rank' as const })),
  ];
}

/** `_records/<resource>/index.json`: what an answer needs besides the records. */
export interface RecordsManifest {
  count: number;
  parts: number;
  /** The number of records of each part, in order. */
  partRecords: number[];
  /** The number of records of each chunk of each column, in order. */
  columns: Record<string, number[]>;
  /** The build's page size and base URL, for a paginated list's envelope and links. */
  pageSize: number;
  baseUrl: string;
  /** The resource's settings, for a server that reads them from the output (npm run serve). */
  query: QuerySettings;
}

/** The text of one part: a JSON array, one record's text per line. */
export function partText(records: readonly string[]): string {
  return `[${records.join(',\n')}]\n`;
}

/** The records' texts of a part's text, in order. */
export function partRecords(text: string): string[] {
  const body = text.trimEnd().slice(1, -1);
  if (body === '') return [];
  return body.split(',\n');
}

/**
 * Where each record of a part is in its UTF-8 bytes: record `i` is from `starts[i]` to before
 * `starts[i + 1] - 1`. A record's JSON holds no line feed, so each line feed ends one.
 */
export function recordStarts(bytes: Uint8Array): Int32Array {
  const lineFeeds: number[] = [];
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) lineFeeds.push(at);
  // The first record starts after `[`; each line feed ends one (`,` or `]` before it).
  const starts = new Int32Array(lineFeeds.length + 1);
  starts[0] = 1;
  for (const [index, at] of lineFeeds.entries()) starts[index + 1] = at + 1;
  return starts;
}

/** The first position of each part, and after them the number of records. */
export function partStarts(partRecords: readonly number[]): Int32Array {
  const starts = new Int32Array(partRecords.length + 1);
  for (const [index, records] of partRecords.entries()) starts[index + 1] = (starts[index] as number) + records;
  return starts;
}
