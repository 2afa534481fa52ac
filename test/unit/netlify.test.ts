// The Netlify target without Netlify: its _redirects run through netlify-redirector (the
// WASM build of Netlify's own redirect engine) and the two functions' handler run in-process.
// Together they model a request on Netlify: a function whose path and method match takes it
// first (matched as Netlify does, without the trailing slash and lower-cased); otherwise the
// first matching rule names a file and status, or rewrites to the query function. Every answer
// of that model is compared with the local server's. `netlify dev` runs the real thing in the
// end-to-end suite (test/e2e/targets/netlify.ts).

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuildResult, build } from '../../scripts/builder/build.ts';
import { DEFAULTS } from '../../scripts/cli/settings.ts';
import { type HeaderRule, parseHeadersFile } from '../../scripts/contract/headers.ts';
import { NOT_FOUND_FILE, RESOURCES, type Route, resolve } from '../../scripts/contract/routes.ts';
import { canonicalUrl, createNetlifyFunction, routeUrls } from '../../scripts/respond/netlify-function.ts';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import type { FunctionConfig } from '../../scripts/targets/netlify/bundle.ts';
import { FUNCTIONS_DIR, methodsConfig, QUERY_CONFIG } from '../../scripts/targets/netlify/netlify.ts';
import { FUNCTION_PREFIX, redirectRules } from '../../scripts/targets/netlify/redirects.ts';

/** The methods function's config for the API's resources. */
const METHODS_CONFIG = methodsConfig();

const ORIGIN = 'https://api.example.com';

/** What netlify-redirector's match() returns (the fields used here). */
interface Match {
  from: string;
  to: string;
  status: number;
  force: boolean;
}
interface Matcher {
  match(request: {
    scheme: string;
    host: string;
    path: string;
    query: string;
    getHeader: (name: string) => string;
    getCookie: (name: string) => string;
  }): Match | null;
}
const { parsePlain } = createRequire(import.meta.url)('netlify-redirector') as {
  parsePlain(text: string, options: object): Promise<Matcher>;
};

let parent: string;
let dir: string;
let built: BuildResult;
let matcher: Matcher;
let rules: HeaderRule[];
let server: http.Server;
let local: string;
let functionFiles: Map<string, string>;

beforeAll(async () => {
  parent = await mkdtemp(path.join(tmpdir(), 'netlify-test-'));
  dir = path.join(parent, 'public');
  const targetsDir = path.join(parent, 'targets');
  built = await build({
    ...DEFAULTS,
    outDir: dir,
    targetsDir,
    schemasDir: undefined,
    baseUrl: ORIGIN,
    targets: ['netlify'],
  });
  matcher = await parsePlain(await readFile(path.join(targetsDir, 'netlify', '_redirects'), 'utf8'), {});
  rules = parseHeadersFile(await readFile(path.join(dir, '_headers'), 'utf8')).rules;
  server = createApiServer(dir);
  local = await listen(server, '127.0.0.1', 0);
  functionFiles = new Map();
  for (const name of ['methods', 'query']) {
    functionFiles.set(name, await readFile(path.join(targetsDir, 'netlify', FUNCTIONS_DIR, `${name}.mjs`), 'utf8'));
  }
}, 30_000);

afterAll(async () => {
  await new Promise<void>((done) => server.close(() => done()));
  await rm(parent, { recursive: true, force: true });
});

function match(target: string): Match | null {
  const [rawPath = '', query = ''] = target.split(/\?(.*)/s);
  return matcher.match({
    scheme: 'https',
    host: 'api.example.com',
    path: rawPath,
    query,
    getHeader: () => '',
    getCookie: () => '',
  });
}

/** Netlify's function path matching (netlify-cli matchURLPath): no trailing slash, lower case, `*` any rest. */
function functionMatches(config: FunctionConfig, method: string, target: string): boolean {
  if (config.method && !config.method.includes(method)) return false;
  const pathname = new URL(target, ORIGIN).pathname;
  const normal = (p: string) => (p !== '/' && p.endsWith('/') ? p.slice(0, -1) : p).toLowerCase();
  return config.path.some((pattern) => {
    const source = normal(pattern)
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    return new RegExp(`^${source}$`).test(normal(pathname));
  });
}

