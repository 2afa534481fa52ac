// [headers] docs/contract.md section 2: every answer of a list path carries the six API headers,
// each exactly once with exactly the contract's value (a duplicate or a charset is a failure).

import { API } from '../fixtures/sample.ts';
import { expect, test } from './fixtures.ts';
import { expectApiHeaders, varyBesidesEncoding } from './lib/assert.ts';
import { PAGINATED, withoutSlash } from './lib/contract.ts';
import { urlOf } from './lib/site.ts';

for (const { name, path } of API) {
  test(`[headers] GET every route of ${path}: 200 answers`, async ({ site, api }) => {
    const routes = site.build.routes.filter((route) => route.resource === name);
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) {
      const answer = await api.get(urlOf(route));
      expect.soft(answer.status, `${answer}`).toBe(200);
      expectApiHeaders(answer, expect.soft);
    }
  });

  test(`[headers] OPTIONS ${path}`, async ({ api }) => {
    expectApiHeaders(await api.fetch(path, { method: 'OPTIONS' }));
  });

  test(`[headers] POST ${path}: the 405 answer`, async ({ api }) => {
    const answer = await api.fetch(path, { method: 'POST' });
    expect(answer.status).toBe(405);
    expectApiHeaders(answer);
  });

  test(`[headers] GET ${path}?format=xml: the 404 answer`, async ({ api }) => {
    const answer = await api.get(`${path}?format=xml`);
    expect(answer.status).toBe(404);
    expectApiHeaders(answer);
  });

  test(`[headers.redirect] GET ${withoutSlash(path)}: the 301 answer`, async ({ api }) => {
    const answer = await api.get(withoutSlash(path));
    expect(answer.status).toBe(301);
    expect(answer.all('location')).toEqual([path]);
    expectApiHeaders(answer);
  });
}

test('[headers] 404 answers: unknown path and invalid page', async ({ api }) => {
  for (const url of ['/nope/', ...PAGINATED.map((list) => `${list.path}?page=0`)]) {
    const answer = await api.get(url);
    expect.soft(answer.status, `${answer}`).toBe(404);
    expectApiHeaders(answer, expect.soft);
  }
});

// A cache revalidating its copy must get Vary (and the validator) again on the 304, or it
// may serve the stored answer to a request with another Accept (RFC 9110 section 15.4.5).
test('[headers.not-modified] If-None-Match with the current ETag: a 304 keeps ETag and Vary', async ({ api }) => {
  for (const { path } of API) {
    const first = await api.get(path);
    const etag = first.header('etag');
    // Without a validator there is nothing to revalidate: the answer must then be a full 200.
    const answer = await api.get(path, etag === undefined ? {} : { 'If-None-Match': etag });
    expect.soft([200, 304], `${answer}`).toContain(answer.status);
    if (answer.status === 304) {
      expect.soft(answer.all('etag'), `${answer}: ETag`).toEqual([etag as string]);
      expect.soft(varyBesidesEncoding(answer), `${answer}: Vary`).toEqual(['Accept']);
      expect.soft(answer.body.length, `${answer}: body`).toBe(0);
    } else expectApiHeaders(answer, expect.soft);
  }
});
