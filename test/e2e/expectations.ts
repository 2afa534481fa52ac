// The one place that says which rules a target is known not to meet. Every test title starts
// with a rule id (`[pages.invalid] ...`); the auto fixture in fixtures.ts looks the id up here
// and marks the test with test.fail(true, reason): the assertions stay exactly as strict, the
// run stays green while the target fails, and turns red if the target starts to pass (then
// delete the entry). Never skip a test or loosen an assertion for a target.

import { TRAVERSALS, UNKNOWN_PATHS } from './lib/contract.ts';

/** Rule ids, grouped by the prefix before the dot. The README table is target × rule. */
export const RULES = {
  headers: 'Section 2 headers, exactly once each, on 200, 404, 405 and OPTIONS answers',
  'headers.redirect': 'Section 2 headers on the 301 slash redirect',
  'headers.not-modified': 'A 304 answer to If-None-Match keeps ETag and Vary: Accept (RFC 9110 15.4.5)',
  body: 'Exact bytes of every built route; DRF JSON encoding; the error bodies',
  'methods.head': 'HEAD: status and headers of GET, no body',
  'methods.options': 'OPTIONS: 200 with DRF metadata body',
  'methods.not-allowed': 'POST/PUT/PATCH/DELETE: 405 with body and headers',
  'paths.slash-redirect': 'A list path without its slash: 301 to the slash, query kept',
  'paths.not-found': 'Unknown paths: 404 {"detail":"Not found."}',
  'paths.traversal': 'Traversal and file paths never reach a file: 404 Not found',
  'paths.absolute-form': 'An absolute-form request-target (RFC 9112 3.2.2) is answered as its path',
  format: 'format=api, format=json and an empty format give the same JSON',
  'format.unknown': 'Any other format: 404 Not found',
  'format.links': 'Texture page links keep the format',
  ordering: 'Event ordering by one field, ascending and descending',
  'ordering.multi': 'Event ordering by several comma-separated fields',
  'ordering.invalid': 'Invalid ordering terms dropped; none left: default order',
  pages: 'Texture pagination: page=N, page=last, next/previous links',
  'pages.invalid': 'Invalid pages: 404 {"detail":"Invalid page."}',
  order: 'Record order of each list',
  query: 'Query strings as Django reads them (decoding, repeated and unknown keys)',
} as const;

export type RuleId = keyof typeof RULES;

/** A test's exact title, for a difference that holds for some of a rule's tests only. */
type TestTitle = `[${string}`;

/**
 * What the web servers that route with regexes on the raw query (nginx, Caddy, Apache) cannot do.
 * They cannot sort at request time: a comma, raw or encoded, gets 400 with the pre-rendered
 * _errors/unsupported-ordering.json, never a list in the wrong order (scripts/targets/web-servers/).
 */
const QUERY_REGEX_LIMITS: Readonly<Partial<Record<RuleId, string>> & Record<TestTitle, string>> = {
  'ordering.multi': 'cannot sort at request time: several fields get 400 unsupported-ordering, not a list',
  '[ordering.invalid] /event/?ordering=-start_date,bogus → -start_date':
    'any comma is an ordering by several fields to a regex (it cannot drop unknown terms): 400 unsupported-ordering',
  '[ordering.invalid] /event/?ordering=bogus,-nope → default order (id ascending)':
    'any comma is an ordering by several fields to a regex (it cannot drop unknown terms): 400 unsupported-ordering',
  '[ordering.invalid] /event/?ordering=name,bogus,-id → name,-id':
    'cannot sort at request time: several fields get 400 unsupported-ordering, not a list',
  '[query] /event/?ordering=-start_date%2Cname answers as /event/?ordering=-start_date,name (an encoded comma separates too)':
    'cannot sort at request time: several fields get 400 unsupported-ordering, not a list',
  "[query] /virtualbooth-texture/?page=%EF%BC%92 answers as /virtualbooth-texture/?page=2 (int('\\uff12') is 2)":
    'a regex cannot turn a non-ASCII (or percent-encoded) digit into the page file name: 404 Invalid page',
};