/** The static answer of a rule, as Netlify serves a file: the file's bytes, the rule's status. */
async function staticAnswer(m: Match): Promise<Response> {
  const body = await readFile(path.join(dir, decodeURIComponent(m.to)));
  return new Response(body, { status: m.status, headers: { 'Content-Type': 'application/json', ETag: '"static"' } });
}

/** The site as the function's own fetches see it: GET through the rules, never into a function. */
async function fetchSite(input: URL | Request | string): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : input);
  const target = url.pathname + url.search;
  const m = match(target);
  if (m === null || m.to.startsWith(`${FUNCTION_PREFIX}/`) || functionMatches(METHODS_CONFIG, 'GET', target)) {
    throw new Error(`the function fetched ${target}, which no file answers (rule: ${JSON.stringify(m)})`);
  }
  return staticAnswer(m);
}

const handler = () => createNetlifyFunction(rules, routeUrls(built.routes), FUNCTION_PREFIX, fetchSite as typeof fetch);

/**
 * A request on the model of Netlify. `rewritten` chooses which URL the query function is handed
 * after a rewrite: Netlify's docs do not say, so the handler must answer alike with either.
 */
async function netlify(method: string, target: string, rewritten = false): Promise<Response> {
  if (functionMatches(METHODS_CONFIG, method, target)) return handler()(new Request(`${ORIGIN}${target}`, { method }));
  if (functionMatches(QUERY_CONFIG, method, target)) return handler()(new Request(`${ORIGIN}${target}`, { method }));
  const m = match(target);
  if (m === null) throw new Error(`no rule for ${target}: the forced catch-all should match everything`);
  if (m.to.startsWith(`${FUNCTION_PREFIX}/`)) {
    const search = target.includes('?') ? target.slice(target.indexOf('?')) : '';
    return handler()(new Request(`${ORIGIN}${rewritten ? m.to + search : target}`, { method }));
  }
  const response = await staticAnswer(m);
  return method === 'HEAD' ? new Response(null, { status: response.status, headers: response.headers }) : response;
}

async function pick(response: Response) {
  return { status: response.status, location: response.headers.get('location'), body: await response.text() };
}

