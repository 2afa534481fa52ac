// A company list with filters, search and ordering, for the tests of reading a request
// (query.test.ts) and of answering it from the records store (store.test.ts).

import { type QuerySettings, readListQuery } from '../../../scripts/contract/query.ts';
import { searchField } from '../../../scripts/contract/search.ts';

export const SETTINGS: QuerySettings = {
  filters: [
    { field: 'city', kind: 'text' },
    { field: 'id', kind: 'integer' },
  ],
  search: [searchField('name'), searchField('^city')],
  ordering: ['id', 'name'],
  prerendered: [],
};

export const LIST = { name: 'company', path: '/company/', orderingFields: [], paginated: false, query: SETTINGS };

/** The query of `search` (a query string) to `list`, as resolve() reads it. */
export const read = (list: typeof LIST, search: string) =>
  readListQuery(list, new Map(new URLSearchParams(search)), search);
