// scripts/contract/ordering.ts: `?ordering=` parsed as DRF 3.14's OrderingFilter does (and reduced to
// the terms that change the result), code-point string comparison, and the record sort with
// its id tie-break and null placement; a descending order derived from the ascending one.

import { describe, expect, it } from 'vitest';
import {
  compareStrings,
  compareValues,
  descendingFrom,
  formatOrdering,
  type OrderTerm,
  orderByRanks,
  parseOrdering,
  sortRecords,
} from '../../scripts/contract/ordering.ts';
import { event } from '../../scripts/contract/resources/index.ts';

const asc = (field: string): OrderTerm => ({ field, descending: false });
const desc = (field: string): OrderTerm => ({ field, descending: true });

describe('parseOrdering', () => {
  it.each<[string, OrderTerm[]]>([
    ['name', [asc('name')]],
    ['-start_date', [desc('start_date')]],
    ['-start_date,name', [desc('start_date'), asc('name')]],
    ['name,-end_date,slug', [asc('name'), desc('end_date'), asc('slug')]],
    [' name , -slug ', [asc('name'), desc('slug')]],
    ['\tname', [asc('name')]],
    // str.strip()'s white space, not trim()'s: U+001C..U+001F and U+0085 are, U+FEFF is not.
    ['\x1cend_date', [asc('end_date')]],
    ['\x1f-name\x85', [desc('name')]],
    ['\ufeff-name', []],
    ['name\ufeff,-slug', [desc('slug')]],
    ['colour', []],
    ['colour,name', [asc('name')]],
    ['name,colour,-slug', [asc('name'), desc('slug')]],
    ['+name', []],
    ['--name', []],
    ['- name', []],
    ['Name', []],
    ['name,name', [asc('name')]],
    ['name,-name', [asc('name')]],
    ['-name,name,slug', [desc('name'), asc('slug')]],
    ['-id,name', [desc('id')]],
    ['name,id,slug', [asc('name')]],
    ['name,-id,slug', [asc('name'), desc('id')]],
    ['name,id', [asc('name')]],
    ['id', []],
    ['id,name', []],
    ['-id', [desc('id')]],
    ['', []],
    [',', []],
    ['name,', [asc('name')]],
    [',,-logo_bg_color', [desc('logo_bg_color')]],
  ])('%j', (raw, expected) => {
    expect(parseOrdering(raw, event.orderingFields)).toEqual(expected);
  });
});

describe('formatOrdering', () => {
  it.each<[OrderTerm[], string]>([
    [[], ''],
    [[desc('id')], '-id'],
    [[desc('start_date'), asc('name')], '-start_date,name'],
  ])('%j → %j', (terms, expected) => {
    expect(formatOrdering(terms)).toBe(expected);
  });
});

describe('compareStrings: code-point order', () => {
  it.each<[string, string, -1 | 0 | 1]>([
    ['a', 'b', -1],
    ['b', 'a', 1],
    ['a', 'a', 0],
    ['', 'a', -1],
    ['ab', 'a', 1],
    ['B', 'a', -1],
    ['Z', 'é', -1],
    // U+FF21 (FULLWIDTH A) is below U+1D11E, though its UTF-16 unit is above the surrogates.
    ['\uff21', '𝄞', -1],
    ['𝄞', '\uff21', 1],
    ['\ufffd', '😀', -1],
    ['\ue000', '😀', -1],
    ['\ud7ff', '😀', -1],
    ['😀', '\uffff', 1],
    ['𝄞', '😀', -1],
    ['x😀', 'x\uff5e', 1],
  ])('%j vs %j', (a, b, sign) => {
    expect(Math.sign(compareStrings(a, b))).toBe(sign);
  });

  it('sorts a list the way Python sorted() does', () => {
    const list = ['😀', '\uffee', 'b', 'A', '\ue000', 'a', 'é', '𝄞', 'ab'];
    expect([...list].sort(compareStrings)).toEqual(['A', 'a', 'ab', 'b', 'é', '\ue000', '\uffee', '𝄞', '😀']);
  });
});

describe('compareValues', () => {
  it.each<[string | number | boolean | null, string | number | boolean | null, -1 | 0 | 1]>([
    [null, null, 0],
    [null, 'a', 1],
    ['a', null, -1],
    [null, 0, 1],
    [1, 2, -1],
    [10, 9, 1],
    [3, 3, 0],
    ['10', '9', -1],
    [false, true, -1],
  ])('%j vs %j', (a, b, sign) => {
    expect(Math.sign(compareValues(a, b))).toBe(sign);
  });
});

interface Row {
  id: number;
  name: string;
  logo: string | null;
  start_date: string;
}

const rows: Row[] = [
  { id: 4, name: 'b', logo: null, start_date: '2024-01-01' },
  { id: 2, name: 'a', logo: '/media/x.png', start_date: '2024-01-01' },
  { id: 3, name: 'b', logo: '/media/a.png', start_date: '2023-01-01' },
  { id: 1, name: 'c', logo: null, start_date: '2025-01-01' },
];
const ids = (sorted: Row[]) => sorted.map((r) => r.id);

