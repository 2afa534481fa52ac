// [filters] docs/contract.md section 5.5 and docs/filters.md: the filters, search and orderings
// of test/e2e/static-api.config.json (the fixtures build with it). Each request's answer is
// worked out here from the plain list (lib/filters.ts) and is never the plain list itself. The
// targets with code answer every one as DRF does; nginx, Caddy and Apache answer a filter of
// prerendered_filters alone and refuse the rest with 400 and the unsupported-query body, which
// the `documented` fixture makes the test assert instead (expectations.ts, DOCUMENTED);
// cloudflare-pages-static, which the build refuses with these settings, runs without them.

import { declares, missingList } from '../fixtures/sample.ts';
import { expect, test } from './fixtures.ts';
import { expectAnswer } from './lib/assert.ts';
import { INVALID_PAGE_BODY, PAGE_SIZE, TEXTURE_PATH, UNSUPPORTED_QUERY_BODY } from './lib/contract.ts';
import { ordered, pageLink, pageText, type Row, searched } from './lib/filters.ts';
import type { Client } from './lib/http.ts';
import { pythonJson } from './lib/pyjson.ts';

const COMPANY = '/company/';
const T = TEXTURE_PATH;
// The search fields of the settings file, written out again: a change there must change the test.
const COMPANY_SEARCH = ['name', '^city', '=zip_code'];
const TEXTURE_SEARCH = ['name'];

/** A list's records in their default order: the company list, or every texture page in turn. */
async function plainRecords(api: Client, path: string): Promise<Row[]> {
  const first = await api.get(path);
  expect(first.status, `${first}`).toBe(200);
  if (path !== T) return first.json<Row[]>();
  const { count, results } = first.json<{ count: number; results: Row[] }>();
  const rows = [...results];
  for (let page = 2; page <= Math.ceil(count / PAGE_SIZE); page++) {
    rows.push(...(await api.get(`${T}?page=${page}`)).json<{ results: Row[] }>().results);
  }
  return rows;
}

interface Expected {
  status: number;
  body: string;
}

/** What DRF answers to `url`, from the list's records; `pick` filters, searches and orders them. */
type Case = [url: string, answer: (rows: Row[], baseUrl: string) => Expected];

/** The answer of a list: the rows themselves, or, on the texture list, their page of the request. */
function listAnswer(path: string, pick: (rows: Row[]) => Row[]): Case[1] {
  return (rows, baseUrl) => ({ status: 200, body: listText(path, pick(rows), baseUrl, {}, 1) as string });
}

function listText(
  path: string,
  rows: Row[],
  baseUrl: string,
  params: Parameters<typeof pageLink>[2],
  page: number | 'last',
): string | null {
  if (path !== T) return pythonJson(rows);
  return pageText(rows, PAGE_SIZE, page, (n) => pageLink(baseUrl, path, params, n));
}

/** `/company/` → company: the settings file's cases are of the catalogue's lists, each run where it is declared. */
const listName = (path: string) => path.slice(1, -1);

const is = (field: string, value: unknown) => (rows: Row[]) => rows.filter((row) => row[field] === value);
const error =
  (body: string): Case[1] =>
  () => ({ status: 400, body });

/**
 * The request's path and decoded parameters: `params` as Django's QueryDict reads them (the last
 * value wins), `pairs` each as it came, as DRF's page links keep them.
 */
function parts(url: string): { path: string; params: Record<string, string>; pairs: Array<[string, string]> } {
  const [path = '', query = ''] = url.split('?');
  const pairs = [...new URLSearchParams(query)];
  return { path, params: Object.fromEntries(pairs), pairs };
}

/** A paginated answer of the texture list for `url`, its links keeping every parameter of the request. */
function texturePage(url: string, pick: (rows: Row[]) => Row[]): Case {
  const { path, params } = parts(url);
  const page = params.page === 'last' ? 'last' : Number(params.page ?? 1);
  return [
    url,
    (rows, baseUrl) => {
      const text = listText(path, pick(rows), baseUrl, params, page);
      return text === null ? { status: 404, body: INVALID_PAGE_BODY } : { status: 200, body: text };
    },
  ];
}