/**
 * What wrangler's local runtime does whatever a Cloudflare target configures: workerd behind
 * miniflare's entry worker, which emulates Cloudflare's edge. Shared by the three Cloudflare targets.
 */
const CLOUDFLARE_RUNTIME: Readonly<Partial<Record<RuleId, string>>> = {
  'methods.head':
    "Cloudflare's edge gzips JSON for clients that accept it (miniflare's entry worker does it here; Playwright sends " +
    'Accept-Encoding: gzip), so GET goes out chunked, without Content-Length; workerd sends a body-less HEAD answer ' +
    'with no framing header at all. Status, Content-Type, Content-Encoding, ETag and the _headers headers are equal and ' +
    'the body is empty: only Transfer-Encoding: chunked differs',
  'paths.absolute-form':
    'workerd as wrangler runs it answers an absolute-form request-target with a plain-text 500 before any worker code ' +
    "runs (on the user worker's own socket too); on Cloudflare the edge parses the request line, not workerd",
};

/** Static Pages sees the path only: why each query-dependent test fails there. */
const PAGES_NO_QUERY =
  'Pages matches _redirects and _headers on the path only and serves files by path: the query string is ignored, so ' +
  '?ordering=, ?page= and ?format= all get the plain list (targets/cloudflare-pages-static/README.md says so)';
const PAGES_METHODS =
  "Pages' asset server answers every method but GET and HEAD with its own 405 and an empty body, before it looks " +
  'for a file (workers-sdk pages-shared asset-server handler.ts, MethodNotAllowedResponse); _headers still applies';

/** Cloudflare Pages without code: _headers, the Pages _redirects and 404.html of the build. */
const PAGES_STATIC_LIMITS: Readonly<Partial<Record<RuleId, string>> & Record<TestTitle, string>> = {
  ...CLOUDFLARE_RUNTIME,
  'methods.options': PAGES_METHODS,
  'methods.not-allowed': PAGES_METHODS,
  '[paths.not-found] POST /nope/ → 404 Not found, not 405': PAGES_METHODS,
  'headers.not-modified':
    "Pages' asset server answers a matching If-None-Match with a 304 that carries no ETag (only the _headers " +
    'headers), and a static file cannot add a validator',
  'format.unknown': PAGES_NO_QUERY,
  'format.links': PAGES_NO_QUERY,
  'ordering.multi': PAGES_NO_QUERY,
  pages: PAGES_NO_QUERY,
  'pages.invalid': PAGES_NO_QUERY,
  // Every single-field ordering but `id` (the default order, which the plain list has).
  ...Object.fromEntries(
    ['name', 'slug', 'start_date', 'end_date', 'logo', 'logo_bg_color'].flatMap((field) => [
      [`[ordering] /event/?ordering=${field}`, PAGES_NO_QUERY],
      [`[ordering] /event/?ordering=-${field}`, PAGES_NO_QUERY],
    ]),
  ),
  '[ordering] /event/?ordering=-id': PAGES_NO_QUERY,
  '[ordering.invalid] /event/?ordering=-start_date,bogus → -start_date': PAGES_NO_QUERY,
  '[ordering.invalid] /event/?ordering=name,bogus,-id → name,-id': PAGES_NO_QUERY,
  "[body] GET every route of /event/: the built file's exact bytes": PAGES_NO_QUERY,
  "[body] GET every route of /virtualbooth-texture/: the built file's exact bytes": PAGES_NO_QUERY,
  '[body] the 404 and invalid-page bodies': `invalid pages are 200: ${PAGES_NO_QUERY}`,
  '[headers] 404 answers: unknown path and invalid page': `invalid pages are 200: ${PAGES_NO_QUERY}`,
  ...Object.fromEntries(
    ['/company/', '/virtualfair/', '/event/', '/virtualbooth-texture/'].map((path) => [
      `[headers] GET ${path}?format=xml: the 404 answer`,
      `format=xml is 200: ${PAGES_NO_QUERY}`,
    ]),
  ),
  '[order] textures: by name (code points), ties by id, across all pages': `every page is page 1: ${PAGES_NO_QUERY}`,
  '[paths.not-found] Range and If-None-Match do not turn a 404 into 206 or 304': `?page=9999 is page 1: ${PAGES_NO_QUERY}`,
  "[query] /virtualbooth-texture/?page=%EF%BB%BF2 → 404 Invalid page (int('\\ufeff2') fails)": PAGES_NO_QUERY,
  '[query] /virtualbooth-texture/?x=1&page=2: no x in the links': `every page is page 1: ${PAGES_NO_QUERY}`,
};

