// The answers of the settings file's filters, search and orderings as docs/contract.md section
// 5.5 says DRF gives them, worked out here from the plain lists (deliberately not with the
// project's code) for the plain values filters.spec.ts sends: django-filter's exact lookups,
// SearchFilter's terms and prefixes with PostgreSQL's upper case, OrderingFilter with ties by id,
// and PageNumberPagination's links.

import { type SortKey, sortBy, type Value } from './order.ts';
import { pythonJson } from './pyjson.ts';

export type Row = Record<string, Value | Value[]>;

/** PostgreSQL's UPPER() on a UTF-8 database: one code point for one, so `ß` stays `ß`. */
function upper(text: string): string {
  return Array.from(text, (c) => {
    const mapped = c.toUpperCase();
    return Array.from(mapped).length === 1 ? mapped : c;
  }).join('');
}

/**
 * SearchFilter: commas are spaces, the terms are split on white space, and each must match one
 * of `fields` (`name` contains it, `^city` starts with it, `=zip_code` is it), ignoring case.
 */
export function searched(rows: readonly Row[], search: string, fields: readonly string[]): Row[] {
  const terms = search.replaceAll(',', ' ').split(/\s+/).filter(Boolean).map(upper);
  const matches = (row: Row, term: string) =>
    fields.some((spec) => {
      const field = spec.replace(/^[\^=]/, '');
      const value = row[field];
      if (value === null || value === undefined) return false;
      const text = upper(String(value));
      return spec.startsWith('^') ? text.startsWith(term) : spec.startsWith('=') ? text === term : text.includes(term);
    });
  return rows.filter((row) => terms.every((term) => matches(row, term)));
}

/** OrderingFilter: `-city,name` sorts by each field in turn, ties by id ascending. */
export function ordered(rows: readonly Row[], ordering: string): Row[] {
  const keys: Array<SortKey<Row>> = ordering.split(',').map((term) => {
    const descending = term.startsWith('-');
    const field = descending ? term.slice(1) : term;
    return { value: (row: Row) => row[field] as Value, descending };
  });
  return sortBy(rows, [...keys, { value: (row: Row) => row.id as Value }]);
}

/**
 * A link of PageNumberPagination: the request's parameters with `page` replaced (left out for
 * page 1), keys sorted, values form-encoded.
 */
export function pageLink(
  baseUrl: string,
  path: string,
  params: Readonly<Record<string, string>> | ReadonlyArray<[string, string]>,
  page: number,
): string {
  const pairs = Array.isArray(params) ? params : Object.entries(params);
  const entries = pairs.filter(([key]) => key !== 'page');
  if (page > 1) entries.push(['page', String(page)]);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = new URLSearchParams(entries).toString();
  return `${baseUrl}${path}${query ? `?${query}` : ''}`;
}

/** Page `page` (a number, or `last`) of `rows`, as its JSON text; null for a page the list has not. */
export function pageText(
  rows: readonly Row[],
  pageSize: number,
  page: number | 'last',
  link: (page: number) => string,
): string | null {
  const pages = Math.max(1, Math.ceil(rows.length / pageSize));
  const n = page === 'last' ? pages : page;
  if (n < 1 || n > pages) return null;
  return pythonJson({
    count: rows.length,
    next: n < pages ? link(n + 1) : null,
    previous: n > 1 ? link(n - 1) : null,
    results: rows.slice((n - 1) * pageSize, n * pageSize),
  });
}
