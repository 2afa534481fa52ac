// [methods] docs/contract.md section 3: HEAD is GET without the body, OPTIONS answers DRF's metadata,
// every other method gets 405 naming the method, all with the section 2 headers.

import { API } from '../fixtures/sample.ts';
import { expect, test } from './fixtures.ts';
import { comparableHeaders, expectAnswer } from './lib/assert.ts';
import { notAllowedBody, optionsBody, REJECTED_METHODS } from './lib/contract.ts';
import { urlOf } from './lib/site.ts';

/** Answers besides the route table's 200s whose HEAD must match too (a request-time sort, 404s). */
function extraUrls({ path, orderingFields, paginated }: (typeof API)[number]): string[] {
  const [first, second] = orderingFields;
  return [
    ...(first !== undefined && second !== undefined ? [`${path}?ordering=-${first},${second}`] : []),
    ...(paginated ? [`${path}?page=0`, `${path}?page=9999`] : []),
  ];
}

for (const list of API) {
  const { name, path } = list;
  test(`[methods.head] HEAD of every route of ${path}: GET's status and headers, no body`, async ({ site, api }) => {
    const urls = [
      ...site.build.routes.filter((route) => route.resource === name).map(urlOf),
      ...extraUrls(list),
      `${path}?format=xml`,
    ];
    for (const url of urls) {
      const get = await api.get(url);
      const head = await api.fetch(url, { method: 'HEAD' });
      expect.soft(head.status, `${head}`).toBe(get.status);
      // Includes Content-Length: HEAD announces the length GET sends.
      expect.soft(comparableHeaders(head), `${head}: headers`).toEqual(comparableHeaders(get));
      expect.soft(head.body.length, `${head}: body`).toBe(0);
    }
  });

  test(`[methods.options] OPTIONS ${path}: 200 with DRF's metadata`, async ({ api }) => {
    expectAnswer(await api.fetch(path, { method: 'OPTIONS' }), 200, optionsBody(list));
  });

  for (const method of REJECTED_METHODS) {
    test(`[methods.not-allowed] ${method} ${path}: 405 naming the method`, async ({ api }) => {
      expectAnswer(await api.fetch(path, { method }), 405, notAllowedBody(method));
    });
  }
}
