// The one place that says which rules a target is known not to meet. Every test title starts
// with a rule id (`[pages.invalid] ...`); the auto fixture in fixtures.ts looks the id up here
// and marks the test with test.fail(true, reason): the assertions stay exactly as strict, the
// run stays green while the target fails, and turns red if the target starts to pass (then
// delete the entry). Never skip a test or loosen an assertion for a target. A target that
// documents another answer than DRF's (a refusal, for one) is listed in DOCUMENTED: its test
// asserts that answer as strictly, and the rule shows "no" with the reason all the same.

import { METHODS } from 'node:http';
import { API } from '../fixtures/sample.ts';
import { TRAVERSALS, UNKNOWN_PATHS } from './lib/contract.ts';
import { decodedBody, headerProblems, judge } from './lib/fuzz-oracle.ts';
import { Answer } from './lib/http.ts';
import type { RawRequest } from './lib/raw-http.ts';

/** Rule ids, grouped by the prefix before the dot. docs/targets.md is a table of target × rule. */
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
  'filters.prerendered': 'A filter of prerendered_filters alone, with a value the records hold: the matching records',
  filters:
    'Any other filter (not pre-rendered, two together, a value no record holds): the matching records, never the whole list',
  'filters.invalid': "A value a filter cannot read: 400 with django-filter's body",
  'filters.search': 'search: the records where each term matches a search field (contains, ^, =)',
  'filters.ordering': 'ordering by the ordering_fields of the settings, on any list',
  'filters.combined': 'Filters, search and ordering together',
  'filters.pages': 'A filtered list, paginated: count, next and previous of the matching records',
  'filters.unknown-key': 'An unknown key on a paginated list with settings: kept in next and previous, as DRF keeps it',
  fuzz: "Seeded raw requests of every kind: the contract's answer, or a difference documented below with its count",
} as const;

export type RuleId = keyof typeof RULES;

/** The fuzzer's one test (fuzz.spec.ts), the same title whatever the number of requests. */
export const FUZZ_TITLE =
  "[fuzz] seeded raw requests (300, FUZZ_REQUESTS in npm run fuzz): the contract's answer or a documented difference";

/** A test's exact title, for a difference that holds for some of a rule's tests only. */
type TestTitle = `[${string}`;

/**
 * Why a target cannot meet a rule, each written once under a short id. The entries below refer
 * to them by id, and the generated docs/targets.md lists each once with the targets and rules it
 * applies to. Cite the host's docs or source.
 */
