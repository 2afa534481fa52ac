// scripts/contract/routes.ts: the route table. File names of canonical requests, the list of files
// a build plans, and how a request (method + raw URL) is answered, in DRF's order: the path
// (APPEND_SLASH, 404), `format`, the method, then ordering and pagination. The tables written out
// here are the trade-fair catalogue's; what holds for every route holds for the run's declarations.

import { describe, expect, it } from 'vitest';
import { type Answer, fileFor, planRoutes, requestOf, resolve } from '../../scripts/contract/routes.ts';
import { API, CATALOGUE } from '../fixtures/sample.ts';

describe('fileFor', () => {
  it.each<[string, Record<string, string>, string]>([
    ['/company/', {}, 'company/index.json'],
    ['/event/', {}, 'event/index.json'],
    ['/event/', { ordering: '-id' }, 'event/ordering=-id.json'],
    ['/event/', { ordering: 'start_date' }, 'event/ordering=start_date.json'],
    ['/virtualbooth-texture/', { page: '2' }, 'virtualbooth-texture/page=2.json'],
    ['/virtualbooth-texture/', { page: 'last', format: 'api' }, 'virtualbooth-texture/format=api/page=last.json'],
    ['/virtualbooth-texture/', { format: 'json' }, 'virtualbooth-texture/format=json.json'],
  ])('%s %j → %s', (path, query, expected) => {
    expect(fileFor(path, query)).toBe(expected);
  });
});

const COMMON = [
  'company/index.json',
  'virtualfair/index.json',
  'event/index.json',
  'event/ordering=-id.json',
  'event/ordering=name.json',
  'event/ordering=-name.json',
  'event/ordering=slug.json',
  'event/ordering=-slug.json',
  'event/ordering=start_date.json',
  'event/ordering=-start_date.json',
  'event/ordering=end_date.json',
  'event/ordering=-end_date.json',
  'event/ordering=logo.json',
  'event/ordering=-logo.json',
  'event/ordering=logo_bg_color.json',
  'event/ordering=-logo_bg_color.json',
];

describe('requestOf', () => {
  it("reads every route's file back to the route's request, keys in the file's (sorted) order", () => {
    for (const route of planRoutes(4, API)) {
      const keys = Object.keys(route.query).sort();
      const search = keys.map((key) => `${key}=${route.query[key]}`).join('&');
      expect(requestOf(route.file, API)).toBe(search ? `${route.path}?${search}` : route.path);
    }
  });

  it.each([
    '_headers',
    '_redirects',
    '_errors/not-found.json',
    '_options/company.json',
    'nope/index.json',
    'event/x.json',
  ])('is undefined for %s, which is no list file', (file) => {
    expect(requestOf(file, API)).toBeUndefined();
  });
});

describe('planRoutes', () => {
  it('plans the files of a one-page texture list', () => {
    expect(planRoutes(1, CATALOGUE).map((r) => r.file)).toEqual([
      ...COMMON,
      'virtualbooth-texture/index.json',
      'virtualbooth-texture/page=last.json',
      'virtualbooth-texture/format=api.json',
      'virtualbooth-texture/format=api/page=last.json',
      'virtualbooth-texture/format=json.json',
      'virtualbooth-texture/format=json/page=last.json',
    ]);
  });

  it('plans the files of a three-page texture list', () => {
    expect(planRoutes(3, CATALOGUE).map((r) => r.file)).toEqual([
      ...COMMON,
      'virtualbooth-texture/index.json',
      'virtualbooth-texture/page=last.json',
      'virtualbooth-texture/page=2.json',
      'virtualbooth-texture/page=3.json',
      'virtualbooth-texture/format=api.json',
      'virtualbooth-texture/format=api/page=last.json',
      'virtualbooth-texture/format=api/page=2.json',
      'virtualbooth-texture/format=api/page=3.json',
      'virtualbooth-texture/format=json.json',
      'virtualbooth-texture/format=json/page=last.json',
      'virtualbooth-texture/format=json/page=2.json',
      'virtualbooth-texture/format=json/page=3.json',
    ]);
  });

  it('gives each route its resource, path and canonical query', () => {
    const routes = planRoutes(2, CATALOGUE);
    expect(routes.find((r) => r.file === 'event/ordering=-start_date.json')).toEqual({
      resource: 'event',
      path: '/event/',
      query: { ordering: '-start_date' },
      file: 'event/ordering=-start_date.json',
    });
    expect(routes.find((r) => r.file === 'virtualbooth-texture/format=api/page=2.json')).toEqual({
      resource: 'virtualbooth-texture',
      path: '/virtualbooth-texture/',
      query: { format: 'api', page: '2' },
      file: 'virtualbooth-texture/format=api/page=2.json',
    });
  });

  // What the host files rely on (targets/redirects.ts, fileAnswer): a route's own request is
  // answered by its file, in whatever order its query keys are written.
  it('answers each route with its own file, its query in any key order', () => {
    for (const route of planRoutes(4, API)) {
      const entries = Object.entries(route.query);
      for (const order of [entries, [...entries].reverse()]) {
        const search = new URLSearchParams(order).toString();
        expect(resolve('GET', `${route.path}${search ? `?${search}` : ''}`, API)).toMatchObject({
          kind: 'file',
          status: 200,
          file: route.file,
        });
      }
    }
  });

  it('names every file once', () => {
    const files = planRoutes(4, API).map((r) => r.file);
    expect(new Set(files).size).toBe(files.length);
  });
});

