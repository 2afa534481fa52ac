// scripts/contract/pagination.ts: DRF's PageNumberPagination on Django's Paginator: which page a
// `?page=` value names (Python int() rules), the number of pages, and the absolute
// next/previous links (keys sorted, values form-encoded), checked against literal URLs.

import { describe, expect, it } from 'vitest';
import { buildUrl, pageCount, pageLinks, parsePage, quotePlus } from '../../scripts/contract/pagination.ts';

describe('parsePage', () => {
  it.each<[string, string | null]>([
    ['1', '1'],
    ['2', '2'],
    ['02', '2'],
    ['002', '2'],
    [' 2 ', '2'],
    ['\t3\n', '3'],
    ['\u00a02', '2'],
    ['+2', '2'],
    ['1_0', '10'],
    ['1_000', '1000'],
    ['last', 'last'],
    ['99999999999999999999', '99999999999999999999'],
    // Python's int() reads decimal digits of every script, and strips its own whitespace set.
    ['\uff12', '2'],
    ['\u0661\u0662', '12'],
    ['\u{1d7d8}\u{1d7d9}', '1'],
    ['2\x85', '2'],
    ['\x1c2', null],
    ['\ufeff2', null],
    ['\u0660', null],
    ['0', null],
    ['00', null],
    ['-0', null],
    ['+0', null],
    ['-1', null],
    ['abc', null],
    ['2.0', null],
    ['2e1', null],
    ['0x2', null],
    ['', null],
    [' ', null],
    ['1__0', null],
    ['_1', null],
    ['1_', null],
    ['++2', null],
    ['Last', null],
    [' last', null],
    ['last ', null],
  ])('%j → %j', (raw, expected) => {
    expect(parsePage(raw)).toBe(expected);
  });
});

describe('pageCount', () => {
  it.each<[number, number, number]>([
    [0, 10, 1],
    [1, 10, 1],
    [9, 10, 1],
    [10, 10, 1],
    [11, 10, 2],
    [20, 10, 2],
    [21, 10, 3],
    [54, 10, 6],
    [3, 1, 3],
  ])('%i items, %i per page → %i pages', (count, size, expected) => {
    expect(pageCount(count, size)).toBe(expected);
  });
});

describe('quotePlus (Python urllib.parse.quote_plus)', () => {
  it.each<[string, string]>([
    ['api', 'api'],
    ['a,b', 'a%2Cb'],
    ['a b', 'a+b'],
    ['-start_date', '-start_date'],
    ['a.b~c_d', 'a.b~c_d'],
    ['a+b', 'a%2Bb'],
    ['a/b', 'a%2Fb'],
    ['a&b=c', 'a%26b%3Dc'],
    ['100%', '100%25'],
    ["!'()*", '%21%27%28%29%2A'],
    ['é', '%C3%A9'],
    ['東', '%E6%9D%B1'],
  ])('%j → %j', (text, expected) => {
    expect(quotePlus(text)).toBe(expected);
  });
});

const BASE = 'https://api.example.com';
const PATH = '/virtualbooth-texture/';

describe('buildUrl', () => {
  it.each<[Record<string, string>, string]>([
    [{}, 'https://api.example.com/virtualbooth-texture/'],
    [{ page: '2' }, 'https://api.example.com/virtualbooth-texture/?page=2'],
    [{ page: '2', format: 'api' }, 'https://api.example.com/virtualbooth-texture/?format=api&page=2'],
    [
      { zeta: 'z', page: '3', alpha: 'a,b c' },
      'https://api.example.com/virtualbooth-texture/?alpha=a%2Cb+c&page=3&zeta=z',
    ],
    [{ 'a key': '1' }, 'https://api.example.com/virtualbooth-texture/?a+key=1'],
  ])('%j', (query, expected) => {
    expect(buildUrl(BASE, PATH, query)).toBe(expected);
  });

  it('keeps a path prefix of the base URL', () => {
    expect(buildUrl('https://example.com/api', PATH, { page: '2' })).toBe(
      'https://example.com/api/virtualbooth-texture/?page=2',
    );
  });
});

describe('pageLinks', () => {
  it.each<[string, Record<string, string>, number, number, string | null, string | null]>([
    ['page 1 of 3', {}, 1, 3, 'https://api.example.com/virtualbooth-texture/?page=2', null],
    [
      'page 2 of 3: previous drops page',
      {},
      2,
      3,
      'https://api.example.com/virtualbooth-texture/?page=3',
      'https://api.example.com/virtualbooth-texture/',
    ],
    ['page 3 of 3: last page has no next', {}, 3, 3, null, 'https://api.example.com/virtualbooth-texture/?page=2'],
    ['empty list: page 1 of 1', {}, 1, 1, null, null],
    [
      'format=api, page 1 of 3',
      { format: 'api' },
      1,
      3,
      'https://api.example.com/virtualbooth-texture/?format=api&page=2',
      null,
    ],
    [
      'format=api, page 2 of 3',
      { format: 'api' },
      2,
      3,
      'https://api.example.com/virtualbooth-texture/?format=api&page=3',
      'https://api.example.com/virtualbooth-texture/?format=api',
    ],
    [
      'format=json, page 2 of 2',
      { format: 'json' },
      2,
      2,
      null,
      'https://api.example.com/virtualbooth-texture/?format=json',
    ],
  ])('%s', (_label, query, page, pages, next, previous) => {
    expect(pageLinks(BASE, PATH, query, page, pages)).toEqual({ next, previous });
  });
});
