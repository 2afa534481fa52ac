// Which records a query selects, in the order it asks, read from the columns the build writes
// (format.ts) rather than from the records: a filter is a search of its value in its column, a
// search term one in each search field's column, an ordering a sort of the ranks. The readings
// themselves (what a filter or a term matches, how values order) are DRF's, in contract/.

import { encodePlain } from '../contract/json.ts';
import { orderByRanks, sortRecords } from '../contract/ordering.ts';
import type { ListQuery, QuerySettings } from '../contract/query.ts';
import type { SearchLookup } from '../contract/search.ts';
import { pgUpper } from '../contract/upper-case.ts';
import { rankColumn, upperColumn, valueColumn } from './format.ts';

/** The columns a query reads (recordsColumns()'s names). */
export function queryColumns(query: ListQuery, settings: QuerySettings): string[] {
  const columns = query.conditions.map(({ field }) => valueColumn(field));
  if (query.terms.length > 0) columns.push(...settings.search.map(({ field }) => upperColumn(field)));
  if (query.ordering.length > 0)
    columns.push(...[...new Set([...query.ordering.map(({ field }) => field), 'id'])].map(rankColumn));
  return columns;
}

/** A column as it is read: each chunk's text (columnText()) and its number of lines. */
export interface ColumnChunk {
  text: string;
  lines: number;
}

/**
 * Marks in `into` the position of every line of a column that holds `needle`; a needle that
 * begins with a line feed is found only at a line's start. A line is marked once.
 */
function markLines(chunks: readonly ColumnChunk[], needle: string, into: Uint8Array): void {
  const skip = needle.startsWith('\n') ? 1 : 0;
  let base = 0;
  for (const { text, lines } of chunks) {
    // `line` is the line that starts after the line feed at `start`.
    let line = -1;
    let start = -1;
    for (let hit = text.indexOf(needle, 1 - skip); hit !== -1; ) {
      const at = hit + skip;
      for (let next = text.indexOf('\n', start + 1); next !== -1 && next < at; next = text.indexOf('\n', next + 1)) {
        line++;
        start = next;
      }
      into[base + line] = 1;
      const end = text.indexOf('\n', at);
      line++;
      start = end;
      hit = text.indexOf(needle, end + 1 - skip);
    }
    base += lines;
  }
}

/** The needle that finds a search term in a search field's column, after the field's lookup. */
function termNeedle(upperTerm: string, lookup: SearchLookup): string {
  if (lookup === 'istartswith') return `\n${upperTerm}`;
  if (lookup === 'iexact') return `\n${upperTerm}\n`;
  return upperTerm;
}

/** A rank column's values. */
function ranksOf(chunks: readonly ColumnChunk[]): Int32Array {
  const ranks = new Int32Array(chunks.reduce((sum, { lines }) => sum + lines, 0));
  let at = 0;
  for (const { text } of chunks) {
    let value = 0;
    for (let i = 1; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 10) {
        ranks[at++] = value;
        value = 0;
      } else value = value * 10 + code - 48;
    }
  }
  return ranks;
}

/**
 * The positions (in the parts' order) of the records a query selects, in the order it asks, from
 * the columns alone (queryColumns()): no record is parsed.
 */
export function selectedPositions(
  query: ListQuery,
  settings: QuerySettings,
  count: number,
  columns: ReadonlyMap<string, readonly ColumnChunk[]>,
): Int32Array {
  const columnOf = (name: string) => columns.get(name) as readonly ColumnChunk[];
  let selected: Uint8Array | undefined;
  const keep = (marked: Uint8Array) => {
    const into = selected;
    if (into === undefined) selected = marked;
    else for (let i = 0; i < count; i++) into[i] = (into[i] as number) & (marked[i] as number);
  };
  for (const { field, kind, equals } of query.conditions) {
    const marked = new Uint8Array(count);
    // No record's JSON holds an integer's value as a text, nor `beyond` (an integer no record holds).
    const json = kind === 'integer' ? (equals as string) : encodePlain(equals);
    markLines(columnOf(valueColumn(field)), `\n${json}\n`, marked);
    keep(marked);
  }
  for (const term of query.terms) {
    const marked = new Uint8Array(count);
    const upperTerm = pgUpper(term);
    for (const { field, lookup } of settings.search)
      markLines(columnOf(upperColumn(field)), termNeedle(upperTerm, lookup), marked);
    keep(marked);
  }
  let positions: Int32Array;
  if (selected === undefined) positions = Int32Array.from({ length: count }, (_, position) => position);
  else {
    let matched = 0;
    for (let position = 0; position < count; position++) matched += selected[position] as number;
    positions = new Int32Array(matched);
    for (let position = 0, at = 0; position < count; position++) if (selected[position]) positions[at++] = position;
  }
  if (query.ordering.length === 0) return positions;
  const ids = ranksOf(columnOf(rankColumn('id')));
  const rankOf = new Map(query.ordering.map(({ field }) => [field, ranksOf(columnOf(rankColumn(field)))]));
  const ranked = orderByRanks(
    positions,
    query.ordering.map(({ field, descending }) => ({ ranks: rankOf.get(field) as Int32Array, descending })),
    ids,
  );
  if (ranked !== null) return ranked;
  return Int32Array.from(
    sortRecords(
      Array.from(positions, (position) => ({ id: ids[position] as number, position })),
      query.ordering,
      (found, field) => (field === 'id' ? found.id : ((rankOf.get(field) as Int32Array)[found.position] as number)),
    ),
    ({ position }) => position,
  );
}
