// [query] docs/contract.md section 5.2, query strings as Django's QueryDict reads them:
// percent-decoding, case-sensitive keys, the last of repeated keys, unknown keys ignored, page
// values as Python's int() reads them. Each case names the canonical URL whose answer it must
// equal, byte for byte. The suite's build gives the texture list settings, on which DRF's links
// keep an unknown key: filters.spec.ts ([filters.unknown-key]) checks them.

import { declares, missingList } from '../fixtures/sample.ts';
import { expect, test } from './fixtures.ts';
import { expectAnswer } from './lib/assert.ts';
import { INVALID_PAGE_BODY, TEXTURE_PATH } from './lib/contract.ts';

const T = TEXTURE_PATH;

const SAME: ReadonlyArray<readonly [url: string, same: string, why: string]> = [
  ['/event/?ordering=%2Did', '/event/?ordering=-id', 'percent-decoded'],
  ['/event/?ORDERING=-id', '/event/', 'keys are case-sensitive: default order'],
  ['/event/?ordering=-ID', '/event/', '-ID is not a field: default order'],
  ['/event/?ordering=name&ordering=-id', '/event/?ordering=-id', 'the last value wins'],
  ['/event/?x=1&ordering=-id', '/event/?ordering=-id', 'unknown keys are ignored'],
  ['/event/?ordering=%20-id', '/event/?ordering=-id', 'terms are stripped'],
  ['/event/?ordering=+-id', '/event/?ordering=-id', '+ is a space, stripped'],
  ['/event/?ordering=-start_date%2Cname', '/event/?ordering=-start_date,name', 'an encoded comma separates too'],
  ['/company/?x=1&y=%FF', '/company/', 'unknown keys are ignored'],
  ['/company/?format=xml&format=api', '/company/', 'the last format wins'],
  [`${T}?page=2&page=3`, `${T}?page=3`, 'the last value wins'],
  [`${T}?page=02`, `${T}?page=2`, "int('02') is 2"],
  [`${T}?page=%202`, `${T}?page=2`, "int(' 2') is 2"],
  [`${T}?page=%2B2`, `${T}?page=2`, "int('+2') is 2"],
  [`${T}?page=2%0A`, `${T}?page=2`, "int('2\\n') is 2"],
  // Python's int() reads any Unicode decimal digit: '２' (U+FF12) is 2.
  [`${T}?page=%EF%BC%92`, `${T}?page=2`, "int('\\uff12') is 2"],
];

/** The name of the list a URL asks (`/event/?x` → event). */
const listOf = (url: string) => url.split('/')[1] as string;

for (const [url, same, why] of SAME) {
  test(`[query] ${url} answers as ${same} (${why})`, async ({ api }) => {
    test.skip(!declares(listOf(url)), missingList(listOf(url)));
    const expected = await api.get(same);
    expect(expected.status, `${expected}`).toBe(200);
    expectAnswer(await api.get(url), 200, expected.text);
  });
}

// Python's int() strips only what str.isspace() calls whitespace; U+FEFF is not.
test(`[query] ${T}?page=%EF%BB%BF2 → 404 Invalid page (int('\\ufeff2') fails)`, async ({ api }) => {
  test.skip(!declares(listOf(T)), missingList(listOf(T)));
  expectAnswer(await api.get(`${T}?page=%EF%BB%BF2`), 404, INVALID_PAGE_BODY);
});