const REASONS = {
  // nginx, Caddy and Apache route with regexes on the raw query (scripts/targets/web-servers/): a
  // comma, raw or encoded, gets 400 with _errors/unsupported-ordering.json, never a wrong order.
  'regex-cannot-sort': 'cannot sort at request time: several fields get 400 unsupported-ordering, not a list',
  'regex-cannot-drop-terms':
    'any comma is an ordering by several fields to a regex (it cannot drop unknown terms): 400 unsupported-ordering',
  'regex-cannot-decode-digits':
    'a regex cannot turn a non-ASCII (or percent-encoded) digit into the page file name: 404 Invalid page',
  'apache-core-options':
    "Apache's core answers OPTIONS itself (ap_send_http_options: 200, no body); a body needs a script module (mod_lua, CGI)",
  'apache-core-traversal':
    "Apache's core refuses a path that climbs above the root with 400 before any module runs (ap_normalize_path); " +
    'the ErrorDocument sends the JSON not-found body but cannot change the status',
  // Found by the request fuzzer (fuzz.spec.ts) on nginx, Caddy and Apache.
  'regex-no-negotiation':
    'the configurations do not read Accept: a request no DRF renderer can answer (Accept: application/xml) gets the ' +
    'answer of a request without Accept (200, 405, OPTIONS) instead of 406 Not Acceptable (docs/contract.md section 3)',
  'host-range-rules':
    "the file server's own Range handling: it slices a HEAD answer (206) and answers a Range it cannot parse " +
    '(bytes=abc, bytes=5-2) or cannot satisfy with its own 416 page, where RFC 9110 14.2 says that a Range is for GET ' +
    'and an invalid one is ignored (200); a valid single range of a GET is honoured right',
  'host-refuses-target':
    'a request-target the server refuses with its own 400 before any rule runs, where the contract answers 404 Not ' +
    'found: a malformed percent-escape (/%zz/, /%g0/: Caddy and Apache parse the path first; Go writes its text body ' +
    'even to HEAD), or `*` with another method than OPTIONS (Apache)',
  'nginx-if-none-match-star':
    "nginx's not-modified filter answers If-None-Match: * on every 200 with 304, the OPTIONS answer too, before any " +
    'directive can say otherwise (ngx_http_test_if_match; `etag off` and `if_modified_since off` do not stop it); ' +
    'Range and If-Modified-Since leave the OPTIONS answer whole',
  'go-options-asterisk':
    "Go's net/http answers `OPTIONS *` itself with 200 and no body (a request about the server, RFC 9110 9.3.7) " +
    "before Caddy's routes run, where the contract answers 404 Not found",
  'host-long-number':
    'a page number of dozens of digits gets an error the server makes: Apache 403 (mod_rewrite), Caddy 500 ' +
    '(its vars_regexp), where the contract answers 404 Invalid page',
  'nginx-method-case':
    "nginx refuses a method that is not upper-case letters (get, Get) with 400, which api.conf's error_page for " +
    "nginx's own 400 turns into 404 Not found, where the contract answers 405 (methods are case-sensitive tokens)",
  'nginx-trace':
    'nginx answers TRACE itself with 405 before any location runs (ngx_http_process_request_header), also on unknown ' +
    'paths and on a path without its slash, where the contract answers 404 or 301',
  'apache-unknown-method':
    'Apache answers a method its core does not register (M-SEARCH, LINK, FOO, get) itself: 405 with its HTML page and ' +
    'an Allow line of its own naming TRACE; the configuration has a 405 body only for the methods it names',
  // wrangler's local runtime, whatever a Cloudflare target configures: workerd behind miniflare's
  // entry worker, which emulates Cloudflare's edge.
  'workerd-head-framing':
    "Cloudflare's edge gzips JSON for clients that accept it (miniflare's entry worker does it here; Playwright sends " +
    'Accept-Encoding: gzip), so GET goes out chunked, without Content-Length; workerd sends a body-less HEAD answer ' +
    'with no framing header at all. Status, Content-Type, Content-Encoding, ETag and the _headers headers are equal and ' +
    'the body is empty: only Transfer-Encoding: chunked differs',
  'workerd-absolute-form':
    'workerd as wrangler runs it answers an absolute-form request-target (and `*`) with a plain-text 500 before any worker code ' +
    "runs (on the user worker's own socket too); on Cloudflare the edge parses the request line, not workerd",
  'workerd-unknown-method':
    'workerd as wrangler runs it answers a method it does not know (M-SEARCH, LINK, FOO, get) with its own plain-text ' +
    '501 "Unrecognized request method" before any worker code runs',
  'workerd-edge-encoding':
    "miniflare's entry worker, standing for Cloudflare's edge, compresses every answer for a client that accepts gzip " +
    "or br, the contract's own OPTIONS and error bodies too, without naming Accept-Encoding in Vary, and a 206 slice " +
    '(whose Content-Range then counts bytes the body does not hold), where the edge compresses only a 200, 403 or 404 ' +
    "(Cloudflare's content compression docs); and it answers an Accept-Encoding that refuses identity (identity;q=0, " +
    '*;q=0) without preferring gzip or br with its own 415',
  'workerd-dot-segments':
    'workerd hands the worker a URL whose dot segments are already resolved (/event/. is /event/, /x/../company/ is ' +
    "/company/), so the worker's own reading of the raw path cannot see them: the list instead of 404 Not found. " +
    "Cloudflare's edge normalizes incoming URLs the same way unless the zone's URL normalization is off",
  // The filters, search and orderings of the settings file (filters.spec.ts), on the targets
  // without code: files written at build, routed by the configurations of scripts/targets/.
  'regex-refuses-query':
    'answers a filter of prerendered_filters alone, with a value the records hold, from the files the build writes; ' +
    'every other filter, search or ordering of the settings gets 400 with _errors/unsupported-query.json ' +
    '(docs/filters.md), never the whole list, and the test asserts that answer',
  'static-links-drop-unknown':
    'a page of a list is a file, one for every request that asks for it: an unknown key (?x=1&page=2) or an empty or ' +
    "repeated format gets the page's file, whose next and previous leave them out (section 5.2 of " +
    'docs/contract.md), where DRF and the targets ' +
    'with code keep it on a list with settings; the records, count and the pages the links lead to are the same, and ' +
    "the test asserts that file's bytes",
  'pages-refused-with-filters':
    'the build refuses cloudflare-pages-static while a list has filters, search or orderings (it routes on the path ' +
    'alone and would send the whole list, docs/filters.md), so it runs here on the build without them, where these ' +
    'requests get the plain list',
  // Cloudflare Pages without code: _headers, the Pages _redirects and 404.html of the build.
  'pages-no-query':
    'Pages matches _redirects and _headers on the path only and serves files by path: the query string is ignored, so ' +
    '?ordering=, ?page= and ?format= all get the plain list (targets/cloudflare-pages-static/README.md says so)',
  'pages-asset-methods':
    "Pages' asset server answers every method but GET and HEAD with its own 405 and an empty body, before it looks " +
    'for a file (workers-sdk pages-shared asset-server handler.ts, MethodNotAllowedResponse); _headers still applies',
  'pages-304-no-etag':
    "Pages' asset server answers a matching If-None-Match with a 304 that carries no ETag (only the _headers " +
    'headers), and a static file cannot add a validator',
  'pages-no-negotiation':
    'Pages serves the file whatever Accept asks for (_headers and _redirects cannot read a request header): a ' +
    'request no DRF renderer can answer (Accept: application/xml) gets the answer of the same request without ' +
    "Accept (the list, or Pages' own 405) instead of 406 Not Acceptable (docs/contract.md section 3)",
  'pages-encoded-path':
    'Pages matches _redirects on the path as sent, its escapes kept, and decodes it only to look for a file ' +
    '(workers-sdk pages-shared asset-server handler.ts: staticRules[pathname] of new URL(request.url), then ' +
    "decodeURIComponent): /%63ompany/ or /company%2F matches no rule and is no file, so it gets 404.html's Not found " +
    '(or the 405 of a method but GET and HEAD), where Django decodes the path first (the list, or the 301)',
  'wrangler-pages-dev-trace':
    'wrangler pages dev (4.86.0) never answers TRACE on a folder without code: the connection stays open without a ' +
    'status line (10 s in the fuzzer, 90 s by hand), where the same folder with a _worker.js (cloudflare-pages) ' +
    "answers it; what Cloudflare's edge answers no offline run shows",
  // Netlify as `netlify dev --offline` runs it (test/e2e/targets/netlify.ts): the redirect engine
  // and the function are Netlify's, the file server is the CLI's own. The last is a limit of
  // Netlify itself; the others are the CLI's and say nothing of production.
  'netlify-dev-charset':
    "netlify dev's static server (express) sends the files with Content-Type: application/json; charset=utf-8 and " +
    "ignores the Content-Type of _headers (seen with netlify-cli 26.2.0); the functions' answers are exact. Netlify's " +
    'CDN is reported to apply the _headers Content-Type, which no offline run can show',
  'netlify-dev-head':
    "netlify dev's static server sends a HEAD answer with the weak ETag of an empty body (GET's is of the file), and " +
    "the functions' answers carry per-request x-nf-fetch-timing / x-nf-start-timestamp headers (and GET a chunked " +
    'Transfer-Encoding) that differ between the GET and the HEAD; status and the _headers headers are equal',
  'netlify-dev-method-on-rewrite':
    "netlify dev answers a method other than GET or HEAD on a rewritten path with its static server's text/plain " +
    '"Method Not Allowed" under the rule\'s status (404 here), not with the rule\'s file (seen with netlify-cli 26.2.0)',
  'netlify-dev-dot-segments':
    'netlify dev resolves dot segments before it routes (/event/. is /event/, /x/../company/ is /company/), so the ' +
    "function, handed the resolved URL, answers the list instead of 404 Not found; whether Netlify's CDN normalizes " +
    'the same way no offline run shows',
  'netlify-encoded-path':
    "Netlify matches a function's path on the path as sent, not percent-decoded (netlify-cli matchURLPath: " +
    '/%63ompany/ is not /company/), so a list path with an escape falls to the 404 rule, where Django decodes it ' +
    'first (the list, or the 301)',
  'netlify-dev-node-methods':
    "netlify dev runs on Node's HTTP server, whose parser refuses a method it does not know (FOO, get, Get) with " +
    "its own 400 before any code runs; Netlify's CDN parses requests itself",
  'netlify-dev-trace':
    "netlify dev's functions runtime builds a fetch Request of each request, which Node's fetch refuses for TRACE " +
    '(a forbidden method), so TRACE on a list path gets 500 before the function runs (seen with netlify-cli 26.2.0)',
  'netlify-dev-404-retry':
    'netlify dev asks a function again under other names (<path>.html, <path>/index.htm and so on, its static ' +
    "server's pretty URLs) when it answers 404 or 403, and sends the last answer: the function's Invalid page 404 " +
    'becomes Not found, and each 404 costs five invocations, which it runs one after another: eight 404s asked at ' +
    'once took 56 to 61 s each (seen with netlify-cli 26.2.0, utils/proxy.js alternativePathsFor); whether ' +
    "Netlify's CDN does so for a function no offline run shows",
  'netlify-dev-absolute-form':
    'netlify dev matches functions on the request-target as sent, prefixed with http://localhost (netlify-cli ' +
    'getFunctionForURLPath), so an absolute-form target (GET http://host/company/) reaches no function and gets ' +
    "the 404 rule; Netlify's CDN parses the request line itself",
  'netlify-self-rewrite':
    "Netlify's redirect engine skips a rule that would rewrite a path to itself (netlify-redirector matches nothing " +
    'for /_errors/not-found.json), so that file is served at its own path as a static file: the not-found body, ' +
    "with status 200 to GET and HEAD (304 to a matching If-None-Match), and netlify dev's static server answers " +
    'the other methods with its text/plain 405',
  'netlify-dev-if-none-match-404':
    "netlify dev's static server takes If-None-Match: * as matched by the file a 404 rule rewrites to and drops " +
    "its body, but keeps the rule's 404: a 404 with no body (seen with netlify-cli 26.2.0), where RFC 9110 13.2.1 " +
    "says a precondition is ignored when the answer would not be 2xx; whether Netlify's CDN does so no offline " +
    'run shows',
} as const;

