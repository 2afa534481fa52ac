// The requests of the differential fuzzer (test/e2e/fuzz.spec.ts): what an attacker and a
// careless client send. Every method, the declared lists' paths and their neighbours (no slash, dot
// segments, percent-escapes valid and malformed, raw non-ASCII bytes, long paths), queries with
// encoded, repeated and unknown keys, and the headers that change an answer: Range,
// If-None-Match, If-Modified-Since, Accept-Encoding with q-values, Accept. Seeded with
// fast-check, so a seed names the same requests on every machine.

import fc from 'fast-check';
import { API } from '../../fixtures/sample.ts';
import type { RawRequest } from './raw-http.ts';

const list = fc.constantFrom(...API.map((resource) => resource.path));

const method = fc.oneof(
  { weight: 12, arbitrary: fc.constant('GET') },
  { weight: 3, arbitrary: fc.constant('HEAD') },
  { weight: 3, arbitrary: fc.constant('OPTIONS') },
  { weight: 4, arbitrary: fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'TRACE') },
  // Well-formed methods no parser knows, and ones that are not tokens of upper-case letters.
  { weight: 2, arbitrary: fc.constantFrom('FOO', 'PROPFIND', 'M-SEARCH', 'LINK') },
  { weight: 1, arbitrary: fc.constantFrom('get', 'Get', 'G@T') },
);

/** Paths other than the four lists: each is an unknown path or a way of writing one of them. */
const oddPath = fc.oneof(
  list.map((p) => p.slice(0, -1)),
  list.map((p) => `/%${p.charCodeAt(1).toString(16)}${p.slice(2)}`),
  list.map((p) => `/%${p.charCodeAt(1).toString(16)}${p.slice(2, -1)}`),
  list.map((p) => `${p.slice(0, -1)}%2F`),
  list.chain((p) =>
    fc.constantFrom(`${p}.`, `${p}./`, `${p}..`, `/x/..${p}`, `/.${p}`, `/%2E%2E${p}`, `/%2e${p}`, `${p}%2e/`),
  ),
  fc.constantFrom('/', '//', '/nope/', '/Company/', '/company//', '/companies/', '/event/101/', '/company/extra/'),
  fc.constantFrom('/_headers', '/_redirects', '/company/index.json', '/_errors/not-found.json', '/_options/event.json'),
  fc.constantFrom(
    '/event/ordering=-id.json',
    '/../package.json',
    '/%2e%2e/package.json',
    '/company/..%2f..%2fpackage.json',
  ),
  fc.constantFrom('/%zz/', '/%g0/', '/%ff/', '/company/%zz', '/company/%', '/%E9/', '/caf%C3%A9/'),
  // Raw bytes above 0x7F (one char per byte: the request goes out as latin1).
  fc.constantFrom('/caf\xc3\xa9/', '/company/\xff', '/\xe2\x82\xac/'),
  fc.integer({ min: 200, max: 6000 }).map((n) => `/company/${'a'.repeat(n)}`),
);

const path = fc.oneof({ weight: 5, arbitrary: list }, { weight: 4, arbitrary: oddPath });

const EVENT_FIELD = fc.constantFrom('id', 'name', 'slug', 'start_date', 'end_date', 'logo', 'logo_bg_color');
const orderingValue = fc.oneof(
  EVENT_FIELD,
  EVENT_FIELD.map((f) => `-${f}`),
  EVENT_FIELD.map((f) => `%2D${f}`),
  fc.tuple(EVENT_FIELD, EVENT_FIELD).map(([a, b]) => `-${a},${b}`),
  fc.tuple(EVENT_FIELD, EVENT_FIELD).map(([a, b]) => `${a}%2C-${b}`),
  fc.constantFrom('', 'bogus', '-nope', 'name,bogus', '+name', '%20-id', '--id', 'NAME'),
);
const pageValue = fc.oneof(
  fc.integer({ min: 1, max: 4 }).map(String),
  fc.constantFrom('last', '0', '-1', 'abc', '2.0', '', '9999', '%202%20', '+2', '1_0', '01', '%EF%BC%92', '2%00'),
  fc.integer({ min: 20, max: 300 }).map((n) => '9'.repeat(n)),
);
const formatValue = fc.constantFrom('api', 'json', '', 'xml', 'API', 'json%00', 'js%6Fn', 'api%20');
const keyOf = (key: string) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(key) },
    // A key with one letter percent-encoded, as Django decodes it.
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 0, max: key.length - 1 })
        .map((i) => `${key.slice(0, i)}%${key.charCodeAt(i).toString(16)}${key.slice(i + 1)}`),
    },
    { weight: 1, arbitrary: fc.constant(key.toUpperCase()) },
  );

const param = fc.oneof(
  fc.tuple(keyOf('format'), formatValue),
  fc.tuple(keyOf('ordering'), orderingValue),
  fc.tuple(keyOf('page'), pageValue),
  fc.tuple(fc.constantFrom('x', 'y', 'a%5Bb%5D', '%FF', ''), fc.constantFrom('1', '', '%zz', 'a+b')),
);

const query = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  {
    weight: 5,
    arbitrary: fc
      .array(param, { minLength: 1, maxLength: 4 })
      .map((params) => `?${params.map(([k, v]) => `${k}=${v}`).join('&')}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('?', '?&', '?format', '?page', '?=1', `?x=${'b'.repeat(3000)}`) },
);

const header = fc.oneof(
  fc
    .constantFrom(
      'bytes=0-9',
      'bytes=-5',
      'bytes=5-',
      'bytes=abc',
      'bytes=0-1,5-6',
      'bytes=99999999-',
      'bytes=5-2',
      'items=0-1',
    )
    .map((v) => ['Range', v] as const),
  fc.constantFrom('*', '"x"', 'W/"x"', '"a", "b"').map((v) => ['If-None-Match', v] as const),
  fc
    .constantFrom('Thu, 01 Jan 2099 00:00:00 GMT', 'Thu, 01 Jan 1970 00:00:00 GMT', 'yesterday')
    .map((v) => ['If-Modified-Since', v] as const),
  fc
    .constantFrom('gzip', 'br', 'gzip, br', 'br;q=0, gzip;q=0.5', 'identity;q=0', '*', 'gzip;q=0', 'deflate')
    .map((v) => ['Accept-Encoding', v] as const),
  fc
    .constantFrom(
      'application/json',
      '*/*',
      'application/xml',
      'text/html',
      'application/*',
      'text/plain',
      'image/png, */*;q=0.1',
    )
    .map((v) => ['Accept', v] as const),
);

export const fuzzRequest: fc.Arbitrary<RawRequest> = fc
  .tuple(
    method,
    fc.oneof(
      { weight: 30, arbitrary: fc.tuple(path, query).map(([p, q]) => p + q) },
      { weight: 1, arbitrary: fc.constantFrom('*', 'http://127.0.0.1/company/') },
    ),
    fc.uniqueArray(header, { maxLength: 3, selector: ([name]) => name }),
  )
  .map(([m, target, headers]) => ({ method: m, target, headers }));

/** `count` requests from `seed`: the same list on every run with the same two numbers. */
export function fuzzRequests(seed: number, count: number): RawRequest[] {
  return fc.sample(fuzzRequest, { seed, numRuns: count });
}
