// [order] docs/contract.md section 6: the record order of each list, checked against the source data
// with the test's own comparators (lib/order.ts), not the project's sort code.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { expect, test } from './fixtures.ts';
import { TEXTURE_PATH } from './lib/contract.ts';
import { ids, sortBy } from './lib/order.ts';
import type { TexturePage } from './lib/site.ts';
import { REPO_ROOT } from './targets/process.ts';

async function source<T>(relative: string): Promise<T> {
  return JSON.parse(await readFile(path.join(REPO_ROOT, relative), 'utf8')) as T;
}

test('[order] companies: by name lower-cased (code points), ties by id', async ({ api }) => {
  const companies = (await api.get('/company/')).json<Array<{ id: number; name: string }>>();
  const data = await source<Array<{ id: number; name: string }>>('data/company/companies.json');
  // JavaScript's toLowerCase and Python's str.lower agree on the sample's names (İ → i̇ in both).
  const expected = sortBy(data, [{ value: (c) => c.name.toLowerCase() }, { value: (c) => c.id }]);
  expect(ids(companies)).toEqual(ids(expected));
});

test('[order] textures: by name (code points), ties by id, across all pages', async ({ api }) => {
  const first = (await api.get(TEXTURE_PATH)).json<TexturePage>();
  const results = [...first.results];
  for (let page = 2; results.length < first.count; page++) {
    const answer = await api.get(`${TEXTURE_PATH}?page=${page}`);
    expect(answer.status, `${answer}`).toBe(200);
    results.push(...answer.json<TexturePage>().results);
  }
  const files = await fg('data/virtualbooth-texture/**/*.json', { cwd: REPO_ROOT });
  const data = (await Promise.all(files.map((file) => source<unknown>(file)))).flat() as Array<{
    id: string;
    name: string;
  }>;
  const expected = sortBy(data, [{ value: (t) => t.name }, { value: (t) => t.id }]);
  expect(ids(results)).toEqual(ids(expected));
});

test('[order] virtual fairs: the order of the source data', async ({ api }) => {
  const fairs = (await api.get('/virtualfair/')).json<Array<{ id: number }>>();
  expect(ids(fairs)).toEqual(ids(await source<Array<{ id: number }>>('data/virtualfair/fairs.json')));
});

test('[order] events without ordering: id ascending', async ({ api }) => {
  const events = (await api.get('/event/')).json<Array<{ id: number }>>();
  const data = await source<Array<{ id: number }>>('data/event/events.json');
  expect(ids(events)).toEqual(ids(data).sort((a, b) => a - b));
});