export type ReasonId = keyof typeof REASONS;

/** A reference to a reason, with how it shows in one test when that is not obvious. */
type Because = ReasonId | { reason: ReasonId; shows: string };

/** Rule id (every test of the rule) or exact test title (that test only) → the reason. */
type Differences = Readonly<Partial<Record<RuleId, Because>> & Record<TestTitle, Because>>;

const shows = (reason: ReasonId, how: string): Because => ({ reason, shows: how });

/** The web servers that route with regexes on the raw query: nginx, Caddy, Apache. */
const QUERY_REGEX_LIMITS: Differences = {
  'ordering.multi': 'regex-cannot-sort',
  '[ordering.invalid] /event/?ordering=-start_date,bogus → -start_date': 'regex-cannot-drop-terms',
  '[ordering.invalid] /event/?ordering=bogus,-nope → default order (id ascending)': 'regex-cannot-drop-terms',
  '[ordering.invalid] /event/?ordering=name,bogus,-id → name,-id': 'regex-cannot-sort',
  '[query] /event/?ordering=-start_date%2Cname answers as /event/?ordering=-start_date,name (an encoded comma separates too)':
    'regex-cannot-sort',
  "[query] /virtualbooth-texture/?page=%EF%BC%92 answers as /virtualbooth-texture/?page=2 (int('\\uff12') is 2)":
    'regex-cannot-decode-digits',
};