/**
 * Netlify as `netlify dev --offline` runs it (test/e2e/targets/netlify.ts): Netlify's redirect
 * engine and the functions are Netlify's, the file server is the CLI's own. The first two
 * entries are limits of Netlify itself; the rest are the CLI's, and say nothing of production.
 */
const NETLIFY_NO_SLASH_REDIRECT =
  'Netlify matches _redirects rules and function paths with or without the trailing slash (netlify-redirector; ' +
  'netlify-cli matchURLPath strips it), so no rule or function can redirect /company to /company/ without also ' +
  'redirecting /company/ to itself: /company is answered like /company/ (targets/netlify/README.md)';
const NETLIFY_DEV_CHARSET =
  "netlify dev's static server (express) sends the files with Content-Type: application/json; charset=utf-8 and " +
  'ignores the Content-Type of _headers (local-runtimes.md section 3); the functions\' answers are exact. Netlify\'s ' +
  'CDN is reported to apply the _headers Content-Type, which no offline run can show';
const NETLIFY_LIMITS: Readonly<Partial<Record<RuleId, string>> & Record<TestTitle, string>> = {
  'paths.slash-redirect': NETLIFY_NO_SLASH_REDIRECT,
  'headers.redirect': NETLIFY_NO_SLASH_REDIRECT,
  'methods.head':
    "netlify dev's static server sends a HEAD answer with the weak ETag of an empty body (GET's is of the file), and " +
    'the functions\' answers carry per-request x-nf-fetch-timing / x-nf-start-timestamp headers (and GET a chunked ' +
    'Transfer-Encoding) that differ between the GET and the HEAD; status and the _headers headers are equal',
  '[body] the 404 and invalid-page bodies': NETLIFY_DEV_CHARSET,
  '[headers] 404 answers: unknown path and invalid page': NETLIFY_DEV_CHARSET,
  '[paths.not-found] Range and If-None-Match do not turn a 404 into 206 or 304': NETLIFY_DEV_CHARSET,
  '[paths.absolute-form] GET http://127.0.0.1:<port>/company/ is answered as /company/': NETLIFY_DEV_CHARSET,
  '[paths.not-found] POST /nope/ → 404 Not found, not 405':
    "netlify dev answers a method other than GET or HEAD on a rewritten path with its static server's text/plain " +
    '"Method Not Allowed" under the rule\'s status (404 here), not with the rule\'s file (local-runtimes.md section 3)',
  '[paths.traversal] GET /_errors/not-found.json → 404 Not found':
    "Netlify's redirect engine skips a rule that would rewrite a path to itself (netlify-redirector matches nothing " +
    'for /_errors/not-found.json), so that file is served at its own path: the not-found body, with status 200',
  ...Object.fromEntries(
    ['/company/', '/virtualfair/', '/event/', '/virtualbooth-texture/'].map((path) => [
      `[headers] GET every route of ${path}: 200 answers`,
      NETLIFY_DEV_CHARSET,
    ]),
  ),
  ...Object.fromEntries(
    UNKNOWN_PATHS.map((url) => [
      `[paths.not-found] GET ${url} → 404 Not found`,
      NETLIFY_DEV_CHARSET,
    ]),
  ),
  ...Object.fromEntries(
    TRAVERSALS.filter((url) => url !== '/_errors/not-found.json').map((url) => [`[paths.traversal] GET ${url} → 404 Not found`, NETLIFY_DEV_CHARSET]),
  ),
  // The query cases a rule answers from a file (the others go through the function, which passes).
  ...Object.fromEntries(
    [
      '/event/?ordering=%2Did answers as /event/?ordering=-id (percent-decoded)',
      '/event/?ORDERING=-id answers as /event/ (keys are case-sensitive: default order)',
      '/event/?ordering=name&ordering=-id answers as /event/?ordering=-id (the last value wins)',
      '/event/?x=1&ordering=-id answers as /event/?ordering=-id (unknown keys are ignored)',
      '/company/?x=1&y=%FF answers as /company/ (unknown keys are ignored)',
      '/company/?format=xml&format=api answers as /company/ (the last format wins)',
      '/virtualbooth-texture/?page=2&page=3 answers as /virtualbooth-texture/?page=3 (the last value wins)',
      '/virtualbooth-texture/?x=1&page=2 answers as /virtualbooth-texture/?page=2 (unknown keys are not copied into the links)',
      '/virtualbooth-texture/?page=2&zzz=1&format=api answers as /virtualbooth-texture/?format=api&page=2 (unknown keys are not copied into the links)',
    ].map((title) => [`[query] ${title}`, NETLIFY_DEV_CHARSET]),
  ),
};