const file = (name: string): Answer => ({ kind: 'file', status: 200, file: name });
const page = (name: string): Answer => ({ kind: 'file', status: 200, file: name, ifMissing: INVALID_PAGE });
const NOT_FOUND: Answer = { kind: 'file', status: 404, file: '_errors/not-found.json' };
const INVALID_PAGE: Answer = { kind: 'file', status: 404, file: '_errors/invalid-page.json' };
const redirect = (location: string): Answer => ({ kind: 'redirect', status: 301, location });
const notAllowed = (method: string): Answer => ({ kind: 'not-allowed', status: 405, method });

describe('resolve', () => {
  it.each<[string, string, Answer]>([
    // the four paths
    ['GET', '/company/', file('company/index.json')],
    ['GET', '/virtualfair/', file('virtualfair/index.json')],
    ['GET', '/event/', file('event/index.json')],
    ['GET', '/virtualbooth-texture/', page('virtualbooth-texture/index.json')],
    ['HEAD', '/company/', file('company/index.json')],
    ['GET', '/%63ompany/', file('company/index.json')],
    // APPEND_SLASH
    ['GET', '/company', redirect('/company/')],
    ['GET', '/company?x=1', redirect('/company/?x=1')],
    ['GET', '/event?ordering=-id&format=api', redirect('/event/?ordering=-id&format=api')],
    ['GET', '/virtualbooth-texture?page=2', redirect('/virtualbooth-texture/?page=2')],
    ['GET', '/company?', redirect('/company/')],
    ['POST', '/company', redirect('/company/')],
    // unknown paths
    ['GET', '/', NOT_FOUND],
    ['GET', '/companies/', NOT_FOUND],
    ['GET', '/Company/', NOT_FOUND],
    ['GET', '/company/1/', NOT_FOUND],
    ['GET', '/company//', NOT_FOUND],
    ['GET', '/company/index.json', NOT_FOUND],
    ['GET', '/_errors/not-found.json', NOT_FOUND],
    ['GET', '/company/../event/', NOT_FOUND],
    ['GET', '/../company/', NOT_FOUND],
    ['GET', '/%2e%2e/company/', NOT_FOUND],
    ['GET', '/company/%2e%2e/%2e%2e/etc/passwd', NOT_FOUND],
    ['GET', '/company/%E0%A4%A', NOT_FOUND],
    ['OPTIONS', '/nowhere/', NOT_FOUND],
    ['POST', '/nowhere/', NOT_FOUND],
    // format
    ['GET', '/company/?format=api', file('company/index.json')],
    ['GET', '/company/?format=json', file('company/index.json')],
    ['GET', '/company/?format=', file('company/index.json')],
    ['GET', '/company/?format=xml', NOT_FOUND],
    ['GET', '/event/?format=API', NOT_FOUND],
    ['GET', '/virtualbooth-texture/?format=', page('virtualbooth-texture/index.json')],
    ['GET', '/virtualbooth-texture/?format=html&page=2', NOT_FOUND],
    ['OPTIONS', '/company/?format=xml', NOT_FOUND],
    ['POST', '/event/?format=xml', NOT_FOUND],
    // methods
    ['OPTIONS', '/company/', file('_options/company.json')],
    ['OPTIONS', '/virtualfair/', file('_options/virtualfair.json')],
    ['OPTIONS', '/event/?ordering=-id', file('_options/event.json')],
    ['OPTIONS', '/virtualbooth-texture/?page=abc', file('_options/virtualbooth-texture.json')],
    ['POST', '/company/', notAllowed('POST')],
    ['PUT', '/event/', notAllowed('PUT')],
    ['DELETE', '/virtualfair/', notAllowed('DELETE')],
    ['PATCH', '/virtualbooth-texture/?page=abc', notAllowed('PATCH')],
    ['PROPFIND', '/company/', notAllowed('PROPFIND')],
    // event ordering
    ['GET', '/event/?ordering=-id', file('event/ordering=-id.json')],
    ['GET', '/event/?ordering=name', file('event/ordering=name.json')],
    ['GET', '/event/?ordering=-start_date&format=api', file('event/ordering=-start_date.json')],
    ['GET', '/event/?ordering=id', file('event/index.json')],
    ['GET', '/event/?ordering=bogus', file('event/index.json')],
    ['GET', '/event/?ordering=', file('event/index.json')],
    ['GET', '/event/?ordering=%2Did', file('event/ordering=-id.json')],
    // `+` in a query is a space (as Django decodes it), so `+name` is ` name`; `%2B` is a plus.
    ['GET', '/event/?ordering=+name', file('event/ordering=name.json')],
    ['GET', '/event/?ordering=%2Bname', file('event/index.json')],
    ['GET', '/event/?ordering=%20name%20', file('event/ordering=name.json')],
    ['GET', '/event/?ORDERING=-id', file('event/index.json')],
    ['GET', '/event/?ordering=bogus,-slug', file('event/ordering=-slug.json')],
    ['GET', '/event/?ordering=name,id', file('event/ordering=name.json')],
    ['GET', '/event/?ordering=-id,name', file('event/ordering=-id.json')],
    [
      'GET',
      '/event/?ordering=-start_date,name',
      {
        kind: 'sorted',
        status: 200,
        file: 'event/index.json',
        terms: [
          { field: 'start_date', descending: true },
          { field: 'name', descending: false },
        ],
      },
    ],
    ['GET', '/company/?ordering=-id', file('company/index.json')],
    ['GET', '/event/?page=abc', file('event/index.json')],
    // texture pages
    ['GET', '/virtualbooth-texture/?page=1', page('virtualbooth-texture/index.json')],
    ['GET', '/virtualbooth-texture/?page=2', page('virtualbooth-texture/page=2.json')],
    ['GET', '/virtualbooth-texture/?page=02', page('virtualbooth-texture/page=2.json')],
    ['GET', '/virtualbooth-texture/?page=+2', page('virtualbooth-texture/page=2.json')],
    ['GET', '/virtualbooth-texture/?page=%2B2', page('virtualbooth-texture/page=2.json')],
    ['GET', '/virtualbooth-texture/?page=1_0', page('virtualbooth-texture/page=10.json')],
    ['GET', '/virtualbooth-texture/?page=last', page('virtualbooth-texture/page=last.json')],
    ['GET', '/virtualbooth-texture/?page=999', page('virtualbooth-texture/page=999.json')],
    ['GET', '/virtualbooth-texture/?page=abc', INVALID_PAGE],
    ['GET', '/virtualbooth-texture/?page=0', INVALID_PAGE],
    ['GET', '/virtualbooth-texture/?page=-1', INVALID_PAGE],
    ['GET', '/virtualbooth-texture/?page=2.0', INVALID_PAGE],
    ['GET', '/virtualbooth-texture/?page=', INVALID_PAGE],
    ['HEAD', '/virtualbooth-texture/?page=abc', INVALID_PAGE],
    ['GET', '/virtualbooth-texture/?format=api', page('virtualbooth-texture/format=api.json')],
    ['GET', '/virtualbooth-texture/?format=api&page=1', page('virtualbooth-texture/format=api.json')],
    ['GET', '/virtualbooth-texture/?page=3&format=json', page('virtualbooth-texture/format=json/page=3.json')],
    ['GET', '/virtualbooth-texture/?format=api&page=last', page('virtualbooth-texture/format=api/page=last.json')],
    ['GET', '/virtualbooth-texture/?ordering=-id&page=2', page('virtualbooth-texture/page=2.json')],
    // repeated keys: the last value wins
    ['GET', '/event/?ordering=-id&ordering=name', file('event/ordering=name.json')],
    ['GET', '/event/?ordering=name&ordering=', file('event/index.json')],
    ['GET', '/virtualbooth-texture/?page=2&page=3', page('virtualbooth-texture/page=3.json')],
    ['GET', '/virtualbooth-texture/?page=abc&page=2', page('virtualbooth-texture/page=2.json')],
    ['GET', '/virtualbooth-texture/?page=2&page=abc', INVALID_PAGE],
    ['GET', '/company/?format=xml&format=api', file('company/index.json')],
    ['GET', '/company/?format=api&format=xml', NOT_FOUND],
  ])('%s %s', (method, url, expected) => {
    expect(resolve(method, url, CATALOGUE)).toEqual(expected);
  });
});