/** Shared by the three Cloudflare targets. */
const CLOUDFLARE_RUNTIME: Differences = {
  'methods.head': 'workerd-head-framing',
  'paths.absolute-form': 'workerd-absolute-form',
};

/** The rules of filters.spec.ts. */
const FILTER_RULES = [
  'filters.prerendered',
  'filters',
  'filters.invalid',
  'filters.search',
  'filters.ordering',
  'filters.combined',
  'filters.pages',
  'filters.unknown-key',
] as const satisfies readonly RuleId[];

const PAGES_STATIC_LIMITS: Differences = {
  ...CLOUDFLARE_RUNTIME,
  ...Object.fromEntries(FILTER_RULES.map((rule) => [rule, 'pages-refused-with-filters'])),
  'methods.options': 'pages-asset-methods',
  'methods.not-allowed': 'pages-asset-methods',
  '[paths.not-found] POST /nope/ → 404 Not found, not 405': 'pages-asset-methods',
  'headers.not-modified': 'pages-304-no-etag',
  'format.unknown': 'pages-no-query',
  'format.links': 'pages-no-query',
  'ordering.multi': 'pages-no-query',
  pages: 'pages-no-query',
  'pages.invalid': 'pages-no-query',
  // Every single-field ordering but `id` (the default order, which the plain list has).
  ...Object.fromEntries(
    ['name', 'slug', 'start_date', 'end_date', 'logo', 'logo_bg_color'].flatMap((field) => [
      [`[ordering] /event/?ordering=${field}`, 'pages-no-query'],
      [`[ordering] /event/?ordering=-${field}`, 'pages-no-query'],
    ]),
  ),
  '[ordering] /event/?ordering=-id': 'pages-no-query',
  '[ordering.invalid] /event/?ordering=-start_date,bogus → -start_date': 'pages-no-query',
  '[ordering.invalid] /event/?ordering=name,bogus,-id → name,-id': 'pages-no-query',
  // Every list whose routes hold a query: an ordering or a page.
  ...Object.fromEntries(
    API.filter((list) => list.paginated || list.orderingFields.length > 0).map((list) => [
      `[body] GET every route of ${list.path}: the built file's exact bytes`,
      'pages-no-query',
    ]),
  ),
  '[body] the 404 and invalid-page bodies': shows('pages-no-query', 'invalid pages are 200'),
  '[headers] 404 answers: unknown path and invalid page': shows('pages-no-query', 'invalid pages are 200'),
  ...Object.fromEntries(
    API.map(({ path }) => [
      `[headers] GET ${path}?format=xml: the 404 answer`,
      shows('pages-no-query', 'format=xml is 200'),
    ]),
  ),
  '[order] textures: by name (code points), ties by id, across all pages': shows(
    'pages-no-query',
    'every page is page 1',
  ),
  ...Object.fromEntries(
    API.filter((list) => list.paginated).map(({ path }) => [
      `[order] ${path}: by its declared order (code points), ties by id, across all pages`,
      shows('pages-no-query', 'every page is page 1'),
    ]),
  ),
  '[paths.not-found] Range and If-None-Match do not turn a 404 into 206 or 304': shows(
    'pages-no-query',
    '?page=9999 is page 1',
  ),
  "[query] /virtualbooth-texture/?page=%EF%BB%BF2 → 404 Invalid page (int('\\ufeff2') fails)": 'pages-no-query',
};