/**
 * Target name → rule id, or one test's exact title, → why that target cannot meet it (cite the
 * host's docs or source). A rule id marks every test of that rule on that target; a title
 * marks that test only.
 */
export const KNOWN_DIFFERENCES: Readonly<Record<string, Partial<Record<RuleId, string>> & Record<TestTitle, string>>> = {
  local: {},
  nginx: QUERY_REGEX_LIMITS,
  caddy: QUERY_REGEX_LIMITS,
  apache: {
    ...QUERY_REGEX_LIMITS,
    'methods.options':
      "Apache's core answers OPTIONS itself (ap_send_http_options: 200, no body); a body needs a script module (mod_lua, CGI)",
    ...Object.fromEntries(
      ['/../package.json', '/%2e%2e/package.json', '/company/%2e%2e/%2e%2e/package.json', '/company/../../package.json'].map((url) => [
        `[paths.traversal] GET ${url} → 404 Not found`,
        "Apache's core refuses a path that climbs above the root with 400 before any module runs (ap_normalize_path); " +
          'the ErrorDocument sends the JSON not-found body but cannot change the status',
      ]),
    ),
  },
  // The worker (scripts/respond/fetch-handler.ts) meets every rule; only the runtime differs.
  'cloudflare-workers': CLOUDFLARE_RUNTIME,
  'cloudflare-pages': CLOUDFLARE_RUNTIME,
  'cloudflare-pages-static': PAGES_STATIC_LIMITS,
  netlify: NETLIFY_LIMITS,
};

/**
 * Target name → exact test title → a bug of the project (not a limit of the host) that a test
 * shows. Same mechanism as above, per test: remove the entry together with the fix.
 */
export const KNOWN_BUGS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  local: {},
};

const TITLE = /^\[([a-z.-]+)\] /;

/** The rule id a title starts with; throws for a title without a known one. */
export function ruleOf(title: string): RuleId {
  const id = TITLE.exec(title)?.[1];
  if (id === undefined || !(id in RULES)) {
    throw new Error(`test title must start with "[<rule id>] " using an id of RULES in expectations.ts: ${title}`);
  }
  return id as RuleId;
}

/** Why `target` is expected to fail the test titled `title`, or undefined. */
export function expectedFailure(target: string, title: string): string | undefined {
  const rule = ruleOf(title);
  const difference = KNOWN_DIFFERENCES[target]?.[rule] ?? KNOWN_DIFFERENCES[target]?.[title as TestTitle];
  if (difference !== undefined) return `known difference of ${target} for [${rule}]: ${difference}`;
  const bug = KNOWN_BUGS[target]?.[title];
  return bug === undefined ? undefined : `known bug: ${bug}`;
}
