// The handler's answer to a filtered, searched or ordered list, made from the parts in blocks:
// the same bytes as the records' texts joined in the asked order, whichever parts hold them, a
// record longer than a block included, and each block made as it is asked for.

import { describe, expect, it } from 'vitest';
import { filterMatcher } from '../../scripts/contract/filters.ts';
import { encodePlain } from '../../scripts/contract/json.ts';
import { sortRecords } from '../../scripts/contract/ordering.ts';
import { type QuerySettings, readListQuery } from '../../scripts/contract/query.ts';
import { searchField } from '../../scripts/contract/search.ts';
import { bodyBytes, createHandler, type FileStore } from '../../scripts/respond/handler.ts';
import type { ChunkedBody } from '../../scripts/store/body.ts';
import { writeRecords } from '../../scripts/store/writer.ts';
import { API } from '../fixtures/sample.ts';
import { searchMatcher } from './helpers/record-match.ts';

const SETTINGS: QuerySettings = {
  filters: [{ field: 'city', kind: 'text' }],
  search: [searchField('name')],
  ordering: ['name', 'city'],
  prerendered: [],
};
const COMPANY = {
  ...(API.find(({ name }) => name === 'company') as (typeof API)[number]),
  query: SETTINGS,
};

interface Company {
  id: number;
  name: string;
  city: string | null;
}

/** 2,500 companies in three parts, by name: one whose name is longer than a block, some cities null. */
function catalogue(): Company[] {
  const cities = ['Roma', 'Zürich', 'Kyōto', null, 'Aachen'];
  const companies = Array.from({ length: 2500 }, (_, index) => ({
    id: (index * 7919) % 10007,
    name: `${['Alpha', 'beta', 'Gamma', 'ßeta', '東京'][index % 5]} ${'x'.repeat(index % 300)} ${index % 13}`,
    city: cities[index % 5] ?? null,
  }));
  (companies[1234] as Company).name = `Long ${'a'.repeat(300 * 1024)}`;
  return sortRecords(companies, [{ field: 'name', descending: false }]);
}

/** The build's `_records/company/` for these companies, as a store the handler reads. */
function store(companies: readonly Company[]): FileStore<never> {
  const files = writeRecords(
    { name: 'company', orderingFields: [], query: SETTINGS },
    companies.map((company) => encodePlain(company as never)),
    companies,
    { pageSize: 10, baseUrl: 'http://127.0.0.1:8000' },
  );
  const encoder = new TextEncoder();
  return {
    async open(file) {
      const text = files.get(file);
      if (text === undefined) return null;
      return {
        etag: async () => null,
        text: async () => text,
        bytes: async () => encoder.encode(text),
        body: undefined as never,
      };
    },
  };
}

describe('an answer made of the parts', () => {
  const companies = catalogue();
  const files = store(companies);
  const handler = createHandler([], [COMPANY]);

  it.each([
    '/company/?ordering=-name',
    '/company/?ordering=city,-name',
    '/company/?search=a',
    '/company/?search=ss&ordering=-city',
    '/company/?city=Z%C3%BCrich&ordering=name',
    '/company/?search=nothing',
  ])('%s: the records asked for, in the asked order, in blocks', async (url) => {
    const search = url.split('?')[1] as string;
    const query = readListQuery(COMPANY, new Map(new URLSearchParams(search)), search);
    if (query === undefined) throw new Error(`${url} is no query`);
    const matches = (company: Company) =>
      filterMatcher(query.conditions)(company as never) &&
      searchMatcher(query.terms, SETTINGS.search)(company as never);
    // Without an ordering, the list's own order: the parts'.
    const selected = companies.filter(matches);
    const expected = `[${(query.ordering.length > 0 ? sortRecords(selected, query.ordering) : selected)
      .map((company) => encodePlain(company as never))
      .join(',')}]`;
    const reply = await handler.answer({ method: 'GET', url }, files);
    expect(reply.status).toBe(200);
    const body = (reply as { body: ChunkedBody }).body;
    const chunks = [...body.chunks()];
    const got = Buffer.from(bodyBytes(body)).toString('utf8');
    // Where the answer first differs, rather than two answers of a megabyte each.
    let differs = 0;
    while (differs < got.length && got[differs] === expected[differs]) differs++;
    expect(got.slice(Math.max(0, differs - 40), differs + 40)).toBe(
      expected.slice(Math.max(0, differs - 40), differs + 40),
    );
    expect(got.length).toBe(expected.length);
    expect(body.length).toBe(Buffer.byteLength(expected));
    expect(chunks.reduce((sum, chunk) => sum + chunk.length, 0)).toBe(body.length);
    // Blocks of at most 256 KiB, but for the record that is longer alone.
    const longer = chunks.filter((chunk) => chunk.length > 256 * 1024);
    expect(longer.length).toBeLessThanOrEqual(1);
    for (const chunk of longer) expect(Buffer.from(chunk).toString('utf8')).toMatch(/^\{"id":\d+,"name":"Long a+"/);
  });

  it('gives each block a buffer of its own, which the next does not overwrite', async () => {
    const reply = await handler.answer({ method: 'GET', url: '/company/?ordering=-city' }, files);
    const chunks = (reply as { body: ChunkedBody }).body.chunks()[Symbol.iterator]();
    const first = chunks.next().value as Uint8Array;
    const copy = first.slice();
    const second = chunks.next().value as Uint8Array;
    expect(second.buffer).not.toBe(first.buffer);
    expect(Buffer.from(first).equals(copy)).toBe(true);
  });
});

describe('an answer of a list without records', () => {
  it.each(['/company/?search=a', '/company/?city=Roma', '/company/?ordering=-name'])('%s: []', async (url) => {
    const reply = await createHandler([], [COMPANY]).answer({ method: 'GET', url }, store([]));
    expect(reply.status).toBe(200);
    expect(Buffer.from(bodyBytes((reply as { body: ChunkedBody }).body)).toString('utf8')).toBe('[]');
  });
});
