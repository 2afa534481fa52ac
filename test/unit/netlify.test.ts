// The Netlify target without Netlify: its _redirects run through netlify-redirector (the
// WASM build of Netlify's own redirect engine) and the function's handler run in-process.
// Together they model a request on Netlify: the function takes it first when its path matches
// (matched as Netlify does, without the trailing slash and lower-cased; every method);
// otherwise the first matching rule names a file and status. The function reads the build's
// files through the same rules. Every answer of that model is compared with the local
// server's. `netlify dev` runs the real thing in the end-to-end suite (test/e2e/targets/netlify.ts).

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuildResult, build } from '../../scripts/builder/build.ts';
import { declaredWithQueries } from '../../scripts/builder/site.ts';
import { DEFAULTS } from '../../scripts/cli/settings.ts';
import { type HeaderRule, parseHeadersFile } from '../../scripts/contract/headers.ts';
import {
  NOT_FOUND_FILE,
  planRoutes,
  REFERENCE_DOCUMENT,
  type Routed,
  routingOf,
} from '../../scripts/contract/routes.ts';
import { CDN_CACHE_CONTROL, createNetlifyFunction } from '../../scripts/respond/netlify-function.ts';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import type { FunctionConfig } from '../../scripts/targets/netlify/bundle.ts';
import { FUNCTION_FILE, FUNCTIONS_DIR, functionConfig } from '../../scripts/targets/netlify/netlify.ts';
import { FILES_PREFIX } from '../../scripts/targets/netlify/redirects.ts';
import { netlify as netlifyTarget } from '../../scripts/targets/netlify/target.ts';
import { API, declares, missingList, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';

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
let functionText: string;
/** The function's config as the build wrote it (the API's resources, the reference page). */
let config: FunctionConfig;

beforeAll(async () => {
  parent = await mkdtemp(path.join(tmpdir(), 'netlify-test-'));
  dir = path.join(parent, 'public');
  const targetsDir = path.join(parent, 'targets');
  built = await build({
    resources: API,
    ...DEFAULTS,
    dataDir: SAMPLE_DATA,
    headersPath: SAMPLE_HEADERS,
    outDir: dir,
    targetsDir,
    schemasDir: undefined,
    baseUrl: ORIGIN,
    targets: ['netlify'],
    reference: true,
  });
  matcher = await parsePlain(await readFile(path.join(targetsDir, 'netlify', '_redirects'), 'utf8'), {});
  rules = parseHeadersFile(await readFile(path.join(dir, '_headers'), 'utf8')).rules;
  server = createApiServer(dir, API);
  local = await listen(server, '127.0.0.1', 0);
  functionText = await readFile(path.join(targetsDir, 'netlify', FUNCTIONS_DIR, FUNCTION_FILE), 'utf8');
  config = configOf(functionText);
}, 30_000);

afterAll(async () => {
  await new Promise<void>((done) => server.close(() => done()));
  await rm(parent, { recursive: true, force: true });
});

/** The literal `export const config = {...}` Netlify reads from the function's source. */
function configOf(text: string): FunctionConfig {
  const literal = /\nexport const config = (\{[\s\S]*\});\n$/.exec(text)?.[1];
  expect(literal).toBeDefined();
  return JSON.parse(literal as string) as FunctionConfig;
}

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

/**
 * Netlify's function path matching (netlify-cli matchURLPath): the request's path without its
 * trailing slash and lower-cased is compared with each declared literal path; every method.
 */
function functionMatches(of: FunctionConfig, target: string): boolean {
  const pathname = new URL(target, ORIGIN).pathname;
  const normal = (pathname !== '/' && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname).toLowerCase();
  return of.path.some((pattern) => {
    expect(pattern, 'a literal path: no wildcard, parameter or group').not.toMatch(/[*:{[(]/);
    return pattern === normal;
  });
}

/** The static answer of a rule, as Netlify serves a file: the file's bytes, the rule's status (404 when none). */
async function staticAnswer(m: Match): Promise<Response> {
  const body = await readFile(path.join(dir, decodeURIComponent(m.to))).catch(() => null);
  if (body === null) return new Response('Not Found', { status: 404, headers: { 'Content-Type': 'text/html' } });
  return new Response(body, { status: m.status, headers: { 'Content-Type': 'application/json', ETag: '"static"' } });
}

/** The site as the function's own fetches see it: GET through the rules, never into a function. */
async function fetchSite(input: URL | Request | string): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : input);
  const target = url.pathname + url.search;
  const m = match(target);
  if (m === null || m.status !== 200 || functionMatches(config, target)) {
    throw new Error(`the function fetched ${target}, which no rule serves a file at (rule: ${JSON.stringify(m)})`);
  }
  return staticAnswer(m);
}

const handler = (fetcher: typeof fetchSite = fetchSite) =>
  createNetlifyFunction(rules, FILES_PREFIX, API, fetcher as typeof fetch);

/** A request on the model of Netlify. */
async function netlify(method: string, target: string): Promise<Response> {
  if (functionMatches(config, target)) return handler()(new Request(`${ORIGIN}${target}`, { method }));
  const m = match(target);
  if (m === null) throw new Error(`no rule for ${target}: the forced catch-all should match everything`);
  const response = await staticAnswer(m);
  return method === 'HEAD' ? new Response(null, { status: response.status, headers: response.headers }) : response;
}

async function pick(response: Response) {
  return { status: response.status, location: response.headers.get('location'), body: await response.text() };
}

describe("targets/netlify/_redirects in Netlify's redirect engine", () => {
  it(`serves every file of the build under ${FILES_PREFIX}/, and only there`, () => {
    for (const file of [...built.routes.map((route) => route.file), REFERENCE_DOCUMENT.file]) {
      expect(match(`${FILES_PREFIX}/${file}`), file).toMatchObject({ to: `/${file}`, status: 200, force: false });
      expect(match(`/${file}`), file).toMatchObject({ to: `/${NOT_FOUND_FILE}`, status: 404, force: true });
    }
  });

  it.each(['/nope/', '/', '/company/extra/', '/_headers', '/_api/company/'])('%s → the forced 404', (target) => {
    expect(match(target)).toMatchObject({ to: `/${NOT_FOUND_FILE}`, status: 404, force: true });
  });

  // A known limit (targets/netlify/README.md): the engine skips a rule that would rewrite a path to
  // itself, so the not-found file is served at its own path, with the right body and status 200.
  it('skips the catch-all for the 404 file itself', () => {
    expect(match(`/${NOT_FOUND_FILE}`)).toBeNull();
  });
});

describe('the function', () => {
  it('ends with its config as a literal export, which Netlify reads from the source', () => {
    expect(config).toEqual(functionConfig(API, [REFERENCE_DOCUMENT]));
    expect(functionText).toMatch(/^\/\/ Generated by `npm run build`/);
  });

  it('claims every list path and page, whatever the query, and none of the paths the files are served at', () => {
    for (const { path: list } of API) {
      for (const target of [list, list.slice(0, -1), list.toUpperCase(), `${list}?%70age=2`, `${list}?format=xml`]) {
        expect(functionMatches(config, target), target).toBe(true);
      }
    }
    expect(functionMatches(config, REFERENCE_DOCUMENT.path.slice(0, -1))).toBe(true);
    // netlify dev matches the functions again on a rewritten path.
    for (const file of [...built.routes.map((route) => route.file), REFERENCE_DOCUMENT.file]) {
      expect(functionMatches(config, `/${file}`), file).toBe(false);
    }
  });

  it('runs as a module: the bundle imports nothing', () => {
    expect(functionText).not.toMatch(/^import |\brequire\(/m);
  });

  it("is made of the declarations the build is given, not the sample's", async () => {
    // A list no fixture API declares.
    const material = {
      name: 'material',
      path: '/material/',
      title: 'Material List',
      orderingFields: [],
      paginated: true,
    };
    const resources = routingOf([...API, material as unknown as Routed]);
    const files = await netlifyTarget.files({
      routes: planRoutes(1, resources),
      documents: [],
      headerRules: rules,
      resources,
    });
    const text = files.get(`${FUNCTIONS_DIR}/${FUNCTION_FILE}`) as string;
    expect(configOf(text).path).toContain('/material');
    const module = path.join(parent, 'with-material.mjs');
    await writeFile(module, text);
    const own = (await import(pathToFileURL(module).href)) as { default: (request: Request) => Promise<Response> };
    const answer = await own.default(new Request(`${ORIGIN}/material/`, { method: 'POST' }));
    expect(await pick(answer)).toEqual({
      status: 405,
      location: null,
      body: '{"detail":"Method \\"POST\\" not allowed."}',
    });
    // The API's own function does not know the path.
    expect((await handler()(new Request(`${ORIGIN}/material/`, { method: 'POST' }))).status).toBe(404);
  });

  it("marks its answers for Netlify's CDN, but not a 500, and not over a rule of _headers' own", async () => {
    for (const [method, target] of [
      ['GET', '/company/'],
      ['GET', '/company/?format=xml'],
      ['GET', '/company'],
      ['HEAD', '/event/?ordering=-start_date,name'],
    ] as const) {
      expect((await netlify(method, target)).headers.get('netlify-cdn-cache-control'), target).toBe(CDN_CACHE_CONTROL);
    }
    const failing = handler(async () => new Response('no', { status: 503 }));
    const failed = await failing(new Request(`${ORIGIN}/company/`));
    expect(failed.status).toBe(500);
    expect(failed.headers.has('netlify-cdn-cache-control')).toBe(false);
    const own = createNetlifyFunction(
      [...rules, { pattern: '/company/', headers: [['CDN-Cache-Control', 'max-age=60']] }],
      FILES_PREFIX,
      API,
      fetchSite as typeof fetch,
    );
    const mine = await own(new Request(`${ORIGIN}/company/`));
    expect(mine.headers.get('cdn-cache-control')).toBe('max-age=60');
    expect(mine.headers.has('netlify-cdn-cache-control')).toBe(false);
  });
});

describe('a Range', () => {
  it("is answered by the worker's reading, and its 206 and 416 are kept out of Netlify's CDN", async () => {
    const whole = await readFile(path.join(dir, 'event/index.json'));
    const ask = (range: string) => handler()(new Request(`${ORIGIN}/event/`, { headers: { Range: range } }));
    const sliced = await ask('bytes=0-9');
    expect([sliced.status, sliced.headers.get('content-range')]).toEqual([206, `bytes 0-9/${whole.length}`]);
    expect(Buffer.from(await sliced.arrayBuffer())).toEqual(whole.subarray(0, 10));
    expect(sliced.headers.has('netlify-cdn-cache-control')).toBe(false);
    const past = await ask(`bytes=${whole.length}-`);
    expect([past.status, past.headers.has('netlify-cdn-cache-control')]).toEqual([416, false]);
    // A Range it ignores gets the whole list, which is kept as any.
    const ignored = await ask('bytes=0-1,4-5');
    expect([ignored.status, ignored.headers.get('netlify-cdn-cache-control')]).toEqual([200, CDN_CACHE_CONTROL]);
  });
});

describe('the deploy', () => {
  it("the workflow lays out the deployed folder as the target's README says", async () => {
    const readme = (
      await netlifyTarget.files({ resources: API, routes: built.routes, documents: [], headerRules: rules })
    ).get('README.md');
    const recipe = /```sh\n([\s\S]*?)```/.exec(readme as string)?.[1] ?? '';
    const layout = recipe
      .split('\n')
      .filter((line) => /^(rm|mkdir|cp|find) /.test(line.replace(/^rm -rf \S+ && /, '')));
    expect(layout.length).toBeGreaterThanOrEqual(4);
    const workflow = await readFile(
      path.join(import.meta.dirname, '../../.github/workflows/deploy-netlify.yml'),
      'utf8',
    );
    const steps = workflow.split('\n').map((line) => line.trim());
    for (const line of layout) expect(steps, line).toContain(line);
  });
});

describe('a request on Netlify answers as the local server', () => {
  const requests: Array<[method: string, target: string]> = [
    ['GET', '/company/'],
    ['GET', '/company/?format=api'],
    ['GET', '/company/?format='],
    ['GET', '/company/?format=xml'],
    ['GET', '/company/?%66ormat=xml'],
    ['GET', '/virtualfair/?x=1'],
    ['GET', '/event/?ordering=-start_date'],
    ['GET', '/event/?ordering=%2Did'],
    ['GET', '/event/?or%64ering=-id'],
    ['GET', '/event/?ordering=-start_date,name'],
    ['GET', '/event/?ordering=name,bogus,-id'],
    ['GET', '/event/?ordering=bogus'],
    ['GET', '/event/?ordering=%20-id'],
    ['GET', '/event/?ordering=-start_date&format=xml'],
    ['GET', '/virtualbooth-texture/?page=2&format=api'],
    ['GET', '/virtualbooth-texture/?%70age=2'],
    ['GET', '/virtualbooth-texture/?page=02'],
    ['GET', '/virtualbooth-texture/?page=%EF%BC%92'],
    ['GET', '/virtualbooth-texture/?page=last&format=json'],
    ['GET', '/virtualbooth-texture/?page=9999'],
    ['GET', '/virtualbooth-texture/?page=abc&format=api'],
    ['GET', '/virtualbooth-texture/?format=&page=2'],
    ['GET', '/nope/'],
    ['GET', '/company/index.json'],
    ['GET', '/Company/'],
    ['GET', '/company'],
    ['GET', '/company?x=1'],
    ['GET', REFERENCE_DOCUMENT.path],
    ['GET', REFERENCE_DOCUMENT.path.slice(0, -1)],
    ['POST', REFERENCE_DOCUMENT.path],
    ['HEAD', '/event/?ordering=-start_date,name'],
    ['HEAD', '/company/'],
    ['OPTIONS', '/event/'],
    ['OPTIONS', '/company/?format=xml'],
    ['OPTIONS', '/Company/'],
    ['POST', '/company/'],
    ['PROPFIND', '/company/'],
    ['DELETE', '/virtualbooth-texture/?page=2'],
    ['PATCH', '/event/?ordering=-id'],
  ];
  it.each(requests)('%s %s', async (method, target) => {
    const expected = await pick(await fetch(`${local}${target}`, { method, redirect: 'manual' }));
    expect(await pick(await netlify(method, target))).toEqual(expected);
  });

  it("puts the _headers headers on the function's answers, Allow included", async () => {
    for (const [method, target] of [
      ['OPTIONS', '/event/'],
      ['GET', '/event/'],
      ['GET', '/event/?ordering=-start_date,name'],
    ] as const) {
      const response = await netlify(method, target);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(response.headers.get('vary')).toBe('Accept');
    }
  });
});

describe('with filters, search and ordering in the settings (test/fixtures/filters/)', () => {
  let filtersParent: string;
  let filtersServer: http.Server;
  let filtersLocal: string;
  let answer: (request: Request) => Promise<Response>;
  let bundled: string;

  beforeAll(async () => {
    filtersParent = await mkdtemp(path.join(tmpdir(), 'netlify-filters-'));
    const outDir = path.join(filtersParent, 'public');
    const settingsPath = path.join(import.meta.dirname, '../fixtures/filters/static-api.config.json');
    const { resources: resourceSettings } = JSON.parse(await readFile(settingsPath, 'utf8'));
    const options = {
      ...DEFAULTS,
      dataDir: SAMPLE_DATA,
      headersPath: SAMPLE_HEADERS,
      outDir,
      targetsDir: path.join(filtersParent, 'targets'),
      baseUrl: ORIGIN,
    };
    await build({ resources: API, ...options, schemasDir: undefined, targets: ['netlify'], resourceSettings });
    bundled = await readFile(path.join(options.targetsDir, 'netlify', FUNCTIONS_DIR, FUNCTION_FILE), 'utf8');
    filtersServer = createApiServer(outDir, API);
    filtersLocal = await listen(filtersServer, '127.0.0.1', 0);
    // The site's rule for the files (proven above): `${FILES_PREFIX}/*` serves the build's file.
    const readSite = async (input: URL | Request | string) => {
      const { pathname } = new URL(input instanceof Request ? input.url : input);
      const body = await readFile(path.join(outDir, decodeURIComponent(pathname.slice(FILES_PREFIX.length)))).catch(
        () => null,
      );
      return body === null ? new Response('Not Found', { status: 404 }) : new Response(body, { status: 200 });
    };
    const resources = declaredWithQueries(API, resourceSettings, settingsPath);
    answer = createNetlifyFunction(rules, FILES_PREFIX, routingOf(resources ?? []), readSite as typeof fetch);
  }, 60_000);

  afterAll(async () => {
    await new Promise<void>((done) => filtersServer.close(() => done()));
    await rm(filtersParent, { recursive: true, force: true });
  });

  it('bundles the settings into the function: the filtered fields, which the API alone does not name', () => {
    expect(bundled).toContain('"country_name"');
    expect(functionText).not.toContain('"country_name"');
  });

  it.for([
    '/company/?country_name=Germany',
    '/company/?search=laser',
    '/company/?search=LASER,gmbh&ordering=-city',
    '/company/?platform_plus_status=maybe',
    '/company/?id=abc&platform_plus_status=maybe',
    '/company/?ordering=city',
    '/virtualbooth-texture/?search=oak',
    '/virtualbooth-texture/?ordering=-name&page=2',
    '/virtualbooth-texture/?name=Cork&format=json',
  ])('GET %s answers as the local server', async (target, { skip }) => {
    const list = target.split('/')[1] as string;
    skip(!declares(list), missingList(list));
    const expected = await pick(await fetch(`${filtersLocal}${target}`, { redirect: 'manual' }));
    expect(expected.status).not.toBe(404);
    expect(await pick(await answer(new Request(`${ORIGIN}${target}`)))).toEqual(expected);
  });
});
