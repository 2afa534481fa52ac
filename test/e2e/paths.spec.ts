// [paths] docs/contract.md section 4: the slash redirect, 404 JSON for unknown paths, and no request
// URL ever reaching a file by its name (traversal, host files, the output's own file paths).
// Odd URLs go through raw node:http so they reach the server exactly as written.

import { API } from '../fixtures/sample.ts';
import { expect, test } from './fixtures.ts';
import { expectAnswer } from './lib/assert.ts';
import {
  INVALID_PAGE_BODY,
  NOT_FOUND_BODY,
  PAGINATED,
  TRAVERSALS,
  UNKNOWN_PATHS,
  withoutSlash,
} from './lib/contract.ts';

for (const { path } of API) {
  test(`[paths.slash-redirect] ${withoutSlash(path)} → 301 ${path}, keeping the query`, async ({ api }) => {
    for (const [from, to] of [
      [withoutSlash(path), path],
      [`${withoutSlash(path)}?x=1`, `${path}?x=1`],
      [`${withoutSlash(path)}?format=api&page=2`, `${path}?format=api&page=2`],
    ] as const) {
      const answer = await api.raw(from);
      expect.soft(answer.status, `${answer}`).toBe(301);
      expect.soft(answer.all('location'), `${answer}: Location`).toEqual([to]);
    }
  });
}

for (const url of UNKNOWN_PATHS) {
  test(`[paths.not-found] GET ${url} → 404 Not found`, async ({ api }) => {
    expectAnswer(await api.raw(url), 404, NOT_FOUND_BODY);
  });
}

// Django resolves the URL before the view checks the method.
test('[paths.not-found] POST /nope/ → 404 Not found, not 405', async ({ api }) => {
  expectAnswer(await api.raw('/nope/', { method: 'POST' }), 404, NOT_FOUND_BODY);
});

for (const url of TRAVERSALS) {
  test(`[paths.traversal] GET ${url} → 404 Not found`, async ({ api }) => {
    expectAnswer(await api.raw(url), 404, NOT_FOUND_BODY);
  });
}

// A Range or a conditional request asks about the representation; it must not change what
// an error answer is. The 404 stays a 404 with its whole body.
test('[paths.not-found] Range and If-None-Match do not turn a 404 into 206 or 304', async ({ api }) => {
  for (const url of ['/nope/', ...PAGINATED.map((list) => `${list.path}?page=9999`)]) {
    const plain = await api.get(url);
    const body = url === '/nope/' ? NOT_FOUND_BODY : INVALID_PAGE_BODY;
    expectAnswer(await api.get(url, { Range: 'bytes=0-5' }), 404, body, expect.soft);
    const etag = plain.header('etag');
    if (etag !== undefined) expectAnswer(await api.get(url, { 'If-None-Match': etag }), 404, body, expect.soft);
  }
});

// RFC 9112 section 3.2.2: a server MUST accept the absolute form of the request-target.
for (const { path } of API) {
  test(`[paths.absolute-form] GET http://127.0.0.1:<port>${path} is answered as ${path}`, async ({ api }) => {
    const expected = await api.get(path);
    const answer = await api.raw(`${api.origin}${path}`);
    expectAnswer(answer, 200, expected.text);
  });
}
