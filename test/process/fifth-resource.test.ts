// A resource declared only for the tests (test/fixtures/extra-list/category.ts), beside the API's four
// (docs/architecture.md, "Adding a resource"): the texture categories, a UUID id and a name, by
// name, a page at a time. The build takes the list of declarations, and everything follows from
// it without a change elsewhere: the files and the route table, the local server over HTTP, the
// JSON Schema of its source files and the OpenAPI document (each checked by its validator), the reference page, the comparison of
// two builds (`npm run diff`), and the live preview, whose publications equal a full build. The
// targets that route without code take it beside a sixth list, ordered with `?ordering=`, so that
// their rules hold two lists of each kind: nginx, Caddy and Apache on the configurations the build
// writes for them, vercel.json through Vercel's route compiler, and Cloudflare Pages' static rules
// under `wrangler pages dev`.

import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv2020/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { referencePage } from '../../scripts/builder/documents/reference.ts';
import { LiveBuild } from '../../scripts/builder/preview/live-build.ts';
import { targetContext } from '../../scripts/builder/site.ts';
import { DEFAULTS } from '../../scripts/cli/settings.ts';
import { declare, UNIQUE_IDS } from '../../scripts/contract/resources/resource.ts';
import { planRoutes, resolve, routingOf } from '../../scripts/contract/routes.ts';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { compareSides } from '../../scripts/review/compare.ts';
import { formatMarkdown } from '../../scripts/review/format-markdown.ts';
import { formatText } from '../../scripts/review/format-text.ts';
import { readSide } from '../../scripts/review/side.ts';
import { cloudflarePagesStatic as cloudflarePagesStaticTarget } from '../../scripts/targets/cloudflare/targets.ts';
import { nginx } from '../../scripts/targets/web-servers/targets.ts';
import { cloudflarePagesStatic } from '../e2e/targets/cloudflare-pages-static.ts';
import { cloudflareWorkers } from '../e2e/targets/cloudflare-workers.ts';
import { freePort } from '../e2e/targets/process.ts';
import { category } from '../fixtures/extra-list/category.ts';
import { CATALOGUE as API, CATALOGUE_DATA as SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { builtSample } from '../unit/helpers/sample-output.ts';
import { readTreeText, tempDirs } from '../unit/helpers/tree.ts';
import { canonicalUrl, compileVercel, drfOutcome, vercelRouter } from '../unit/helpers/vercel-routes.ts';
import { installedWebServers } from '../unit/helpers/web-servers.ts';

const _ROOT = path.resolve(import.meta.dirname, '../..');

// API is the catalogue's four whatever SAMPLE_API says: this file adds its own lists to them.
const RESOURCES_WITH_CATEGORIES = [...API, category];

const PAGE_SIZE = 4;
const BASE_URL = 'http://localhost:8000';
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** Ten categories, written out of order: the list is by name. */
const CATEGORIES = Array.from({ length: 10 }, (_, i) => ({ id: uuid(i + 1), name: `Category ${(i * 7) % 10}` }));
const BY_NAME = [...CATEGORIES].sort((a, b) => (a.name < b.name ? -1 : 1));

const temp = tempDirs('fifth-resource-');

/** The sample data with the categories beside it. */
async function dataWithCategories(): Promise<string> {
  const dataDir = path.join(await temp(), 'data');
  cpSync(SAMPLE_DATA, dataDir, { recursive: true });
  mkdirSync(path.join(dataDir, 'category'));
  writeFileSync(path.join(dataDir, 'category', 'categories.json'), JSON.stringify(CATEGORIES, null, 2));
  return dataDir;
}

const options = (dataDir: string, dir: string) => ({
  resources: RESOURCES_WITH_CATEGORIES,
  dataDir,
  outDir: path.join(dir, 'public'),
  targetsDir: path.join(dir, 'targets'),
  schemasDir: path.join(dir, 'schemas'),
  headersPath: SAMPLE_HEADERS,
  baseUrl: BASE_URL,
  pageSize: PAGE_SIZE,
  reference: true,
});

const pageLink = (page: number) => `${BASE_URL}/category/?page=${page}`;

/**
 * A sixth list, for the web servers only: ordered with `?ordering=` like the events, so that their
 * configurations hold two ordered lists as well as two paginated ones.
 */
const tag = declare({
  name: 'tag',
  path: '/tag/',
  title: 'Tag List',
  one: 'a tag',
  many: 'tags',
  record: (field) => field.z.strictObject({ id: field.id(), name: field.nonEmpty() }),
  order: [],
  orderingFields: ['name'],
  paginated: false,
  buildOnlyRules: [UNIQUE_IDS],
  component: 'Tag',
  componentDescription: 'A tag.',
});
const TAGS = [
  { id: 3, name: 'beta' },
  { id: 1, name: 'gamma' },
  { id: 2, name: 'alpha' },
];
const RESOURCES_WITH_TAGS = [...RESOURCES_WITH_CATEGORIES, tag];

/** The sample data with the categories and the tags beside it. */
async function dataWithTags(): Promise<string> {
  const dataDir = await dataWithCategories();
  mkdirSync(path.join(dataDir, 'tag'));
  writeFileSync(path.join(dataDir, 'tag', 'tags.json'), JSON.stringify(TAGS));
  return dataDir;
}

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

describe('a fifth resource, declared only in this test', () => {
  it('is built: its pages, its OPTIONS body, and its routes in the route table', async () => {
    const dir = await temp();
    const result = await build({ ...options(await dataWithCategories(), dir), targets: [] });
    const files = await readTreeText(path.join(dir, 'public'));
    const routing = routingOf(RESOURCES_WITH_CATEGORIES);
    const categoryRoutes = result.routes.filter((route) => route.resource === 'category');
    expect(categoryRoutes).toEqual(planRoutes({ category: 3, 'virtualbooth-texture': 1 }, [category]));
    expect(categoryRoutes.map((route) => route.file)).toEqual(
      ['category/index', 'category/format=api', 'category/format=json'].flatMap((first) => {
        const folder = first === 'category/index' ? 'category' : first;
        return [`${first}.json`, ...['last', '2', '3'].map((page) => `${folder}/page=${page}.json`)];
      }),
    );
    for (const route of categoryRoutes) expect(files[route.file], route.file).toBeDefined();
    expect(JSON.parse(files['category/index.json'] as string)).toEqual({
      count: 10,
      next: pageLink(2),
      previous: null,
      results: BY_NAME.slice(0, 4),
    });
    expect(JSON.parse(files['category/page=last.json'] as string)).toEqual({
      count: 10,
      next: null,
      previous: pageLink(2),
      results: BY_NAME.slice(8),
    });
    expect(JSON.parse(files['_options/category.json'] as string).name).toBe('Category List');
    // The route table answers its requests, and a page beyond the last as Invalid page.
    expect(resolve('GET', '/category/?page=2', routing)).toMatchObject({ kind: 'file', file: 'category/page=2.json' });
    expect(resolve('GET', '/category', routing)).toMatchObject({ kind: 'redirect', location: '/category/' });
    expect(resolve('GET', '/category/?page=9', routing)).toMatchObject({ ifMissing: { status: 404 } });
    // The targets' READMEs count it with the API's lists.
    const context = targetContext(result.routes, [], { resources: RESOURCES_WITH_CATEGORIES });
    for (const target of [nginx, cloudflarePagesStaticTarget]) {
      expect((await target.files(context)).get('README.md'), target.name).toContain('the five lists');
    }
    // The four are as a build of the sample alone writes them.
    const sample = await readTreeText(await builtSample(await temp(), { baseUrl: DEFAULTS.baseUrl }));
    for (const file of ['company/index.json', 'virtualfair/index.json', 'event/ordering=-name.json']) {
      expect(files[file], file).toBe(sample[file]);
    }
  });

  it('is served by the local server over HTTP', async () => {
    const dir = await temp();
    await build({ ...options(await dataWithCategories(), dir), targets: [] });
    const server = createApiServer(path.join(dir, 'public'), routingOf(RESOURCES_WITH_CATEGORIES));
    servers.push(server);
    const origin = await listen(server, '127.0.0.1', 0);
    const page2 = await fetch(`${origin}/category/?page=2&format=json`);
    expect(page2.status).toBe(200);
    expect(page2.headers.get('content-type')).toBe('application/json');
    expect(page2.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const body = (await page2.json()) as { results: unknown; next: string };
    expect(body.results).toEqual(BY_NAME.slice(4, 8));
    expect(body.next).toBe(`${BASE_URL}/category/?format=json&page=3`);
    expect((await fetch(`${origin}/category/?page=4`)).status).toBe(404);
    expect(await (await fetch(`${origin}/category/?page=4`)).json()).toEqual({ detail: 'Invalid page.' });
    const metadata = await fetch(`${origin}/category/`, { method: 'OPTIONS' });
    expect(((await metadata.json()) as { name: string }).name).toBe('Category List');
    const post = await fetch(`${origin}/category/`, { method: 'POST' });
    expect(post.status).toBe(405);
    const redirect = await fetch(`${origin}/category?page=2`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([301, '/category/?page=2']);
  });

  it('is served by the Cloudflare worker under workerd (wrangler dev)', { timeout: 180_000 }, async () => {
    const dir = await temp();
    await build({ ...options(await dataWithCategories(), dir), targets: ['cloudflare-workers'] });
    const workDir = path.join(dir, 'work');
    mkdirSync(workDir);
    const port = await freePort();
    const running = await cloudflareWorkers.start({
      publicDir: path.join(dir, 'public'),
      targetsDir: path.join(dir, 'targets'),
      port,
      workDir,
    });
    try {
      const origin = `http://127.0.0.1:${port}`;
      const page2 = await fetch(`${origin}/category/?page=2`);
      expect(page2.status).toBe(200);
      expect(((await page2.json()) as { results: unknown }).results).toEqual(BY_NAME.slice(4, 8));
      const beyond = await fetch(`${origin}/category/?page=4`);
      expect([beyond.status, await beyond.json()]).toEqual([404, { detail: 'Invalid page.' }]);
      const metadata = await fetch(`${origin}/category/`, { method: 'OPTIONS' });
      expect(((await metadata.json()) as { name: string }).name).toBe('Category List');
    } finally {
      await running.stop();
    }
  });

  it('has a JSON Schema its source file meets, and a valid OpenAPI document its answers meet', async () => {
    const dir = await temp();
    await build({ ...options(await dataWithCategories(), dir), targets: [] });
    const schemas = path.join(dir, 'schemas');
    const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
    const fileSchema = readJson(path.join(schemas, 'category.schema.json'));
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
    const meets = ajv.compile(fileSchema);
    expect(meets(CATEGORIES), JSON.stringify(meets.errors)).toBe(true);
    expect(meets([{ id: 'not-a-uuid', name: 'x' }])).toBe(false);
    expect(meets([{ id: uuid(1), name: 'x', extra: 1 }])).toBe(false);

    const document = readJson(path.join(schemas, 'openapi.json'));
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(Object.keys(document.paths)).toContain('/category/');
    const answers = new Ajv2020({ allErrors: true, strict: false });
    answers.addSchema(document, 'openapi.json');
    const page = answers.compile({
      $ref: 'openapi.json#/paths/~1category~1/get/responses/200/content/application~1json/schema',
    });
    for (const file of ['category/index.json', 'category/page=2.json', 'category/format=api/page=last.json']) {
      const body = readJson(path.join(dir, 'public', file));
      expect(page(body), `${file}: ${JSON.stringify(page.errors)}`).toBe(true);
    }
    expect(page({ count: 1, next: null, previous: null, results: [{ id: uuid(1) }] })).toBe(false);
  });

  it('has its section on the reference page, with the fields of a record', () => {
    const html = referencePage(
      { baseUrl: BASE_URL, pageSize: PAGE_SIZE, resources: RESOURCES_WITH_CATEGORIES },
      readFileSync(SAMPLE_HEADERS, 'utf8'),
    );
    const section = html.slice(
      html.indexOf('<section id="category"'),
      html.indexOf('</section>', html.indexOf('<section id="category"')),
    );
    expect(section).toContain('<code>/category/</code>');
    const fields = section.slice(section.indexOf('Fields of a record'));
    expect([...fields.matchAll(/<th scope="row"><code>([^<]+)<\/code>/g)].map((match) => match[1])).toEqual([
      'id',
      'name',
    ]);
    expect(section).toContain('the number of categories over all pages');
    expect(html).toContain('<option value="/category/">/category/</option>');
  });

  it('is compared by npm run diff, which names a changed record and the pages that moved', async () => {
    const dataDir = await dataWithCategories();
    const [before, after] = [await temp(), await temp()];
    const noTargets = (dir: string) => ({ ...options(dataDir, dir), reference: false, targets: [] });
    await build(noTargets(before));
    const file = path.join(dataDir, 'category', 'categories.json');
    // The category named "Category 0" (the first by name) renamed to the end of the list.
    const renamed = CATEGORIES.map((record) => (record.name === 'Category 0' ? { ...record, name: 'Zed' } : record));
    writeFileSync(file, JSON.stringify(renamed));
    await build(noTargets(after));
    const side = (dir: string) => readSide(path.join(dir, 'public'), dir);
    const report = compareSides(await side(before), await side(after), RESOURCES_WITH_CATEGORIES);
    const id = (BY_NAME[0] as { id: string }).id;
    expect(report.identical).toBe(false);
    expect(report.resources.map((diff) => diff.resource)).toEqual([...API.map((r) => r.name), 'category']);
    const categories = report.resources.find((diff) => diff.resource === 'category');
    expect(categories).toEqual({
      resource: 'category',
      added: [],
      removed: [],
      changed: [{ id, name: 'Zed', fields: [{ path: 'name', before: 'Category 0', after: 'Zed' }] }],
    });
    for (const diff of report.resources.filter((diff) => diff.resource !== 'category')) {
      expect(diff, diff.resource).toEqual({ resource: diff.resource, added: [], removed: [], changed: [] });
    }
    // Its pages joined: the record moved from the first place to the last.
    expect(report.answers.reordered).toEqual([
      { answer: '/category/ (all pages)', moves: [{ id, before: 1, after: 10 }] },
    ]);
    // Its pages: the first two hold the records after it, each one place back; the textures' did not change.
    expect(report.answers.paginated).toEqual([{ resource: 'category', shifts: [{ from: 1, to: 2, by: -1 }] }]);
    expect(report.answers.pages).toEqual({ shifts: [] });
    expect(formatText(report, false, RESOURCES_WITH_CATEGORIES)).toContain('pages 1–2 shift back by one category');
    // One more category, and a texture page size: each list's pages said in its own words.
    writeFileSync(file, JSON.stringify([...renamed, { id: uuid(99), name: 'Zz' }]));
    const third = await temp();
    await build({ ...noTargets(third), pageSize: 3 });
    const grown = compareSides(await side(after), await side(third), RESOURCES_WITH_CATEGORIES);
    expect(grown.answers.paginated.map((pages) => [pages.resource, pages.count, pages.pageSize])).toEqual([
      ['virtualbooth-texture', undefined, { before: PAGE_SIZE, after: 3 }],
      ['category', { before: 10, after: 11 }, { before: PAGE_SIZE, after: 3 }],
    ]);
    const text = formatText(grown, false, RESOURCES_WITH_CATEGORIES);
    expect(text).toContain('category count: 10 → 11');
    expect(text).toContain(`page size ${PAGE_SIZE} → 3: every category page is cut anew`);
    expect(text).toContain(`page size ${PAGE_SIZE} → 3: every texture page is cut anew`);
    expect(formatMarkdown(grown, RESOURCES_WITH_CATEGORIES)).toContain('! category count: 10 → 11');
  });

  it('is published by the live preview as a full build writes it, also after a change', async () => {
    const dataDir = await dataWithCategories();
    const [live, full] = [await temp(), await temp()];
    const liveBuild = await LiveBuild.open({ ...options(dataDir, live), reference: false });
    await liveBuild.publish();
    const fullOptions = { ...options(dataDir, full), reference: false, targets: [], schemasDir: undefined };
    await build(fullOptions);
    expect(await readTreeText(path.join(live, 'public'))).toEqual(await readTreeText(path.join(full, 'public')));
    // A category renamed to the front, one added: the pages move.
    const changed = [
      { ...CATEGORIES[5], name: 'A first' },
      ...CATEGORIES.filter((_, i) => i !== 5),
      { id: uuid(99), name: 'Zed' },
    ];
    const file = path.join(dataDir, 'category', 'categories.json');
    writeFileSync(file, JSON.stringify(changed));
    await liveBuild.reload([file]);
    await liveBuild.publish();
    await build(fullOptions);
    const after = await readTreeText(path.join(full, 'public'));
    expect(JSON.parse(after['category/index.json'] as string).results[0].name).toBe('A first');
    expect(await readTreeText(path.join(live, 'public'))).toEqual(after);
  });

  describe('on nginx, Caddy and Apache, from the configurations the build writes', () => {
    const webServers = installedWebServers('the fifth resource');
    const resources = RESOURCES_WITH_TAGS;
    /** The requests each server must answer as the local server does: status, Location and body. */
    const requests: Array<[method: string, url: string]> = [
      ['GET', '/category/'],
      ['GET', '/category/?page=2'],
      ['GET', '/category/?format=json&page=3'],
      ['GET', '/category/?page=last&format=api'],
      ['GET', '/category/?page=%2B02'],
      ['GET', '/category/?page=1&page=3'],
      ['GET', '/category/?page=4'],
      ['GET', '/category/?page=abc'],
      ['GET', '/category/?format=xml'],
      ['HEAD', '/category/?page=2'],
      ['POST', '/category/'],
      ['GET', '/category?page=2'],
      ['GET', '/tag/'],
      ['GET', '/tag/?ordering=-name'],
      ['GET', '/tag/?ordering=%20name'],
      ['GET', '/tag/?ordering=-id'],
      ['GET', '/tag/?ordering=bogus'],
      ['GET', '/event/?ordering=-start_date'],
      ['GET', '/virtualbooth-texture/?page=2'],
      ['GET', '/company/'],
      ['GET', '/nope/'],
    ];
    // Apache's core answers OPTIONS itself, with no body (scripts/targets/web-servers/apache.ts).
    const metadataRequests: Record<string, Array<[string, string]>> = {
      nginx: [['OPTIONS', '/category/']],
      caddy: [['OPTIONS', '/category/']],
      apache: [],
    };

    async function answer(origin: string, method: string, url: string) {
      const response = await fetch(`${origin}${url}`, { method, redirect: 'manual' });
      return { status: response.status, location: response.headers.get('location'), body: await response.text() };
    }

    it.skipIf(webServers.length === 0)(
      'answer its pages, and the second ordered list, as the local server does',
      { timeout: 60_000 },
      async () => {
        const dir = await temp();
        const dataDir = await dataWithTags();
        const publicDir = path.join(dir, 'public');
        const targetsDir = path.join(dir, 'targets');
        await build({ ...options(dataDir, dir), resources, targets: webServers.map((server) => server.name) });
        const local = createApiServer(publicDir, routingOf(resources));
        servers.push(local);
        const localOrigin = await listen(local, '127.0.0.1', 0);
        const tagsByName = JSON.parse(readFileSync(path.join(publicDir, 'tag', 'ordering=-name.json'), 'utf8'));
        expect(tagsByName.map((record: { name: string }) => record.name)).toEqual(['gamma', 'beta', 'alpha']);
        for (const server of webServers) {
          const workDir = path.join(dir, `work-${server.name}`);
          mkdirSync(workDir);
          const running = await server.start({ publicDir, targetsDir, port: await freePort(), workDir });
          try {
            for (const [method, url] of [...requests, ...(metadataRequests[server.name] ?? [])]) {
              const expected = await answer(localOrigin, method, url);
              expect(await answer(running.origin, method, url), `${server.name}: ${method} ${url}`).toEqual(expected);
            }
          } finally {
            await running.stop();
          }
        }
      },
    );
  });

  it("is routed by vercel.json, as Vercel's route compiler compiles it", async () => {
    const dir = await temp();
    const result = await build({
      ...options(await dataWithTags(), dir),
      resources: RESOURCES_WITH_TAGS,
      reference: false,
      targets: ['vercel'],
    });
    const config = JSON.parse(readFileSync(path.join(dir, 'targets', 'vercel', 'vercel.json'), 'utf8'));
    const compiled = compileVercel(config);
    expect(compiled.error).toBeNull();
    const files = new Set(result.routes.map((route) => route.file));
    const routing = routingOf(RESOURCES_WITH_TAGS);
    const evaluate = vercelRouter(compiled, files);
    const routeUrls = result.routes
      .filter((route) => route.resource === 'category' || route.resource === 'tag')
      .flatMap((route) =>
        [undefined, 'api', 'json'].map((format) =>
          canonicalUrl(format ? { ...route, query: { ...route.query, format } } : route),
        ),
      );
    expect(routeUrls).toContain('/category/?format=json&page=3');
    const odd = [
      '/category',
      '/category/?page=1',
      '/category/?page=4',
      '/category/?page=abc',
      '/category/?format=xml',
      '/tag',
      '/tag/?ordering=bogus',
      '/tag/?ordering=-id',
      '/tag/?format=api&ordering=-name',
    ];
    for (const emptyIsAbsent of [true, false]) {
      for (const url of [...routeUrls, ...odd]) {
        expect(evaluate(url, emptyIsAbsent), url).toEqual(drfOutcome(url, files, routing));
      }
    }
    // What those look like: a page of the categories from its file, a page past the last the 404.
    expect(evaluate('/category/?page=2', true)).toEqual({ status: 200, file: 'category/page=2.json' });
    expect(evaluate('/tag/?ordering=-name', true)).toEqual({ status: 200, file: 'tag/ordering=-name.json' });
    expect(evaluate('/category/?page=4', true)).toEqual({ status: 404 });
  });

  it("is served by cloudflare-pages-static's rules under wrangler pages dev", { timeout: 180_000 }, async () => {
    const dir = await temp();
    await build({
      ...options(await dataWithTags(), dir),
      resources: RESOURCES_WITH_TAGS,
      reference: false,
      targets: ['cloudflare-pages-static'],
    });
    const workDir = path.join(dir, 'work');
    mkdirSync(workDir);
    const port = await freePort();
    const running = await cloudflarePagesStatic.start({
      publicDir: path.join(dir, 'public'),
      targetsDir: path.join(dir, 'targets'),
      port,
      workDir,
    });
    const file = (name: string) => JSON.parse(readFileSync(path.join(dir, 'public', name), 'utf8'));
    try {
      const origin = `http://127.0.0.1:${port}`;
      for (const name of ['category', 'tag']) {
        const list = await fetch(`${origin}/${name}/`);
        expect([list.status, await list.json()], name).toEqual([200, file(`${name}/index.json`)]);
        // Pages reads no query: each list is its first page, its default order (a known limit).
        const paged = await fetch(`${origin}/${name}/?page=2`);
        expect([paged.status, await paged.json()], name).toEqual([200, file(`${name}/index.json`)]);
        const redirect = await fetch(`${origin}/${name}?page=2`, { redirect: 'manual' });
        expect([redirect.status, redirect.headers.get('location')], name).toEqual([301, `/${name}/?page=2`]);
      }
      // Its files are not URLs of the API: the JSON 404.
      for (const own of ['/category/page=2.json', '/tag/ordering=-name.json', '/_options/category.json']) {
        const response = await fetch(`${origin}${own}`);
        expect([response.status, await response.json()], own).toEqual([404, { detail: 'Not found.' }]);
      }
    } finally {
      await running.stop();
    }
  });
});
