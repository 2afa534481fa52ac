// [format] docs/contract.md section 5.1: `format=api` and `format=json` answer the same JSON as no
// format (DRF's browsable API is not rendered), any other value is 404 Not found.

import { API, declares, missingList } from '../fixtures/sample.ts';
import { expect, test } from './fixtures.ts';
import { expectAnswer } from './lib/assert.ts';
import { NOT_FOUND_BODY, PAGE_SIZE, PAGINATED, TEXTURE_PATH } from './lib/contract.ts';
import { type Page, pageLinkOf } from './lib/site.ts';

/** Lists whose body does not depend on the request URL (a page holds links to it). */
const PLAIN = API.filter((r) => !r.paginated);

for (const { path } of PLAIN) {
  test(`[format] ${path}?format=api, ?format=json and ?format=: the bytes of ${path}`, async ({ api }) => {
    const plain = await api.get(path);
    expect(plain.status).toBe(200);
    for (const query of ['format=api', 'format=json', 'format=']) {
      const answer = await api.get(`${path}?${query}`);
      expect.soft(answer.status, `${answer}`).toBe(200);
      expect.soft(answer.body.equals(plain.body), `${answer}: body`).toBe(true);
    }
  });
}

test('[format] /event/?ordering=-start_date&format=api: the bytes without format', async ({ api }) => {
  test.skip(!declares('event'), missingList('event'));
  const plain = await api.get('/event/?ordering=-start_date');
  for (const url of ['/event/?ordering=-start_date&format=api', '/event/?format=json&ordering=-start_date']) {
    const answer = await api.get(url);
    expect.soft(answer.status, `${answer}`).toBe(200);
    expect.soft(answer.body.equals(plain.body), `${answer}: body`).toBe(true);
  }
});

// An empty value is no override (Django's QueryDict gives '', which DRF treats as absent). The
// links of a list with settings keep `format=` as DRF's do: filters.spec.ts checks them.
for (const { path } of PAGINATED) {
  test(`[format] ${path}?format= and ?format=&page=2: the page without format`, async ({ api }) => {
    for (const [url, same] of [
      [`${path}?format=`, path],
      [`${path}?format=&page=2`, `${path}?page=2`],
    ] as const) {
      const answer = await api.get(url);
      expect.soft(answer.status, `${answer}`).toBe(200);
      const { count, results } = (await api.get(same)).json<Page>();
      expect.soft(answer.json<Page>(), `${answer}`).toMatchObject({ count, results });
    }
  });

  for (const format of ['api', 'json']) {
    test(`[format.links] ${path} pages with format=${format}: same results, links keep format=${format}`, async ({
      site,
      api,
    }) => {
      const { count } = (await api.get(path)).json<Page>();
      const last = Math.ceil(count / PAGE_SIZE);
      expect(last, 'the list has a second page').toBeGreaterThan(1);
      const link = (n: number) => pageLinkOf(site.baseUrl, path, n, format);
      for (const page of [1, 2]) {
        const suffix = page === 1 ? '' : `&page=${page}`;
        const answer = await api.get(`${path}?format=${format}${suffix}`);
        const plain = (await api.get(`${path}${page === 1 ? '' : `?page=${page}`}`)).json<Page>();
        expect(answer.status, `${answer}`).toBe(200);
        const body = answer.json<Page>();
        expect.soft(body.count).toBe(plain.count);
        expect.soft(body.results).toEqual(plain.results);
        expect.soft(body.next, `${answer}: next`).toBe(page < last ? link(page + 1) : null);
        expect.soft(body.previous, `${answer}: previous`).toBe(page === 1 ? null : link(page - 1));
      }
    });
  }
}

for (const format of ['api', 'json']) {
  // Written out once, as docs/contract.md section 5.1 shows it.
  test(`[format.links] ${TEXTURE_PATH}?format=${format}: the next link as the contract writes it`, async ({
    site,
    api,
  }) => {
    test.skip(!declares('virtualbooth-texture'), missingList('virtualbooth-texture'));
    const first = (await api.get(`${TEXTURE_PATH}?format=${format}`)).json<Page>();
    expect(first.next).toBe(`${site.baseUrl}/virtualbooth-texture/?format=${format}&page=2`);
  });
}

for (const { path } of API) {
  test(`[format.unknown] ${path}?format=xml → 404 Not found, whatever the method`, async ({ api }) => {
    for (const method of ['GET', 'OPTIONS', 'POST']) {
      expectAnswer(await api.fetch(`${path}?format=xml`, { method }), 404, NOT_FOUND_BODY, expect.soft);
    }
  });
}
