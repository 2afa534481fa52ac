// The reference matchers the tests hold the columns to (contract/query.ts's selectedPositions):
// django-filter's exact lookups and SearchFilter's on PostgreSQL, applied to a record itself.
// filters.test.ts and search.test.ts hold them to Django's readings.

import type { Condition } from '../../../scripts/contract/filters.ts';
import { type SearchField, type SearchLookup, searchText } from '../../../scripts/contract/search.ts';
import { pgUpper } from '../../../scripts/contract/upper-case.ts';

/** Whether a record holds every condition's value; null holds none. */
export function filterMatcher(
  conditions: readonly Condition[],
): (record: Readonly<Record<string, unknown>>) => boolean {
  return (record) =>
    conditions.every(({ field, kind, equals }) => {
      const value = record[field];
      if (value === null || value === undefined) return false;
      return kind === 'integer' ? String(value) === equals : value === equals;
    });
}

/**
 * Whether a value's text matches a term: `UPPER(x::text) LIKE UPPER('%term%')` and its kin. The
 * pattern's own `%`, `_` and `\` are escaped by Django, so a term is a plain substring. LIKE and
 * `=` compare the bytes, so the upper cases compare code point by code point.
 */
function matchesTerm(upperValue: string, upperTerm: string, lookup: SearchLookup): boolean {
  switch (lookup) {
    case 'icontains':
      return upperValue.includes(upperTerm);
    case 'istartswith':
      return upperValue.startsWith(upperTerm);
    case 'iexact':
      return upperValue === upperTerm;
  }
}

/** A search made once per request: the terms' upper cases, and a test of one record. */
export function searchMatcher(
  terms: readonly string[],
  fields: readonly SearchField[],
): (record: Readonly<Record<string, unknown>>) => boolean {
  const upperTerms = terms.map(pgUpper);
  return (record) => {
    const values = fields.map(({ field }) => searchText(record[field]));
    // Every term must match, each in at least one field.
    return upperTerms.every((term) =>
      fields.some((field, index) => {
        const value = values[index];
        return value != null && matchesTerm(value, term, field.lookup);
      }),
    );
  };
}