const CASES: Readonly<Record<string, readonly Case[]>> = {
  'filters.prerendered': [
    [`${COMPANY}?country_name=Italy`, listAnswer(COMPANY, is('country_name', 'Italy'))],
    [`${COMPANY}?country_name=United+Kingdom`, listAnswer(COMPANY, is('country_name', 'United Kingdom'))],
    [`${COMPANY}?country_name=United%20Kingdom`, listAnswer(COMPANY, is('country_name', 'United Kingdom'))],
    [`${COMPANY}?platform_plus_status=true`, listAnswer(COMPANY, is('platform_plus_status', true))],
    [`${COMPANY}?platform_plus_status=False`, listAnswer(COMPANY, is('platform_plus_status', false))],
    [`${T}?name=Oak+Parquet`, listAnswer(T, is('name', 'Oak Parquet'))],
    texturePage(`${T}?name=Oak%20Parquet&page=last`, is('name', 'Oak Parquet')),
    [`${T}?name=%E5%92%8C%E7%B4%99%20Washi%20Paper`, listAnswer(T, is('name', '和紙 Washi Paper'))],
  ],
  filters: [
    [`${COMPANY}?city=Detroit`, listAnswer(COMPANY, is('city', 'Detroit'))],
    [
      `${COMPANY}?country_name=Germany&platform_plus_status=true`,
      listAnswer(COMPANY, (rows) => is('platform_plus_status', true)(is('country_name', 'Germany')(rows))),
    ],
    [`${COMPANY}?country_name=Atlantis`, listAnswer(COMPANY, () => [])],
    [`${COMPANY}?id=%2B0128`, listAnswer(COMPANY, is('id', 128))],
    [`${T}?name=oak+parquet`, listAnswer(T, () => [])],
    [`${T}?id=10FC2CE5-89D5-4DE8-A36E-83D34163C076`, listAnswer(T, is('id', '10fc2ce5-89d5-4de8-a36e-83d34163c076'))],
  ],
  'filters.invalid': [
    [`${COMPANY}?id=abc`, error('{"id":["Enter a number."]}')],
    [`${COMPANY}?country_name=Italy&id=12x`, error('{"id":["Enter a number."]}')],
    [`${T}?id=nope`, error('{"id":["Enter a valid UUID."]}')],
    [`${T}?id=nope&page=99`, error('{"id":["Enter a valid UUID."]}')],
  ],
  'filters.search': [
    [`${COMPANY}?search=gmbh`, listAnswer(COMPANY, (rows) => searched(rows, 'gmbh', COMPANY_SEARCH))],
    [`${COMPANY}?search=det`, listAnswer(COMPANY, (rows) => searched(rows, 'det', COMPANY_SEARCH))],
    [`${COMPANY}?search=48226`, listAnswer(COMPANY, (rows) => searched(rows, '48226', COMPANY_SEARCH))],
    [
      `${COMPANY}?search=lasertechnik+gmbh`,
      listAnswer(COMPANY, (rows) => searched(rows, 'lasertechnik gmbh', COMPANY_SEARCH)),
    ],
    [`${COMPANY}?search=Z%C3%9CR`, listAnswer(COMPANY, (rows) => searched(rows, 'ZÜR', COMPANY_SEARCH))],
    [`${T}?search=carpet`, listAnswer(T, (rows) => searched(rows, 'carpet', TEXTURE_SEARCH))],
  ],
  'filters.ordering': [
    [`${COMPANY}?ordering=-name`, listAnswer(COMPANY, (rows) => ordered(rows, '-name'))],
    [`${COMPANY}?ordering=city`, listAnswer(COMPANY, (rows) => ordered(rows, 'city'))],
    [`${COMPANY}?ordering=-city,name`, listAnswer(COMPANY, (rows) => ordered(rows, '-city,name'))],
    texturePage(`${T}?ordering=-name`, (rows) => ordered(rows, '-name')),
  ],
  'filters.combined': [
    [
      `${COMPANY}?country_name=Germany&search=technik&ordering=-city`,
      listAnswer(COMPANY, (rows) =>
        ordered(searched(is('country_name', 'Germany')(rows), 'technik', COMPANY_SEARCH), '-city'),
      ),
    ],
    [
      `${COMPANY}?platform_plus_status=true&ordering=name`,
      listAnswer(COMPANY, (rows) => ordered(is('platform_plus_status', true)(rows), 'name')),
    ],
    texturePage(`${T}?search=steel&ordering=-name`, (rows) =>
      ordered(searched(rows, 'steel', TEXTURE_SEARCH), '-name'),
    ),
  ],
  'filters.pages': [
    texturePage(`${T}?search=a&page=2`, (rows) => searched(rows, 'a', TEXTURE_SEARCH)),
    texturePage(`${T}?search=a&page=last&ordering=-name`, (rows) =>
      ordered(searched(rows, 'a', TEXTURE_SEARCH), '-name'),
    ),
    texturePage(`${T}?format=json&page=2&search=a`, (rows) => searched(rows, 'a', TEXTURE_SEARCH)),
    texturePage(`${T}?search=a&page=99`, (rows) => searched(rows, 'a', TEXTURE_SEARCH)),
  ],
};

for (const [rule, cases] of Object.entries(CASES)) {
  for (const [url, answer] of cases) {
    test(`[${rule}] ${url}`, async ({ site, api, documented }) => {
      const { path } = parts(url);
      test.skip(!declares(listName(path)), missingList(listName(path)));
      const rows = await plainRecords(api, path);
      const expected = answer(rows, site.baseUrl);
      // The test means something only where the answer is not the list as it is.
      expect(expected.body, 'the expected answer is not the plain list').not.toBe(
        listText(path, rows, site.baseUrl, {}, 1),
      );
      const got = await api.get(url);
      if (documented === 'regex-refuses-query') expectAnswer(got, 400, UNSUPPORTED_QUERY_BODY);
      else expectAnswer(got, expected.status, expected.body);
    });
  }
}

// Section 5.5: on a paginated list with settings DRF's links keep every parameter, unknown ones,
// an empty one and each value of a repeated one too; the targets without code answer from the
// page's file, whose links keep the last `format` if it is not empty (expectations.ts, DOCUMENTED).
for (const url of [
  `${T}?x=1&page=2`,
  `${T}?page=2&zzz=1&format=api`,
  `${T}?format=&page=2`,
  `${T}?format=json&format=api&page=2`,
]) {
  test(`[filters.unknown-key] ${url}: the links keep the query as it came`, async ({ site, api, documented }) => {
    const { path, params, pairs } = parts(url);
    test.skip(!declares(listName(path)), missingList(listName(path)));
    const rows = await plainRecords(api, path);
    const known: Record<string, string> = params.format ? { format: params.format } : {};
    const keep = documented === 'static-links-drop-unknown' ? known : pairs;
    expectAnswer(await api.get(url), 200, listText(path, rows, site.baseUrl, keep, 2) as string);
  });
}
