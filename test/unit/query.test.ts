// contract/query.ts: the reading of a list request, the page links, the parts' layout, and the
// columns a request selects and orders the records from without parsing one.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columnFiles } from '../../scripts/builder/pipeline/records-parts.ts';
import { filterMatcher } from '../../scripts/contract/filters.ts';
import { encodePlain } from '../../scripts/contract/json.ts';
import { sortRecords } from '../../scripts/contract/ordering.ts';
import {
  linkQuery,
  partText,
  type QuerySettings,
  readListQuery,
  recordStarts,
  recordsColumnFile,
  selectedPositions,
} from '../../scripts/contract/query.ts';
import { resolve } from '../../scripts/contract/routes.ts';
import { searchField } from '../../scripts/contract/search.ts';
import { API } from '../fixtures/sample.ts';
import { searchMatcher } from './helpers/record-match.ts';

const SETTINGS: QuerySettings = {
  filters: [
    { field: 'city', kind: 'text' },
    { field: 'id', kind: 'integer' },
  ],
  search: [searchField('name'), searchField('^city')],
  ordering: ['id', 'name'],
  prerendered: [],
};
const LIST = { name: 'company', orderingFields: [], paginated: false, query: SETTINGS };
const PAGED = { ...LIST, name: 'texture', paginated: true };

const read = (list: typeof LIST, search: string) => readListQuery(list, new Map(new URLSearchParams(search)), search);

describe('a list request', () => {
  it('is answered from the files when it filters, searches and orders nothing', () => {
    expect(read(LIST, 'x=1&city=&search=,&ordering=nope')).toBeUndefined();
    expect(read({ ...LIST, query: undefined } as never, 'city=Rome')).toBeUndefined();
    // A paginated list's links keep every parameter, even one that changes nothing.
    expect(read(PAGED, 'search=')).toBeDefined();
    expect(read(PAGED, 'x=1')).toBeDefined();
    expect(read(PAGED, 'format=json&page=2')).toBeUndefined();
    expect(read(PAGED, 'format=%6Ason&page=1&page=2')).toBeUndefined();
    // DRF's links keep an empty `format` and each value of a repeated one; the files' do not.
    expect(read(PAGED, 'format=&page=2')).toBeDefined();
    expect(read(PAGED, 'format=json&format=json')).toBeDefined();
    expect(read(PAGED, 'format=api&format=json&page=2')).toBeDefined();
  });

  it('without settings, resolve() answers as it always did', () => {
    expect(resolve('GET', '/company/?city=Rome&search=a&ordering=name', API)).toEqual({
      kind: 'file',
      status: 200,
      file: 'company/index.json',
    });
  });

  it('reads ordering=id as an order of its own', () => {
    expect(read(LIST, 'ordering=id,name')?.ordering).toEqual([{ field: 'id', descending: false }]);
  });
});

describe('the page links', () => {
  it('keep every parameter, keys sorted, repeated values in order, page set or removed', () => {
    expect(linkQuery('search=a&x=1&search=b&page=3&format=json', 4)).toBe('format=json&page=4&search=a&search=b&x=1');
    expect(linkQuery('search=a+b%2Cc&page=2', undefined)).toBe('search=a+b%2Cc');
    expect(linkQuery('z&=1&%C3%A9=%E2%80%A8', 2)).toBe('=1&page=2&z=&%C3%A9=%E2%80%A8');
  });
});

describe("a list's parts", () => {
  it('give back the bytes of each text written, whatever it holds', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), (values) => {
        const texts = values.map((value) => encodePlain({ id: 1, value } as never));
        const bytes = Buffer.from(partText(texts));
        const starts = recordStarts(bytes);
        const read = texts.map((_, index) =>
          bytes.subarray(starts[index] as number, (starts[index + 1] as number) - 2).toString('utf8'),
        );
        expect(read).toEqual(texts);
      }),
    );
  });
});

describe('the columns a request is answered from', () => {
  const word = fc.array(
    fc.constantFrom(
      'a',
      'S',
      'ı',
      'ſ',
      'ß',
      'é',
      'İ',
      '"',
      '\\',
      '東',
      'k',
      'K',
      '1',
      '\u2028',
      '\n',
      ' ',
      '-',
      '.',
      '(',
    ),
    { minLength: 1, maxLength: 4 },
  );
  const text = word.map((chars) => chars.join(''));
  const params = fc.record(
    {
      search: fc.array(text, { maxLength: 2 }).map((terms) => terms.join(' ')),
      city: text,
      id: fc.nat({ max: 6 }).map(String),
      ordering: fc.constantFrom('name', '-name', 'id', '-id', 'name,-id', '-name,id', 'city'),
    },
    { requiredKeys: [] },
  );

  it('select and order what the records themselves select, at any chunk size (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ id: fc.nat({ max: 6 }), name: text, city: fc.option(text) }), {
          selector: (record) => record.id,
          maxLength: 7,
        }),
        params,
        fc.integer({ min: 1, max: 40 }),
        (records, given, chunkBytes) => {
          const search = new URLSearchParams(given as Record<string, string>).toString();
          const query = read(LIST, search);
          fc.pre(query !== undefined && query.errors === null);
          const settings = { ...SETTINGS, filters: [...SETTINGS.filters], search: [...SETTINGS.search] };
          const { files, chunks } = columnFiles('company', settings, [], records, chunkBytes);
          const columns = new Map(
            Object.entries(chunks).map(([column, lengths]) => [
              column,
              lengths.map((lines, index) => ({
                text: files.get(recordsColumnFile('company', column, index + 1)) as string,
                lines,
              })),
            ]),
          );
          const matches = (record: (typeof records)[number]) =>
            filterMatcher(query.conditions)(record) && searchMatcher(query.terms, settings.search)(record);
          const expected = sortRecords(records.filter(matches), query.ordering).map((record) =>
            records.indexOf(record),
          );
          const selected = [...selectedPositions(query, settings, records.length, columns)];
          expect(query.ordering.length > 0 ? selected : [...selected].sort((x, y) => x - y)).toEqual(
            query.ordering.length > 0
              ? expected
              : records.map((_, index) => index).filter((index) => matches(records[index] as never)),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});