/**
 * Netlify under netlify dev: the function answers every request on a list path exactly; what
 * differs is netlify dev's own file server on the static answers (the 404 of other paths) and
 * its HEAD framing.
 */
const NETLIFY_LIMITS: Differences = {
  'methods.head': 'netlify-dev-head',
  'paths.absolute-form': 'netlify-dev-absolute-form',
  'pages.invalid': 'netlify-dev-404-retry',
  "[query] /virtualbooth-texture/?page=%EF%BB%BF2 → 404 Invalid page (int('\\ufeff2') fails)": 'netlify-dev-404-retry',
  '[filters.pages] /virtualbooth-texture/?search=a&page=99': 'netlify-dev-404-retry',
  '[body] the 404 and invalid-page bodies': 'netlify-dev-charset',
  '[headers] 404 answers: unknown path and invalid page': 'netlify-dev-charset',
  '[paths.not-found] Range and If-None-Match do not turn a 404 into 206 or 304': 'netlify-dev-charset',
  '[paths.not-found] POST /nope/ → 404 Not found, not 405': 'netlify-dev-method-on-rewrite',
  '[paths.traversal] GET /_errors/not-found.json → 404 Not found': 'netlify-self-rewrite',
  // The paths outside the lists are the 404 rule's; `/Company/` is the function's (its path is
  // matched lower-cased), which answers it exactly.
  ...Object.fromEntries(
    UNKNOWN_PATHS.filter((url) => url !== '/Company/').map((url) => [
      `[paths.not-found] GET ${url} → 404 Not found`,
      'netlify-dev-charset',
    ]),
  ),
  ...Object.fromEntries(
    TRAVERSALS.filter((url) => url !== '/_errors/not-found.json').map((url) => [
      `[paths.traversal] GET ${url} → 404 Not found`,
      'netlify-dev-charset',
    ]),
  ),
};

/** Target name → what it is known not to meet. A rule id marks every test of that rule on that target. */
export const KNOWN_DIFFERENCES: Readonly<Record<string, Differences>> = {
  local: {},
  nginx: QUERY_REGEX_LIMITS,
  caddy: QUERY_REGEX_LIMITS,
  apache: {
    ...QUERY_REGEX_LIMITS,
    'methods.options': 'apache-core-options',
    ...Object.fromEntries(
      [
        '/../package.json',
        '/%2e%2e/package.json',
        '/company/%2e%2e/%2e%2e/package.json',
        '/company/../../package.json',
      ].map((url) => [`[paths.traversal] GET ${url} → 404 Not found`, 'apache-core-traversal']),
    ),
  },
  // The worker (scripts/respond/) meets every rule; only the runtime differs.
  'cloudflare-workers': CLOUDFLARE_RUNTIME,
  'cloudflare-pages': CLOUDFLARE_RUNTIME,
  'cloudflare-pages-static': PAGES_STATIC_LIMITS,
  netlify: NETLIFY_LIMITS,
};

/** nginx, Caddy and Apache: what they answer instead of DRF, as docs/filters.md says. */
const PRERENDERED_ONLY: Differences = {
  ...Object.fromEntries(
    FILTER_RULES.filter((rule) => rule !== 'filters.prerendered' && rule !== 'filters.unknown-key').map((rule) => [
      rule,
      'regex-refuses-query',
    ]),
  ),
  'filters.unknown-key': 'static-links-drop-unknown',
};

/**
 * Target name → the rules (or exact titles) it answers otherwise than DRF, as its documentation
 * says: the test asserts that answer (the `documented` fixture tells it which), and the
 * compatibility table shows "no" with the reason.
 */
