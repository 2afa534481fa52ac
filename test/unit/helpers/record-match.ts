// The reference matchers the tests hold the columns to (store/positions.ts's selectedPositions):
// django-filter's exact lookups and SearchFilter's on PostgreSQL, applied to a record itself.
// filters.test.ts and search.test.ts hold them to Django's readings.

import { matchesTerm, type SearchField, searchText } from '../../../scripts/contract/search.ts';
import { pgUpper } from '../../../scripts/contract/upper-case.ts';

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