describe("targets/netlify/_redirects in Netlify's redirect engine", () => {
  it('answers the canonical URL of every route from its file, status 200, never through the function', () => {
    for (const route of built.routes) {
      const m = match(canonicalUrl(route));
      expect(m, canonicalUrl(route)).toMatchObject({ to: `/${route.file}`, status: 200, force: false });
    }
  });

  it('answers every route with format=api and format=json from the file resolve() names', () => {
    for (const route of built.routes) {
      for (const format of ['api', 'json']) {
        const target = canonicalUrl({ ...route, query: { ...route.query, format } } as Route);
        const answer = resolve('GET', target);
        expect(answer.kind, target).toBe('file');
        expect(match(target), target).toMatchObject({ to: `/${(answer as { file: string }).file}`, status: 200 });
      }
    }
  });

  // A query is either answered from the file DRF's answer is in, or by the function; never from another file.
  it.each([
    ['/event/?x=1&ordering=-id', '/event/ordering=-id.json'],
    ['/event/?ordering=%2Did', '/event/ordering=-id.json'],
    ['/event/?ordering=name&ordering=-id', '/event/ordering=-id.json'],
    ['/event/?ordering=-id&ordering=name', '/event/ordering=name.json'],
    ['/event/?ordering=id', '/event/index.json'],
    ['/event/?ORDERING=-id', '/event/index.json'],
    ['/event/?ordering', '/event/index.json'],
    ['/event/?format', '/event/index.json'],
    ['/event/?format=api&ordering=-start_date', '/event/ordering=-start_date.json'],
    ['/event/?format=xml&format=json', '/event/index.json'],
    ['/company/?x=1&y=%FF', '/company/index.json'],
    ['/virtualbooth-texture/?page=1', '/virtualbooth-texture/index.json'],
    ['/virtualbooth-texture/?zzz=1&page=2&format=api', '/virtualbooth-texture/format=api/page=2.json'],
    ['/virtualbooth-texture/?page=2&page=3', '/virtualbooth-texture/page=3.json'],
    ['/virtualbooth-texture/?format=json&page=last', '/virtualbooth-texture/format=json/page=last.json'],
  ])('%s → the file %s', (target, file) => {
    expect(match(target)).toMatchObject({ to: file, status: 200 });
  });

  it.each([
    // Several fields, an unknown field, padding: DRF sorts, drops or strips; a file cannot.
    ['/event/?ordering=-start_date,name', '/event/'],
    ['/event/?ordering=-start_date%2Cname', '/event/'],
    ['/event/?ordering=bogus', '/event/'],
    ['/event/?ordering=-ID', '/event/'],
    ['/event/?ordering=', '/event/'],
    ['/event/?ordering=+-id', '/event/'],
    ['/event/?ordering=-id&format=xml', '/event/'],
    // Netlify cannot tell an empty format (DRF: no override) from an unknown one (DRF: 404).
    ['/company/?format=', '/company/'],
    ['/company/?format=xml', '/company/'],
    ['/company/?format=api&format=xml', '/company/'],
    ['/virtualfair/?format=API', '/virtualfair/'],
    ['/virtualbooth-texture/?page=02', '/virtualbooth-texture/'],
    ['/virtualbooth-texture/?page=abc', '/virtualbooth-texture/'],
    ['/virtualbooth-texture/?page=9999', '/virtualbooth-texture/'],
    ['/virtualbooth-texture/?page=', '/virtualbooth-texture/'],
    ['/virtualbooth-texture/?format=&page=2', '/virtualbooth-texture/'],
    ['/virtualbooth-texture/?format=xml&page=2', '/virtualbooth-texture/'],
    ['/virtualbooth-texture/?page=2&format=', '/virtualbooth-texture/'],
  ])('%s → the query function', (target, list) => {
    expect(match(target)).toMatchObject({ to: `${FUNCTION_PREFIX}${list}`, status: 200, force: false });
  });

  it.each([
    '/nope/',
    '/',
    '/company/index.json',
    '/event/ordering=-id.json',
    '/_errors/invalid-page.json',
    '/company/extra/',
    '/_headers',
  ])('%s → the forced 404', (target) => {
    expect(match(target)).toMatchObject({ to: `/${NOT_FOUND_FILE}`, status: 404, force: true });
  });

  // A known limit (targets/netlify/README.md): the engine skips a rule that would rewrite a path to
  // itself, so the not-found file is served at its own path, with the right body and status 200.
  it('skips the catch-all for the 404 file itself', () => {
    expect(match(`/${NOT_FOUND_FILE}`)).toBeNull();
  });

  it('matches a list path without its slash like the path (so a slash rule would loop)', () => {
    expect(match('/company')).toMatchObject({ to: '/company/index.json', status: 200 });
    expect(match('/event?ordering=-id')).toMatchObject({ to: '/event/ordering=-id.json', status: 200 });
  });

  it('forces only the catch-all: a rule never hides a file at its own path, and every other rule is a 200', () => {
    const all = redirectRules(built.routes, []);
    expect(all.filter((rule) => rule.force)).toEqual([all.at(-1)]);
    expect(all.slice(0, -1).every((rule) => rule.status === 200)).toBe(true);
  });
});