const DOCUMENTED: Readonly<Record<string, Differences>> = {
  nginx: PRERENDERED_ONLY,
  caddy: PRERENDERED_ONLY,
  apache: PRERENDERED_ONLY,
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

/** The start of a known difference's annotation; the reason id follows in parentheses. */
const DIFFERENCE = /^known difference of \S+ for \[[a-z.-]+\] \(([a-z0-9-]+)\): /;

/**
 * Why `target` is expected to fail the test titled `title`, or undefined. The text is the "fail"
 * annotation of the test in the report: `known difference of <target> for [<rule>] (<reason id>): ...`
 * or `known bug: ...`; reasonOf() reads it back.
 */
export function expectedFailure(target: string, title: string): string | undefined {
  const difference = differenceOf(KNOWN_DIFFERENCES, target, title);
  if (difference !== undefined) return difference.text;
  const bug = KNOWN_BUGS[target]?.[title];
  return bug === undefined ? undefined : `known bug: ${bug}`;
}

/** The answer `target` documents instead of DRF's for the test titled `title`: its reason and annotation text. */
export function documentedDifference(target: string, title: string): { reason: ReasonId; text: string } | undefined {
  return differenceOf(DOCUMENTED, target, title);
}

function differenceOf(
  differences: Readonly<Record<string, Differences>>,
  target: string,
  title: string,
): { reason: ReasonId; text: string } | undefined {
  const rule = ruleOf(title);
  const because = differences[target]?.[rule] ?? differences[target]?.[title as TestTitle];
  if (because === undefined) return undefined;
  const { reason, shows: how } = typeof because === 'string' ? { reason: because, shows: undefined } : because;
  return {
    reason,
    text: `known difference of ${target} for [${rule}] (${reason}): ${how ? `${how}: ` : ''}${REASONS[reason]}`,
  };
}

/**
 * The reason an expected failure's annotation (expectedFailure's text) names: a reason id of
 * REASONS, or the text of a known bug. Throws for text of another form, such as a report written
 * before reasons had ids: run the suite again.
 */
export function reasonOf(annotation: string): { key: string; text: string } {
  const id = DIFFERENCE.exec(annotation)?.[1];
  if (id !== undefined && id in REASONS) return { key: id, text: REASONS[id as ReasonId] };
  if (annotation.startsWith('known bug: ')) return { key: annotation, text: annotation };
  throw new Error(`not an annotation of expectations.ts (run \`npx playwright test\` again): ${annotation}`);
}

/** What the fuzzer (fuzz.spec.ts) sent and got, for a documented difference to recognise. */
export interface FuzzCase {
  request: RawRequest;
  answer: Answer | string;
  /** The oracle's problems with the answer (lib/fuzz-oracle.ts), never empty. */
  problems: readonly string[];
  /** The build output the target serves, for a difference that judges the answer against another request. */
  publicDir: string;
}

interface FuzzDifference {
  reason: ReasonId;
  when(found: FuzzCase): boolean;
}

const statusOf = (found: FuzzCase) => (typeof found.answer === 'string' ? 0 : found.answer.status);
const headerOf = (found: FuzzCase, name: string) =>
  found.request.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];

/**
 * Target name → the differences the request fuzzer may find, each with its reason and how to
 * recognise it. The first that matches is counted; any other difference fails the run.
 */
const problem = (found: FuzzCase, pattern: RegExp) => found.problems.some((text) => pattern.test(text));
const bodyOf = (found: FuzzCase) => (typeof found.answer === 'string' ? '' : found.answer.text);
const pathOf = (found: FuzzCase) => found.request.target.split('?')[0] ?? '';
/** A query parameter as Django reads it: decoded, keys too, the last value winning. */
const lastValue = (found: FuzzCase, key: string) =>
  new URLSearchParams(found.request.target.split('?')[1] ?? '').getAll(key).at(-1) ?? '';

const NO_NEGOTIATION: FuzzDifference = {
  reason: 'regex-no-negotiation',
  when: (found) => problem(found, /contract 406|answer is 406/) && headerOf(found, 'Accept') !== undefined,
};
const CANNOT_SORT: FuzzDifference = {
  reason: 'regex-cannot-sort',
  when: (found) => statusOf(found) === 400 && lastValue(found, 'ordering').includes(','),
};
const RANGE_RULES: FuzzDifference = {
  reason: 'host-range-rules',
  when: (found) =>
    headerOf(found, 'Range') !== undefined &&
    (statusOf(found) === 416 || (statusOf(found) === 206 && found.request.method === 'HEAD')) &&
    !problem(found, /answer is 406/),
};
const BAD_ESCAPE: FuzzDifference = {
  reason: 'host-refuses-target',
  when: (found) =>
    (statusOf(found) === 400 || problem(found, /^400 answer to HEAD with \d+ bytes/)) &&
    (/%(?![0-9a-f]{2})/i.test(pathOf(found)) || found.request.target === '*'),
};
const LONG_NUMBER: FuzzDifference = {
  reason: 'host-long-number',
  when: (found) => [403, 500].includes(statusOf(found)) && /page=\d{40,}/.test(found.request.target),
};
const CANNOT_DECODE_DIGITS: FuzzDifference = {
  reason: 'regex-cannot-decode-digits',
  when: (found) => statusOf(found) === 404 && /[^\p{ASCII}]/u.test(lastValue(found, 'page')),
};
const QUERY_RULES = [NO_NEGOTIATION, CANNOT_SORT, RANGE_RULES, CANNOT_DECODE_DIGITS];

