// [body] docs/contract.md section 1: every route of the build's route table answers with the exact
// bytes of its built file, and those bytes are what DRF's JSONRenderer writes.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { API, declares, missingList, SAMPLE_DATA } from '../fixtures/sample.ts';
import { expect, test } from './fixtures.ts';
import { expectAnswer } from './lib/assert.ts';
import {
  FIELDS,
  INVALID_PAGE_BODY,
  INVALID_PAGE_URL,
  NOT_FOUND_BODY,
  PAGINATED,
  TEXTURE_PATH,
} from './lib/contract.ts';
import { pythonJson } from './lib/pyjson.ts';
import { urlOf } from './lib/site.ts';

type Row = Record<string, unknown>;

for (const { name, path: listPath } of API) {
  test(`[body] GET every route of ${listPath}: the built file's exact bytes`, async ({ site, api }) => {
    const routes = site.build.routes.filter((route) => route.resource === name);
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) {
      const answer = await api.get(urlOf(route));
      expect.soft(answer.status, `${answer}`).toBe(200);
      const built = await readFile(path.join(site.publicDir, route.file));
      expect.soft(answer.body.equals(built), `${answer}: body differs from ${route.file}`).toBe(true);
    }
  });

  // Compact separators, raw non-ASCII, escaped U+2028/U+2029, Python floats, no newline at the end.
  test(`[body] GET ${listPath}: written as DRF's JSONRenderer writes it`, async ({ api }) => {
    const answer = await api.get(listPath);
    expect(answer.status).toBe(200);
    expect(answer.text.endsWith('\n')).toBe(false);
    expect(answer.text).toBe(pythonJson(answer.json()));
  });

  // Contract section 2: several ranges are ignored, so no client gets a multipart answer.
  test(`[body] GET ${listPath} with several ranges: the whole list, 200`, async ({ site, api }) => {
    const built = await readFile(path.join(site.publicDir, `${listPath.slice(1)}index.json`));
    const answer = await api.get(listPath, { Range: 'bytes=0-0,5-9' });
    expect(answer.status, `${answer}`).toBe(200);
    expect(answer.header('content-range'), `${answer}`).toBeUndefined();
    expect(answer.body.equals(built), `${answer}: body differs from the list's file`).toBe(true);
  });
}

const keys = (row: unknown) => Object.keys(row as Row);

// The description's tables are the trade-fair catalogue's: each list's test runs where the run declares it.
test('[body] company fields in the order of the description table', async ({ api }) => {
  test.skip(!declares('company'), missingList('company'));
  for (const company of (await api.get('/company/')).json<Row[]>()) expect.soft(keys(company)).toEqual(FIELDS.company);
});

test('[body] event fields in the order of the description table', async ({ api }) => {
  test.skip(!declares('event'), missingList('event'));
  for (const event of (await api.get('/event/')).json<Row[]>()) expect.soft(keys(event)).toEqual(FIELDS.event);
});

test('[body] virtual fair fields in the order of the description tables', async ({ api }) => {
  test.skip(!declares('virtualfair'), missingList('virtualfair'));
  for (const fair of (await api.get('/virtualfair/')).json<Row[]>()) {
    expect.soft(keys(fair)).toEqual(FIELDS.fair);
    for (const event of fair.events as Row[]) expect.soft(keys(event)).toEqual(FIELDS.fairEvent);
    expect.soft(keys(fair.tiles)).toEqual(FIELDS.tiles);
    expect.soft(keys(fair.size)).toEqual(FIELDS.size);
    expect.soft(keys(fair.zoom)).toEqual(FIELDS.zoom);
  }
});

test('[body] texture fields in the order of the description tables', async ({ api }) => {
  test.skip(!declares('virtualbooth-texture'), missingList('virtualbooth-texture'));
  const page = (await api.get(TEXTURE_PATH)).json<Row>();
  expect.soft(keys(page)).toEqual(FIELDS.envelope);
  for (const texture of page.results as Row[]) expect.soft(keys(texture)).toEqual(FIELDS.texture);
});

// Every paginated list answers in DRF's envelope.
for (const { path: listPath } of PAGINATED) {
  test(`[body] ${listPath}: a page is DRF's envelope`, async ({ api }) => {
    expect(keys((await api.get(listPath)).json<Row>())).toEqual(FIELDS.envelope);
  });
}

// Literal pieces of the shipped sample, so the encoding is checked on known text.
test('[body] non-ASCII is written raw, U+2028 as the escape \\u2028', async ({ api }) => {
  test.skip(!declares('company'), missingList('company'));
  const text = (await api.get('/company/')).text;
  expect(text).toContain('"name":"Vogelsang Oberflächentechnik GmbH"');
  expect(text).toContain('"name":"東京精密工業 株式会社"');
  expect(text).toContain('"street":"Hafenstraße 12\\u2028Gebäude B"');
  expect(text).not.toContain('\u2028');
  // The only \u escapes are the two line separators.
  expect(text.match(/\\u(?!202[89])[0-9a-fA-F]{4}/g)).toBeNull();
});

test('[body] translation_factor_7 is a Python float: 2.0, 4.5 or null', async ({ api }) => {
  test.skip(!declares('virtualfair'), missingList('virtualfair'));
  const text = (await api.get('/virtualfair/')).text;
  const values = [...text.matchAll(/"translation_factor_7":([^,}]*)/g)].map((m) => m[1]);
  const fairs = JSON.parse(await readFile(path.join(SAMPLE_DATA, 'virtualfair/fairs.json'), 'utf8')) as Array<{
    zoom: { translation_factor_7: number | null };
  }>;
  expect(values).toEqual(
    fairs.map((f) => (f.zoom.translation_factor_7 === null ? 'null' : f.zoom.translation_factor_7.toFixed(1))),
  );
  expect(new Set(values)).toEqual(new Set(['2.0', '4.5', 'null']));
});

test('[body] the 404 and invalid-page bodies', async ({ api }) => {
  expectAnswer(await api.get('/nope/'), 404, NOT_FOUND_BODY);
  if (INVALID_PAGE_URL !== undefined) expectAnswer(await api.get(INVALID_PAGE_URL), 404, INVALID_PAGE_BODY);
});