describe('the functions', () => {
  it.each([
    ['methods', METHODS_CONFIG],
    ['query', QUERY_CONFIG],
  ] as const)(
    '%s.mjs ends with its config as a literal export, which Netlify reads from the source',
    (name, config) => {
      const text = functionFiles.get(name) as string;
      const literal = /\nexport const config = (\{[\s\S]*\});\n$/.exec(text)?.[1];
      expect(literal).toBeDefined();
      expect(JSON.parse(literal as string)).toEqual(config);
      expect(text).toMatch(/^\/\/ Generated by `npm run build`/);
    },
  );

  it('claims only methods a Netlify function may claim, and never GET or HEAD on the list paths', () => {
    // zip-it-and-ship-it's in-source config schema: GET, POST, PUT, PATCH, OPTIONS, DELETE, HEAD.
    for (const method of METHODS_CONFIG.method ?? [])
      expect(['POST', 'PUT', 'PATCH', 'OPTIONS', 'DELETE']).toContain(method);
    for (const { path: list } of RESOURCES) {
      expect(functionMatches(METHODS_CONFIG, 'GET', list)).toBe(false);
      expect(functionMatches(METHODS_CONFIG, 'OPTIONS', list)).toBe(true);
    }
  });

  it('runs as a module: the bundle imports nothing', () => {
    for (const text of functionFiles.values()) expect(text).not.toMatch(/^import |\brequire\(/m);
  });
});

describe('a request on Netlify answers as the local server', () => {
  const requests: Array<[method: string, target: string]> = [
    ['GET', '/company/'],
    ['GET', '/company/?format=api'],
    ['GET', '/company/?format='],
    ['GET', '/company/?format=xml'],
    ['GET', '/virtualfair/?x=1'],
    ['GET', '/event/?ordering=-start_date'],
    ['GET', '/event/?ordering=%2Did'],
    ['GET', '/event/?ordering=-start_date,name'],
    ['GET', '/event/?ordering=name,bogus,-id'],
    ['GET', '/event/?ordering=bogus'],
    ['GET', '/event/?ordering=%20-id'],
    ['GET', '/event/?ordering=-start_date&format=xml'],
    ['GET', '/virtualbooth-texture/?page=2&format=api'],
    ['GET', '/virtualbooth-texture/?page=02'],
    ['GET', '/virtualbooth-texture/?page=%EF%BC%92'],
    ['GET', '/virtualbooth-texture/?page=last&format=json'],
    ['GET', '/virtualbooth-texture/?page=9999'],
    ['GET', '/virtualbooth-texture/?page=abc&format=api'],
    ['GET', '/virtualbooth-texture/?format=&page=2'],
    ['GET', '/nope/'],
    ['GET', '/company/index.json'],
    ['GET', '/Company/'],
    ['HEAD', '/event/?ordering=-start_date,name'],
    ['HEAD', '/company/'],
    ['OPTIONS', '/event/'],
    ['OPTIONS', '/company/?format=xml'],
    ['OPTIONS', '/Company/'],
    ['POST', '/company/'],
    ['DELETE', '/virtualbooth-texture/?page=2'],
    ['PATCH', '/event/?ordering=-id'],
    ['POST', '/company/extra/'],
  ];
  it.each(requests)('%s %s', async (method, target) => {
    const expected = await pick(await fetch(`${local}${target}`, { method, redirect: 'manual' }));
    expect(await pick(await netlify(method, target))).toEqual(expected);
    // The query function answers alike whichever URL Netlify hands it after the rewrite.
    expect(await pick(await netlify(method, target, true))).toEqual(expected);
  });

  it("puts the _headers headers on the functions' answers, Allow included", async () => {
    for (const [method, target] of [
      ['OPTIONS', '/event/'],
      ['GET', '/event/?ordering=-start_date,name'],
    ] as const) {
      const response = await netlify(method, target);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(response.headers.get('vary')).toBe('Accept');
    }
  });

  // A known limit (targets/netlify/README.md): no rule or function can tell /company from /company/.
  it('answers a list path without its slash like the path, not with the 301', async () => {
    expect((await fetch(`${local}/company?x=1`, { redirect: 'manual' })).status).toBe(301);
    expect(await pick(await netlify('GET', '/company?x=1'))).toEqual(await pick(await fetch(`${local}/company/`)));
  });
});