const DOT_SEGMENT = /(^|\/)(\.|%2e){1,2}(\/|\?|$)/i;
const UNKNOWN_METHOD: FuzzDifference = {
  reason: 'workerd-unknown-method',
  when: (found) => statusOf(found) === 501 && !['POST', 'PUT', 'PATCH', 'DELETE'].includes(found.request.method),
};
/** Whether an Accept-Encoding refuses the identity coding: `identity;q=0`, or `*;q=0` (RFC 9110 12.5.3). */
const refusesIdentity = (acceptEncoding: string | undefined) =>
  (acceptEncoding ?? '').split(',').some((item) => /^\s*(identity|\*)\s*;\s*q=0(\.0*)?\s*$/i.test(item));
/** A compressed 206 whose body, decoded, is the contract's slice: the edge's compression of the worker's answer. */
function compressedSlice(found: FuzzCase): boolean {
  const { answer } = found;
  if (typeof answer === 'string' || answer.status !== 206 || answer.header('content-encoding') === undefined)
    return false;
  const body = decodedBody(answer);
  if (body === null) return false;
  const headers = answer.headers.filter(([name]) => name !== 'content-encoding');
  const plain = new Answer(answer.method, answer.url, answer.status, headers, body);
  return judge(found.request, plain, found.publicDir).length === 0;
}
const EDGE_ENCODING: FuzzDifference = {
  reason: 'workerd-edge-encoding',
  when: (found) =>
    (statusOf(found) === 415 && refusesIdentity(headerOf(found, 'Accept-Encoding'))) ||
    compressedSlice(found) ||
    (statusOf(found) !== 206 && found.problems.every((text) => /^Content-Encoding /.test(text))),
};
const DOT_SEGMENTS: FuzzDifference = {
  reason: 'workerd-dot-segments',
  when: (found) => DOT_SEGMENT.test(found.request.target),
};
const ABSOLUTE_FORM: FuzzDifference = {
  reason: 'workerd-absolute-form',
  when: (found) => statusOf(found) === 500 && /^(\*|http:)/.test(found.request.target),
};
const WORKERD: readonly FuzzDifference[] = [UNKNOWN_METHOD, EDGE_ENCODING, DOT_SEGMENTS, ABSOLUTE_FORM];

/**
 * Whether the answer is a documented one for `request`, the fuzzed request as the target reads
 * it: the contract's answer to it, or one of `differences`.
 */
function answers(found: FuzzCase, request: RawRequest, differences: readonly FuzzDifference[]): boolean {
  const problems = judge(request, found.answer, found.publicDir);
  if (problems.length === 0) return true;
  const read = { ...found, request, problems };
  return differences.some((difference) => difference.when(read));
}

const originForm = (found: FuzzCase) => found.request.target.startsWith('/');
/** The path with its dot segments resolved as a WHATWG URL parser does (`%2e` is a dot too). */
const resolvedPath = (path: string) => new URL(path, 'http://127.0.0.1').pathname;

/**
 * Cloudflare Pages without code: the asset server of wrangler pages dev, behind the same
 * runtime as the workers. Each reading below holds only when the answer is exactly the
 * contract's (or another of these differences) for the request as Pages reads it.
 */
const PAGES_STATIC: readonly FuzzDifference[] = [
  UNKNOWN_METHOD,
  EDGE_ENCODING,
  ABSOLUTE_FORM,
  {
    reason: 'pages-asset-methods',
    when: (found) =>
      typeof found.answer !== 'string' &&
      !['GET', 'HEAD'].includes(found.request.method) &&
      found.answer.status === 405 &&
      decodedBody(found.answer)?.length === 0 &&
      headerProblems(found.answer).length === 0,
  },
  {
    reason: 'wrangler-pages-dev-trace',
    when: (found) =>
      found.request.method === 'TRACE' &&
      typeof found.answer === 'string' &&
      /^no complete answer within \d+ ms \(0 bytes\)$/.test(found.answer),
  },
  {
    reason: 'pages-no-query',
    when: (found) =>
      originForm(found) &&
      found.request.target.includes('?') &&
      answers(found, { ...found.request, target: pathOf(found) }, PAGES_STATIC),
  },
  {
    reason: 'pages-no-negotiation',
    when: (found) =>
      headerOf(found, 'Accept') !== undefined &&
      answers(
        found,
        { ...found.request, headers: found.request.headers.filter(([name]) => name.toLowerCase() !== 'accept') },
        PAGES_STATIC,
      ),
  },
  {
    reason: DOT_SEGMENTS.reason,
    when: (found) =>
      originForm(found) &&
      DOT_SEGMENT.test(pathOf(found)) &&
      /^[\x21-\x7e]*$/.test(pathOf(found)) &&
      answers(found, { ...found.request, target: resolvedPath(pathOf(found)) }, PAGES_STATIC),
  },
  {
    reason: 'pages-encoded-path',
    when: (found) =>
      originForm(found) &&
      /%[0-9a-f]{2}/i.test(pathOf(found)) &&
      answers(found, { ...found.request, target: '/nope/' }, PAGES_STATIC),
  },
];