describe('sortRecords', () => {
  it.each<[string, OrderTerm[], number[]]>([
    ['no terms: id ascending', [], [1, 2, 3, 4]],
    ['-id', [desc('id')], [4, 3, 2, 1]],
    ['name, ties by id', [asc('name')], [2, 3, 4, 1]],
    ['-name, ties still by id ascending', [desc('name')], [1, 3, 4, 2]],
    ['logo: nulls last ascending', [asc('logo')], [3, 2, 1, 4]],
    ['-logo: nulls first descending', [desc('logo')], [1, 4, 2, 3]],
    ['start_date, name', [asc('start_date'), asc('name')], [3, 2, 4, 1]],
    ['-start_date, -name', [desc('start_date'), desc('name')], [1, 4, 2, 3]],
    ['name, -start_date', [asc('name'), desc('start_date')], [2, 4, 3, 1]],
  ])('%s', (_label, terms, expected) => {
    expect(ids(sortRecords(rows, terms))).toEqual(expected);
  });

  it('does not touch the input', () => {
    const before = ids(rows);
    sortRecords(rows, [desc('id')]);
    expect(ids(rows)).toEqual(before);
  });

  it('sorts strings by code point, astral characters after U+FFxx', () => {
    const list = [
      { id: 1, name: '😀' },
      { id: 2, name: '\uff21' },
      { id: 3, name: 'Z' },
    ];
    expect(sortRecords(list, [asc('name')]).map((r) => r.id)).toEqual([3, 2, 1]);
  });

  it('uses the value accessor when given (companies: lower-cased name)', () => {
    const list = [
      { id: 1, name: 'beta' },
      { id: 2, name: 'Alpha' },
      { id: 3, name: 'alpha' },
      { id: 4, name: 'Zed' },
    ];
    const lower = (r: { id: number; name: string }, field: string) => (field === 'name' ? r.name.toLowerCase() : r.id);
    expect(sortRecords(list, [asc('name')], lower).map((r) => r.id)).toEqual([2, 3, 1, 4]);
    expect(sortRecords(list, [asc('name')]).map((r) => r.id)).toEqual([2, 4, 3, 1]);
  });
});

describe('descendingFrom', () => {
  const value = (field: keyof Row) => (r: Row) => r[field];

  it.each<keyof Row>(['id', 'name', 'logo', 'start_date'])(
    'gives what sortRecords gives for -%s, ties by id ascending, nulls first',
    (field) => {
      expect(ids(descendingFrom(sortRecords(rows, [asc(field)]), value(field)))).toEqual(
        ids(sortRecords(rows, [desc(field)])),
      );
    },
  );

  it('agrees with sortRecords on many random lists full of ties and nulls', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const list: Row[] = Array.from({ length: random(30) }, (_, i) => ({
        id: i * 7 + random(7),
        name: 'abc'[random(3)] as string,
        logo: random(3) === 0 ? null : `/media/${random(4)}.png`,
        start_date: '2024-01-01',
      }));
      for (const field of ['name', 'logo'] as const) {
        expect(ids(descendingFrom(sortRecords(list, [asc(field)]), value(field)))).toEqual(
          ids(sortRecords(list, [desc(field)])),
        );
      }
    }
  });

  it('does not touch its input, and gives an empty list for an empty one', () => {
    const ascending = sortRecords(rows, [asc('name')]);
    const before = ids(ascending);
    descendingFrom(ascending, value('name'));
    expect(ids(ascending)).toEqual(before);
    expect(descendingFrom([], value('name'))).toEqual([]);
  });
});

describe('orderByRanks', () => {
  // Five records at positions 0-4: their ids' ranks, and two fields' ranks (equal values one rank).
  const idRanks = Int32Array.from([3, 0, 4, 1, 2]);
  const city = Int32Array.from([1, 0, 1, 2, 0]);
  const name = Int32Array.from([0, 1, 1, 0, 1]);
  const all = Int32Array.from([0, 1, 2, 3, 4]);

  it('orders by the ranks, each term either way, ties by the id rank', () => {
    expect([...(orderByRanks(all, [{ ranks: city, descending: false }], idRanks) ?? [])]).toEqual([1, 4, 0, 2, 3]);
    expect([...(orderByRanks(all, [{ ranks: city, descending: true }], idRanks) ?? [])]).toEqual([3, 0, 2, 1, 4]);
    const both = [
      { ranks: name, descending: true },
      { ranks: city, descending: false },
    ];
    expect([...(orderByRanks(all, both, idRanks) ?? [])]).toEqual([1, 4, 2, 0, 3]);
    expect([...(orderByRanks(Int32Array.from([4, 0, 3]), both, idRanks) ?? [])]).toEqual([4, 0, 3]);
  });

  it('gives up, for sortRecords, where one number per record would pass 2^53', () => {
    const huge = Int32Array.from([2 ** 30, 0, 1, 2, 3]);
    expect(orderByRanks(all, [{ ranks: huge, descending: false }], idRanks)).not.toBeNull();
    const terms = [huge, huge].map((ranks) => ({ ranks, descending: false }));
    expect(orderByRanks(all, terms, idRanks)).toBeNull();
  });
});
