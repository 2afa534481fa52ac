// DRF's OrderingFilter on the event list, reduced to the terms that can change the result,
// so that most comma-separated orderings land on one of the pre-rendered single-field files.

import { pythonStrip } from './python-text.ts';

export interface OrderTerm {
  field: string;
  descending: boolean;
}

/**
 * Parses `?ordering=` as DRF 3.14 does: split on commas, strip each term with str.strip()
 * (Python's white space, not JavaScript's), drop terms that are not `field` or `-field` of a
 * known field. Then drops what the database would ignore: a field after
 * its first use, anything after `id` (ids are unique) and a trailing `id` ascending (the
 * tie-break every ordering already ends with). An empty result means the default order.
 */
export function parseOrdering(raw: string, fields: readonly string[]): OrderTerm[] {
  const terms: OrderTerm[] = [];
  const seen = new Set<string>();
  for (const part of raw.split(',')) {
    const term = pythonStrip(part);
    const descending = term.startsWith('-');
    const field = descending ? term.slice(1) : term;
    if (!fields.includes(field) || seen.has(field)) continue;
    seen.add(field);
    terms.push({ field, descending });
    if (field === 'id') break;
  }
  const last = terms.at(-1);
  if (last?.field === 'id' && !last.descending) terms.pop();
  return terms;
}

/** The query value that names a term list (`-start_date,name`). */
export function formatOrdering(terms: readonly OrderTerm[]): string {
  return terms.map((term) => (term.descending ? '-' : '') + term.field).join(',');
}

export type Comparable = string | number | boolean | null;

/** Code-point order, as a database with a binary collation (and Python) compares strings. */
export function compareStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 puts U+E000..U+FFFF after the surrogates; shift them so astral characters sort last.
    if (x >= 0xd800 && y >= 0xd800) {
      x += x >= 0xe000 ? -0x800 : 0x2000;
      y += y >= 0xe000 ? -0x800 : 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** Nulls compare as larger than any value, as in PostgreSQL: last ascending, first descending. */
export function compareValues(a: Comparable, b: Comparable): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  return a < b ? -1 : 1;
}

/** True when native string comparison is code-point order: no surrogates, nothing above them. */
function nativeOrderHolds(values: readonly Comparable[]): boolean {
  return values.every((value) => typeof value !== 'string' || !/[\ud800-\uffff]/.test(value));
}

/** A record's value of `field` as the ordering compares it: a missing field is null. */
export function fieldValue(record: object, field: string): Comparable {
  return (record as Record<string, Comparable>)[field] ?? null;
}

/**
 * Compares two records, by index, on one key's values; `next` breaks its ties. Native `<` when
 * it gives code-point order, which is the common case and the fast one.
 */
function byKey(
  values: readonly Comparable[],
  sign: number,
  next?: (a: number, b: number) => number,
): (a: number, b: number) => number {
  if (nativeOrderHolds(values)) {
    return (a, b) => {
      const x = values[a] as Comparable;
      const y = values[b] as Comparable;
      if (x === y) return next ? next(a, b) : 0;
      if (x === null) return sign;
      if (y === null) return -sign;
      return x < y ? -sign : sign;
    };
  }
  return (a, b) => sign * compareValues(values[a] as Comparable, values[b] as Comparable) || (next ? next(a, b) : 0);
}

/**
 * Sorts records by the terms, then by id ascending, without touching the input.
 * The final id key makes every order total, so the output never depends on the sort algorithm.
 * Each key is read once per record, not once per comparison: lists run to 100,000 records.
 */
export function sortRecords<T extends { id: Comparable }>(
  records: readonly T[],
  terms: readonly OrderTerm[],
  keyOf: (record: T, field: string) => Comparable = fieldValue,
): T[] {
  // One comparison per key, each calling the next only on a tie: most pairs differ in the first.
  let compare: ((a: number, b: number) => number) | undefined;
  for (const { field, descending } of [...terms, { field: 'id', descending: false }].reverse()) {
    compare = byKey(
      records.map((record) => keyOf(record, field)),
      descending ? -1 : 1,
      compare,
    );
  }
  const order = records.map((_, index) => index);
  order.sort(compare);
  return order.map((index) => records[index] as T);
}

/**
 * Records sorted by one field (then id ascending, as sortRecords leaves them), put in the order
 * of that field descending, then id ascending: reversed, with each run of equal values turned
 * back. Linear, where sorting again is not: the event list is written in both directions of
 * each of its fields.
 */
export function descendingFrom<T>(ascending: readonly T[], keyOf: (record: T) => Comparable): T[] {
  const out = [...ascending].reverse();
  for (let start = 0; start < out.length; ) {
    const value = keyOf(out[start] as T);
    let end = start + 1;
    while (end < out.length && keyOf(out[end] as T) === value) end++;
    for (let i = start, j = end - 1; i < j; i++, j--) [out[i], out[j]] = [out[j] as T, out[i] as T];
    start = end;
  }
  return out;
}

/** An ordering term as a list's rank column gives it: each record's rank by the field, and the direction. */
export interface RankTerm {
  ranks: Int32Array;
  descending: boolean;
}

/**
 * The records at `positions` sorted by the terms' ranks (equal values one rank, null last, as
 * compareValues() orders them), then by id ascending, from the ranks alone: each record's ranks
 * are one number, its terms' ranks in mixed radix and the id's rank last, and the numbers are
 * sorted natively, with no comparison function called per pair. `idRanks` is the rank of every
 * record's id, unique, from 0. Null when the numbers would pass 2^53 (a list of millions ordered
 * by several fields): sortRecords() then.
 */
export function orderByRanks(
  positions: Int32Array,
  terms: readonly RankTerm[],
  idRanks: Int32Array,
): Int32Array | null {
  const count = idRanks.length;
  const radixes = terms.map(({ ranks }) => {
    let radix = 1;
    for (const rank of ranks) if (rank >= radix) radix = rank + 1;
    return radix;
  });
  if (radixes.reduce((space, radix) => space * radix, count) > Number.MAX_SAFE_INTEGER) return null;
  const keys = new Float64Array(positions.length);
  for (let at = 0; at < positions.length; at++) {
    const position = positions[at] as number;
    let key = 0;
    for (let term = 0; term < terms.length; term++) {
      const { ranks, descending } = terms[term] as RankTerm;
      const radix = radixes[term] as number;
      const rank = ranks[position] as number;
      key = key * radix + (descending ? radix - 1 - rank : rank);
    }
    keys[at] = key * count + (idRanks[position] as number);
  }
  keys.sort();
  const positionOfId = new Int32Array(count);
  for (let position = 0; position < count; position++) positionOfId[idRanks[position] as number] = position;
  const ordered = new Int32Array(positions.length);
  for (let at = 0; at < keys.length; at++) ordered[at] = positionOfId[(keys[at] as number) % count] as number;
  return ordered;
}
