// [order] docs/contract.md section 6: the record order of each list, checked against the source data
// with the test's own comparators (lib/order.ts), not the project's sort code.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import type { OrderKey } from '../../scripts/contract/resources/resource.ts';
import { API, CATALOGUE, declares, missingList, SAMPLE_DATA } from '../fixtures/sample.ts';
import { expect, test } from './fixtures.ts';
import { TEXTURE_PATH } from './lib/contract.ts';
import type { Client } from './lib/http.ts';
import { ids, sortBy, type Value } from './lib/order.ts';
import type { Page } from './lib/site.ts';

/** A file of the sample's data (`company/companies.json`). */
async function source<T>(relative: string): Promise<T> {
  return JSON.parse(await readFile(path.join(SAMPLE_DATA, relative), 'utf8')) as T;
}

/** Every record of a list's folder in the sample's data, whatever its files. */
async function records<T>(name: string): Promise<T[]> {
  const files = await fg(`${name}/**/*.json`, { cwd: SAMPLE_DATA });
  return (await Promise.all(files.map((file) => source<T | T[]>(file)))).flat() as T[];
}

/** Every record a paginated list answers, page after page. */
async function allPages<T>(api: Client, listPath: string): Promise<T[]> {
  const first = (await api.get(listPath)).json<Page>();
  const results = [...first.results];
  for (let page = 2; results.length < first.count; page++) {
    const answer = await api.get(`${listPath}?page=${page}`);
    expect(answer.status, `${answer}`).toBe(200);
    results.push(...answer.json<Page>().results);
  }
  return results as T[];
}

test('[order] companies: by name lower-cased (code points), ties by id', async ({ api }) => {
  test.skip(!declares('company'), missingList('company'));
  const companies = (await api.get('/company/')).json<Array<{ id: number; name: string }>>();
  const data = await records<{ id: number; name: string }>('company');
  // JavaScript's toLowerCase and Python's str.lower agree on the sample's names (İ → i̇ in both).
  const expected = sortBy(data, [{ value: (c) => c.name.toLowerCase() }, { value: (c) => c.id }]);
  expect(ids(companies)).toEqual(ids(expected));
});

test('[order] textures: by name (code points), ties by id, across all pages', async ({ api }) => {
  test.skip(!declares('virtualbooth-texture'), missingList('virtualbooth-texture'));
  const results = await allPages<{ id: string; name: string }>(api, TEXTURE_PATH);
  const data = await records<{ id: string; name: string }>('virtualbooth-texture');
  const expected = sortBy(data, [{ value: (t) => t.name }, { value: (t) => t.id }]);
  expect(ids(results)).toEqual(ids(expected));
});

test('[order] virtual fairs: the order of the source data', async ({ api }) => {
  test.skip(!declares('virtualfair'), missingList('virtualfair'));
  const fairs = (await api.get('/virtualfair/')).json<Array<{ id: number }>>();
  expect(ids(fairs)).toEqual(ids(await source<Array<{ id: number }>>('virtualfair/fairs.json')));
});

test('[order] events without ordering: id ascending', async ({ api }) => {
  test.skip(!declares('event'), missingList('event'));
  const events = (await api.get('/event/')).json<Array<{ id: number }>>();
  const data = await records<{ id: number }>('event');
  expect(ids(events)).toEqual(ids(data).sort((a, b) => a - b));
});

// A list that only a fixture API declares has no order written out here: its declaration, which
// the fixture writes (not the project), says it, and the records come from the sample's data.
for (const list of API.filter((resource) => !(CATALOGUE as readonly unknown[]).includes(resource))) {
  test(`[order] ${list.path}: by its declared order (code points), ties by id, across all pages`, async ({ api }) => {
    type Row = Record<string, Value> & { id: string | number };
    const answered = list.paginated ? await allPages<Row>(api, list.path) : (await api.get(list.path)).json<Row[]>();
    const data = await records<Row>(list.name);
    const order: readonly OrderKey[] | 'source' = list.order;
    const expected =
      order === 'source'
        ? data
        : sortBy(data, [
            ...order.map(({ field, descending, ignoreCase }) => ({
              value: (row: Row) => {
                const value = row[field] ?? null;
                return ignoreCase && typeof value === 'string' ? value.toLowerCase() : value;
              },
              descending,
            })),
            { value: (row: Row) => row.id },
          ]);
    expect(ids(answered)).toEqual(ids(expected));
  });
}
