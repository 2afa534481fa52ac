// contract/query.ts: the reading of a list request, the page links, the parts' layout, and the
// quick test of a record's text that lets a large list be read without parsing every record.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ListQuery,
  linkQuery,
  partRecords,
  partText,
  type QuerySettings,
  readListQuery,
  Selection,
} from '../../scripts/contract/query.ts';
import { resolve } from '../../scripts/contract/routes.ts';
import { searchField } from '../../scripts/contract/search.ts';
import { upperCodePoint } from '../../scripts/contract/upper-case.ts';

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
  });

  it('without settings, resolve() answers as it always did', () => {
    expect(resolve('GET', '/company/?city=Rome&search=a&ordering=name')).toEqual({
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
  it('give back the texts written, whatever they hold', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), (values) => {
        const texts = values.map((value) => JSON.stringify({ id: 1, value }));
        expect(partRecords(partText(texts))).toEqual(texts);
      }),
    );
  });
});

describe('the quick test of a record text', () => {
  it('lets through every code point whose PostgreSQL upper case is an ASCII letter', () => {
    for (let codePoint = 0x80; codePoint < 0x110000; codePoint++) {
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
      const upper = upperCodePoint(codePoint);
      if (upper >= 0x80) continue;
      const search = `search=${String.fromCodePoint(upper).toLowerCase()}`;
      const selection = new Selection(read(LIST, search) as ListQuery, SETTINGS);
      selection.add(partText([JSON.stringify({ id: 1, name: `x${String.fromCodePoint(codePoint)}` })]));
      expect(selection.texts(), codePoint.toString(16)).toHaveLength(1);
    }
  });

  it('selects what the full match selects (property)', () => {
    const word = fc.array(
      fc.constantFrom('a', 'S', 'ı', 'ſ', 'ß', 'é', '"', '\\', '東', 'k', 'K', '1', '\u2028', '-', '.', '('),
      {
        minLength: 1,
        maxLength: 4,
      },
    );
    const text = word.map((chars) => chars.join(''));
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.nat(), name: text, city: fc.option(text) }), { maxLength: 6 }),
        text,
        fc.option(text),
        (records, term, city) => {
          const search = `search=${encodeURIComponent(term)}${city === null ? '' : `&city=${encodeURIComponent(city)}`}`;
          const query = read(LIST, search) as ListQuery;
          fc.pre(query !== undefined);
          const texts = records.map((record) => JSON.stringify(record).replace(/\u2028/g, '\\u2028'));
          const selection = new Selection(query, SETTINGS);
          selection.add(partText(texts));
          const unfiltered = new Selection({ ...query, conditions: [], terms: [] }, SETTINGS);
          unfiltered.add(partText(texts));
          const full = new Selection(query, SETTINGS) as unknown as { mayMatch: () => boolean };
          full.mayMatch = () => true;
          (full as unknown as Selection).add(partText(texts));
          expect(selection.texts()).toEqual((full as unknown as Selection).texts());
          expect(unfiltered.texts()).toEqual(texts);
        },
      ),
      { numRuns: 300 },
    );
  });
});