export const FUZZ_DIFFERENCES: Readonly<Record<string, readonly FuzzDifference[]>> = {
  local: [],
  nginx: [
    ...QUERY_RULES,
    { reason: 'nginx-method-case', when: (found) => statusOf(found) === 404 && /[a-z]/.test(found.request.method) },
    { reason: 'nginx-trace', when: (found) => statusOf(found) === 405 && found.request.method === 'TRACE' },
    {
      reason: 'nginx-if-none-match-star',
      when: (found) =>
        found.request.method === 'OPTIONS' && statusOf(found) === 304 && headerOf(found, 'If-None-Match') === '*',
    },
  ],
  caddy: [
    ...QUERY_RULES,
    BAD_ESCAPE,
    LONG_NUMBER,
    {
      reason: 'go-options-asterisk',
      when: (found) => found.request.method === 'OPTIONS' && found.request.target === '*' && statusOf(found) === 200,
    },
  ],
  'cloudflare-workers': WORKERD,
  netlify: [
    {
      reason: 'netlify-dev-node-methods',
      when: (found) => statusOf(found) === 400 && !METHODS.includes(found.request.method),
    },
    { reason: 'netlify-dev-dot-segments', when: (found) => DOT_SEGMENT.test(found.request.target) },
    {
      reason: 'netlify-encoded-path',
      when: (found) => statusOf(found) === 404 && /%[0-9a-f]{2}/i.test(pathOf(found)),
    },
    {
      reason: 'netlify-dev-404-retry',
      when: (found) =>
        bodyOf(found) === '{"detail":"Not found."}' && found.problems.some((text) => text.includes('Invalid page.')),
    },
    { reason: 'netlify-dev-trace', when: (found) => statusOf(found) === 500 && found.request.method === 'TRACE' },
    // An absolute-form target reaches no function: the 404 rule answers it, whatever the path.
    {
      reason: 'netlify-dev-absolute-form',
      when: (found) => found.request.target.startsWith('http://') && statusOf(found) === 404,
    },
    {
      reason: 'netlify-self-rewrite',
      when: (found) =>
        pathOf(found) === '/_errors/not-found.json' &&
        (['GET', 'HEAD'].includes(found.request.method)
          ? [200, 304].includes(statusOf(found))
          : statusOf(found) === 405 && bodyOf(found) === 'Method Not Allowed'),
    },
    {
      reason: 'netlify-dev-if-none-match-404',
      when: (found) =>
        headerOf(found, 'If-None-Match')?.trim() === '*' && statusOf(found) === 404 && bodyOf(found) === '',
    },
    {
      reason: 'netlify-dev-method-on-rewrite',
      when: (found) =>
        !['GET', 'HEAD'].includes(found.request.method) &&
        statusOf(found) === 404 &&
        bodyOf(found) === 'Method Not Allowed',
    },
    {
      reason: 'netlify-dev-charset',
      when: (found) =>
        found.problems.every((text) => /^header content-type: \["application\/json; charset=utf-8"\]/.test(text)),
    },
  ],
  'cloudflare-pages': WORKERD,
  'cloudflare-pages-static': PAGES_STATIC,
  apache: [
    ...QUERY_RULES,
    BAD_ESCAPE,
    LONG_NUMBER,
    {
      reason: 'apache-core-traversal',
      when: (found) => statusOf(found) === 400 && /(^|\/)(\.|%2e){2}(\/|$)/i.test(pathOf(found)),
    },
    {
      reason: 'apache-core-options',
      when: (found) => found.request.method === 'OPTIONS' && statusOf(found) === 200 && bodyOf(found) === '',
    },
    {
      reason: 'apache-unknown-method',
      when: (found) =>
        statusOf(found) === 405 && !['POST', 'PUT', 'PATCH', 'DELETE', 'TRACE'].includes(found.request.method),
    },
  ],
};

/** The reason of the first documented difference `found` is, or undefined when it is none. */
export function fuzzDifference(target: string, found: FuzzCase): ReasonId | undefined {
  return FUZZ_DIFFERENCES[target]?.find((difference) => difference.when(found))?.reason;
}

/** The fuzz annotation `<reason id>: <count> of <requests> (seed <seed>)` read back. */
export function fuzzReasonOf(annotation: string): { key: string; text: string; count: string } {
  const match = /^([a-z0-9-]+): (\d+ of \d+) \(seed (\d+)\)$/.exec(annotation);
  if (!match || !((match[1] as string) in REASONS))
    throw new Error(`not a fuzz annotation of fuzz.spec.ts: ${annotation}`);
  const key = match[1] as ReasonId;
  return { key, text: REASONS[key], count: `${match[2]} requests (seed ${match[3]})` };
}
