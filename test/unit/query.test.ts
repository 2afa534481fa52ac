// contract/query.ts: the reading of a list request and the page links. The records it is answered
// from: store.test.ts.

import { describe, expect, it } from 'vitest';
import { linkQuery } from '../../scripts/contract/query.ts';
import { resolve } from '../../scripts/contract/routes.ts';
import { API } from '../fixtures/sample.ts';
import { LIST, read } from './helpers/company-query.ts';

const PAGED = { ...LIST, name: 'texture', paginated: true };

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
