// [pages] docs/contract.md section 5.4, DRF's PageNumberPagination on every paginated list (the
// catalogue's /virtualbooth-texture/): the whole next/previous chain, page=last, and the values DRF
// answers with 404 "Invalid page.".

import { expect, test } from './fixtures.ts';
import { expectAnswer } from './lib/assert.ts';
import { INVALID_PAGE_BODY, PAGE_SIZE, PAGINATED } from './lib/contract.ts';
import type { Answer, Client } from './lib/http.ts';
import { type Page, pageLinkOf } from './lib/site.ts';

/** Follows `link` from `start`, requesting each absolute link's path and query from the target. */
async function walk(
  api: Client,
  baseUrl: string,
  listPath: string,
  start: string,
  link: 'next' | 'previous',
): Promise<Answer[]> {
  const answers: Answer[] = [];
  let url: string | null = start;
  const seen = new Set<string>();
  while (url !== null) {
    // A link back to a page already seen (a host that ignores ?page=) would loop until the timeout.
    expect(seen.has(url), `the chain does not loop: ${url}`).toBe(false);
    seen.add(url);
    const answer = await api.get(url);
    expect(answer.status, `${answer}`).toBe(200);
    answers.push(answer);
    expect(answers.length, 'the chain ends').toBeLessThan(1000);
    const target = answer.json<Page>()[link];
    if (target !== null) expect(target.startsWith(`${baseUrl}${listPath}`), `${answer}: ${link} ${target}`).toBe(true);
    url = target === null ? null : target.slice(baseUrl.length);
  }
  return answers;
}

for (const { path: T } of PAGINATED) {
  for (const format of [undefined, 'api']) {
    const query = format ? `?format=${format}` : '';
    test(`[pages] ${T} next/previous chain from page 1${format ? ` with format=${format}` : ''}`, async ({
      site,
      api,
    }) => {
      const forward = await walk(api, site.baseUrl, T, `${T}${query}`, 'next');
      const pages = forward.map((answer) => answer.json<Page>());
      const last = pages.length;
      expect(last, 'the list has a second page').toBeGreaterThan(1);
      const count = pages[0]?.count as number;
      expect(
        pages.reduce((sum, page) => sum + page.results.length, 0),
        'count is the sum of the pages',
      ).toBe(count);
      const allIds = pages.flatMap((page) => page.results.map((t) => t.id));
      expect(new Set(allIds).size, 'no record twice').toBe(allIds.length);
      pages.forEach((page, index) => {
        const n = index + 1;
        expect.soft(page.count, `page ${n}: count`).toBe(count);
        expect.soft(page.results.length, `page ${n}: size`).toBe(n < last ? PAGE_SIZE : count - PAGE_SIZE * (last - 1));
        expect.soft(page.next, `page ${n}: next`).toBe(n < last ? pageLinkOf(site.baseUrl, T, n + 1, format) : null);
        expect
          .soft(page.previous, `page ${n}: previous`)
          .toBe(n > 1 ? pageLinkOf(site.baseUrl, T, n - 1, format) : null);
      });
      // The two links docs/contract.md section 5.4 writes out.
      expect(pages[0]?.next).toBe(`${site.baseUrl}${T}?${format ? `format=${format}&` : ''}page=2`);
      expect(pages[1]?.previous).toBe(`${site.baseUrl}${T}${query}`);

      // Back from the last page by `previous`: the same pages, byte for byte.
      const backward = await walk(
        api,
        site.baseUrl,
        T,
        `${T}?${format ? `format=${format}&` : ''}page=${last}`,
        'previous',
      );
      expect(backward.reverse().map((a) => a.text)).toEqual(forward.map((a) => a.text));
      // page=last is the last page; page=1 is the first.
      const sep = query ? '&' : '?';
      expect((await api.get(`${T}${query}${sep}page=last`)).text).toBe(forward[last - 1]?.text);
      expect((await api.get(`${T}${query}${sep}page=1`)).text).toBe(forward[0]?.text);
    });
  }
}

/** The page after the last, computed from `count` and the page size. */
const BEYOND_LAST = 'one beyond the last';
const INVALID = ['0', '-1', 'abc', '2.0', '', BEYOND_LAST, '99999999999999999999', 'LAST', '1.5'];

for (const { path: T } of PAGINATED) {
  for (const value of INVALID) {
    test(`[pages.invalid] ${T}?page=${value} → 404 Invalid page`, async ({ api }) => {
      const { count } = (await api.get(T)).json<Page>();
      const page = value === BEYOND_LAST ? String(Math.ceil(count / PAGE_SIZE) + 1) : value;
      for (const prefix of ['', 'format=api&']) {
        expectAnswer(await api.get(`${T}?${prefix}page=${page}`), 404, INVALID_PAGE_BODY, expect.soft);
      }
    });
  }
}
