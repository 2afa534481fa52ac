// The handler answers a filter of `prerendered_filters` from the file the build wrote for it,
// read as it is, where it would otherwise decode the filter's column: the request the Cloudflare
// worker then answers within the free plan's CPU time at any size. Any other query, and a value no
// record holds (no file), is answered from the records as before.

import { describe, expect, it } from 'vitest';
import { encodePlain } from '../../scripts/contract/json.ts';
import type { QuerySettings } from '../../scripts/contract/query.ts';
import { prerenderedFilterFile } from '../../scripts/contract/routes.ts';
import { bodyBytes, createHandler, type FileStore } from '../../scripts/respond/handler.ts';
import type { ChunkedBody } from '../../scripts/store/body.ts';
import { writeRecords } from '../../scripts/store/writer.ts';
import { API } from '../fixtures/sample.ts';

const SETTINGS: QuerySettings = {
  filters: [
    { field: 'city', kind: 'text' },
    { field: 'id', kind: 'integer' },
  ],
  search: [],
  ordering: [],
  prerendered: ['city', 'id'],
};
const COMPANY = { ...(API.find(({ name }) => name === 'company') as (typeof API)[number]), query: SETTINGS };
const TEXTURE = {
  ...(API.find(({ name }) => name === 'virtualbooth-texture') as (typeof API)[number]),
  query: { ...SETTINGS, filters: [{ field: 'name', kind: 'text' as const }], prerendered: ['name'] },
};

const companies = [
  { id: 1, name: 'Alpha', city: 'Roma' },
  { id: 2, name: 'Beta', city: 'Milano' },
  { id: 3, name: 'Gamma', city: 'Roma' },
];
/** What the build wrote for Roma: a file the test can tell from an answer made of the records. */
const ROMA_FILE = 'company/_filters/city/_52oma/index.json';
const ROMA_BYTES = '[{"from":"the file"}]';

/** The build's `_records/company/` and Roma's file, as a store that notes each file opened. */
function store(opened: string[]): FileStore<string> {
  const files = writeRecords(
    { name: 'company', orderingFields: [], query: SETTINGS },
    companies.map((company) => encodePlain(company)),
    companies,
    { pageSize: 10, baseUrl: 'http://127.0.0.1:8000' },
  );
  files.set(ROMA_FILE, ROMA_BYTES);
  return {
    async open(file) {
      opened.push(file);
      const text = files.get(file);
      if (text === undefined) return null;
      return { etag: async () => '"roma"', text: async () => text, body: text };
    },
  };
}

const handler = createHandler([], [COMPANY, TEXTURE]);

describe('a filter of prerendered_filters', () => {
  it('is answered from its file, with its validator, and no column is read', async () => {
    const opened: string[] = [];
    const reply = await handler.answer({ method: 'GET', url: '/company/?city=Roma' }, store(opened));
    expect(reply.status).toBe(200);
    expect('file' in reply && reply.file.body).toBe(ROMA_BYTES);
    expect(reply.headers.ETag).toBe('"roma"');
    expect(opened).toEqual([ROMA_FILE]);
    const again = await handler.answer({ method: 'GET', url: '/company/?city=Roma', ifNoneMatch: '"roma"' }, store([]));
    expect(again.status).toBe(304);
  });

  it('of a value no record holds, or with anything else, is answered from the records', async () => {
    for (const url of ['/company/?city=Napoli', '/company/?city=Roma&id=1']) {
      const opened: string[] = [];
      const reply = await handler.answer({ method: 'GET', url }, store(opened));
      expect(reply.status, url).toBe(200);
      expect(
        opened.some((file) => file.includes('/value-city/')),
        url,
      ).toBe(true);
      const body = 'body' in reply ? new TextDecoder().decode(bodyBytes(reply.body as ChunkedBody)) : '';
      expect(JSON.parse(body), url).toEqual(url.includes('id=1') ? [companies[0]] : []);
    }
  });

  it('names no file on a list with pages, whose links repeat the request as it was written', () => {
    const query = { resource: TEXTURE.name, conditions: [{ field: 'name', kind: 'text' as const, equals: 'Oak' }] };
    const read = { ...query, errors: null, terms: [], ordering: [], page: undefined, search: 'name=Oak' };
    expect(prerenderedFilterFile(TEXTURE, read)).toBeUndefined();
    expect(
      prerenderedFilterFile(COMPANY, {
        ...read,
        resource: 'company',
        conditions: [{ field: 'id', kind: 'integer', equals: '12' }],
      }),
    ).toBe('company/_filters/id/12/index.json');
  });
});
