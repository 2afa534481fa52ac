// The API reference page (builder/documents/reference.ts, docs/reference.md): a build with it off writes
// exactly what it wrote before the page existed; on, it adds one file, whose bytes depend on the
// route table, `_headers` and the page size but on no record and not on the base URL; its
// policy lets only its own script and style run; the route table answers its path, with the
// API's 404 when the build has no page; and the setting is read like the others.

import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BuildOptions, build } from '../../scripts/builder/build.ts';
import { referencePage } from '../../scripts/builder/documents/reference.ts';
import { fixedBody } from '../../scripts/contract/bodies.ts';
import { formatOrdering } from '../../scripts/contract/ordering.ts';
import { event } from '../../scripts/contract/resources/index.ts';
import {
  NOT_FOUND_FILE,
  orderingsOf,
  planDocuments,
  REFERENCE_DOCUMENT,
  resolve,
} from '../../scripts/contract/routes.ts';
import { createHandler, type FileStore } from '../../scripts/respond/handler.ts';
import { apache } from '../e2e/targets/apache.ts';
import { caddy } from '../e2e/targets/caddy.ts';
import { nginx } from '../e2e/targets/nginx.ts';
import { freePort } from '../e2e/targets/process.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { findProgram, reportMissing } from '../installed.ts';
import { readSampleSettings as readSettings } from '../unit/helpers/cli.ts';
import { readTree, tempDirs } from '../unit/helpers/tree.ts';

const tempDir = tempDirs('reference-test-');
const HEADERS = SAMPLE_HEADERS;

async function built(overrides: Partial<BuildOptions> = {}, dir?: string): Promise<Map<string, Buffer>> {
  const folder = dir ?? (await tempDir());
  const outDir = path.join(folder, 'public');
  await build({
    resources: API,
    dataDir: SAMPLE_DATA,
    headersPath: HEADERS,
    baseUrl: 'http://localhost:3000',
    pageSize: 10,
    outDir,
    targetsDir: path.join(folder, 'targets'),
    targets: [],
    ...overrides,
  });
  return readTree(outDir);
}

describe('the reference page in the build', () => {
  it('off: no file of the page, and the very files of a build without the setting; on: one file more', async () => {
    const [absent, off, on] = await Promise.all([built(), built({ reference: false }), built({ reference: true })]);
    expect([...off.keys()].filter((file) => file.startsWith('_reference'))).toEqual([]);
    expect(off).toEqual(absent);
    const page = on.get(REFERENCE_DOCUMENT.file);
    expect(page?.toString('utf8')).toMatch(/^<!doctype html>/);
    on.delete(REFERENCE_DOCUMENT.file);
    // Netlify's rule for the page is in targets/netlify/_redirects (reference-targets.test.ts).
    expect(on).toEqual(off);
  });

  it('depends on no record and not on the base URL, only on the route table, _headers and the page size', async () => {
    const sample = await built({ reference: true });
    const other = await built({
      reference: true,
      dataDir: 'test/fixtures/good/data',
      baseUrl: 'https://api.example.com',
    });
    expect(other.get(REFERENCE_DOCUMENT.file)).toEqual(sample.get(REFERENCE_DOCUMENT.file));
    const text = (pageSize: number) =>
      referencePage({ resources: API, baseUrl: 'http://localhost:3000', pageSize }, 'x');
    expect(text(10)).toBe(text(10));
  });
});

describe('the reference page', () => {
  const headers = `/*\n  Content-Type: application/json\n  Vary: Accept\n  Allow: GET, HEAD, OPTIONS\n`;
  const page = referencePage({ resources: API, baseUrl: 'http://localhost:3000', pageSize: 7 }, headers);

  it('names every path, every event ordering, page and format, and the headers', () => {
    for (const resource of API) expect(page).toContain(`<h2 id="${resource.name}-title"><code>${resource.path}</code>`);
    for (const terms of orderingsOf(event.orderingFields))
      expect(page).toContain(`<code>${formatOrdering(terms)}</code>`);
    expect(page).toContain('<code>id</code>');
    expect(page).toContain('<code>last</code>');
    expect(page).toContain('<code>api</code>, <code>json</code>');
    expect(page).toContain('data-page-size="7"');
    expect(page).toContain('<th scope="row"><code>Allow</code></th><td><code>GET, HEAD, OPTIONS</code></td>');
    expect(page).toContain(
      '<th scope="row"><code>Vary</code></th><td><code>Accept</code>, or <code>Accept, Accept-Encoding</code></td>',
    );
    // Field rules, nested fields included, in the words of the build's own messages (a data
    // problem says `expected a colour of the form #rrggbb`), never a regular expression.
    const rule = (field: string, words: string) => `<th scope="row"><code>${field}</code></th><td>${words}</td>`;
    expect(page).toContain(rule('logo_bg_color', 'a colour of the form #rrggbb; or null'));
    expect(page).toContain(
      rule('tags', 'comma-separated labels with no space after a comma and no empty label; or null'),
    );
    expect(page).toContain(rule('logo', 'an absolute http(s) URL; or null'));
    expect(page).toContain(rule('events[].start_date', 'a date YYYY-MM-DD that exists on the calendar'));
    expect(page).toContain(
      rule('categories', 'list, each a lower-case UUID (8-4-4-4-12 hex digits), at least 1, no repeats'),
    );
    expect(page).not.toMatch(/<td>[^<]*(matching|\^\[|\$<)/);
    expect(page).toContain('<code>events[].short_code</code>');
    expect(page).toContain('<code>zoom.translation_factor_7</code>');
  });

  it('runs only its own script and style, and connects to its origin only', () => {
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page)?.[1] ?? '';
    const inline = (tag: string) => new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(page)?.[1] ?? '';
    const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain(`script-src ${hash(inline('script'))};`);
    expect(policy).toContain(`style-src ${hash(inline('style'))};`);
    expect(policy).toContain("connect-src 'self';");
    expect(page).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
  });
});

describe('the route table and the handler', () => {
  const rules = [{ pattern: '/*', headers: [['Content-Type', 'application/json'] as [string, string]] }];
  const store = (files: Record<string, string>): FileStore<string> => ({
    async open(file) {
      const text = files[file];
      if (text === undefined) return null;
      return { etag: async () => '"e"', text: async () => text, body: text };
    },
  });

  it('knows the page only when the setting is on', () => {
    expect(planDocuments({ reference: false })).toEqual([]);
    expect(planDocuments({ reference: true })).toEqual([REFERENCE_DOCUMENT]);
  });

  it('answers the page with its file and type, and the API 404 without it or for another method', async () => {
    const notFound = { kind: 'file', status: 404, file: NOT_FOUND_FILE };
    expect(resolve('GET', '/_reference/?x=1', API)).toEqual({
      kind: 'file',
      status: 200,
      file: REFERENCE_DOCUMENT.file,
      contentType: REFERENCE_DOCUMENT.contentType,
      ifMissing: notFound,
    });
    expect(resolve('POST', '/_reference/', API)).toEqual(notFound);
    expect(resolve('GET', '/_reference', API)).toEqual(notFound);
    expect(resolve('GET', '/_reference/index.htm', API)).toEqual(notFound);
    const handler = createHandler(rules, API);
    const on = await handler.answer(
      { method: 'GET', url: '/_reference/' },
      store({ [REFERENCE_DOCUMENT.file]: '<p>' }),
    );
    expect(on.status).toBe(200);
    expect(on.headers).toEqual({ 'Content-Type': REFERENCE_DOCUMENT.contentType, ETag: '"e"' });
    const off = await handler.answer({ method: 'GET', url: '/_reference/' }, store({}));
    expect(off).toEqual({
      status: 404,
      headers: { 'Content-Type': 'application/json' },
      body: fixedBody(NOT_FOUND_FILE, API),
    });
  });
});

describe('the reference setting', () => {
  it('is on in npm start and npm run dev, off in npm run build, and can be turned either way', () => {
    expect(readSettings([], {}, 'build').reference).toBe(false);
    expect(readSettings([], {}, 'start').reference).toBe(true);
    expect(readSettings([], {}, 'dev').reference).toBe(true);
    expect(readSettings(['--reference', 'off'], {}, 'dev').reference).toBe(false);
    expect(readSettings([], { REFERENCE: 'on' }, 'build').reference).toBe(true);
    expect(() => readSettings(['--reference', 'yes'], {}, 'build')).toThrow('--reference must be on or off, got "yes"');
    expect(() => readSettings(['--reference', 'on'], {}, 'serve')).toThrow(
      '--reference does not apply to npm run serve',
    );
  });

  it('is read from the settings file as true or false', async () => {
    const config = path.join(await tempDir(), 'static-api.config.json');
    writeFileSync(config, JSON.stringify({ reference: true }));
    expect(readSettings(['--config', config], {}, 'build').reference).toBe(true);
    expect(readSettings(['--config', config, '--reference', 'off'], {}, 'build').reference).toBe(false);
    writeFileSync(config, JSON.stringify({ reference: 'on' }));
    expect(() => readSettings(['--config', config], {}, 'build')).toThrow(
      `reference in ${config} must be true or false, got "on"`,
    );
  });
});

const SERVERS = [nginx, caddy, apache];
const installed = SERVERS.filter((server) => findProgram(server.needs?.names ?? []) !== undefined);
for (const server of SERVERS) {
  if (!installed.includes(server))
    reportMissing(server.needs?.what ?? server.name, `the reference page on ${server.name}`);
}

describe.runIf(installed.length > 0)('the reference page on the web servers', () => {
  const names = SERVERS.map((server) => server.name);

  it('off: the configurations of a build without the setting', async () => {
    const [absent, off] = await Promise.all(
      [{}, { reference: false }].map(async (overrides) => {
        const dir = await tempDir();
        await built({ ...overrides, targets: names }, dir);
        return readTree(path.join(dir, 'targets'));
      }),
    );
    expect(off).toEqual(absent);
  });

  it.each(installed.map((server) => [server.name, server] as const))(
    '%s serves it for GET and HEAD as HTML, and answers 404 Not found otherwise',
    async (_name, server) => {
      const dir = await tempDir();
      await built({ reference: true, targets: [server.name] }, dir);
      const workDir = path.join(dir, 'work');
      await mkdir(workDir);
      const publicDir = path.join(dir, 'public');
      const targetsDir = path.join(dir, 'targets');
      const running = await server.start({ publicDir, targetsDir, port: await freePort(), workDir });
      try {
        const ask = async (method: string, target: string) => {
          const response = await fetch(`${running.origin}${target}`, { method });
          return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
        };
        const page = await ask('GET', '/_reference/?x=1');
        expect(page.status).toBe(200);
        expect(page.type).toBe(REFERENCE_DOCUMENT.contentType);
        expect(page.body).toMatch(/^<!doctype html>/);
        expect(await ask('HEAD', '/_reference/')).toMatchObject({ status: 200, type: REFERENCE_DOCUMENT.contentType });
        const notFound = { status: 404, type: 'application/json', body: fixedBody(NOT_FOUND_FILE, API) };
        for (const [method, target] of [
          ['POST', '/_reference/'],
          ['GET', '/_reference'],
          ['GET', `/${REFERENCE_DOCUMENT.file}`],
        ] as const) {
          expect(await ask(method, target), `${method} ${target}`).toEqual(notFound);
        }
        expect((await ask('GET', '/company/')).type).toBe('application/json');
      } finally {
        await running.stop();
      }
    },
    30_000,
  );
});

describe('the reference page of a build with filters, search and ordering (test/fixtures/filters/)', () => {
  it("lists each list's filters, its search and its ordering as parameters", async () => {
    const { readFile } = await import('node:fs/promises');
    const { declaredWithQueries } = await import('../../scripts/builder/site.ts');
    const settingsPath = path.join(import.meta.dirname, '../fixtures/filters/static-api.config.json');
    const { resources: resourceSettings } = JSON.parse(await readFile(settingsPath, 'utf8'));
    const resources = declaredWithQueries(API, resourceSettings, settingsPath);
    const page = referencePage({ baseUrl: 'http://localhost:3000', pageSize: 10, resources }, 'x');
    /** The section of one list, up to the next list's. */
    const section = (name: string) => {
      const from = page.indexOf(`id="${name}"`);
      const next = API.map((other) => page.indexOf(`id="${other.name}"`)).filter((at) => at > from);
      return page.slice(from, next.length > 0 ? Math.min(...next) : undefined);
    };
    const company = section('company');
    for (const name of ['country_name', 'city', 'platform_plus_status', 'search', 'ordering']) {
      expect(company).toContain(`<th scope="row"><code>${name}</code></th>`);
    }
    expect(company).toContain('<code>true</code>, <code>false</code>');
    expect(section('virtualfair')).not.toContain('<code>search</code></th>');
    expect(section('virtualfair')).toContain('<code>format</code></th>');

    // The request form offers them, each for its own list, and nothing else changes in it.
    const form = (text: string) => /<form id="try-form">[\s\S]*?<\/form>/.exec(text)?.[0] ?? '';
    const offered = form(page);
    expect(offered).toContain(
      '<label data-for="/company/">country_name <input type="text" name="company.country_name" data-param="country_name" autocomplete="off" spellcheck="false"></label>',
    );
    expect(offered).toContain(
      '<label data-for="/company/">id <input type="text" name="company.id" data-param="id" autocomplete="off" spellcheck="false" inputmode="numeric"></label>',
    );
    expect(offered).toContain(
      '<label data-for="/company/">platform_plus_status <select name="company.platform_plus_status" data-param="platform_plus_status"><option value="">(any)</option><option value="true">true</option><option value="false">false</option></select></label>',
    );
    expect(offered).toContain(
      '<label data-for="/virtualbooth-texture/">search <input type="search" name="virtualbooth-texture.search" data-param="search" autocomplete="off"></label>',
    );
    expect(offered).toContain(
      '<select name="company.ordering" data-param="ordering"><option value="">(default)</option><option value="id">id</option><option value="-id">-id</option><option value="name">name</option>',
    );
    const controls = offered.match(/<label data-for="[^"]+">[^<]+<(?:input|select)[^>]* data-param=/g) ?? [];
    const filters = (name: string) => resourceSettings[name].filterset_fields.length;
    // Each filter, then a search and an ordering, of the companies and of the textures.
    expect(controls).toHaveLength(filters('company') + 2 + filters('virtualbooth-texture') + 2);
    const plain = form(referencePage({ resources: API, baseUrl: 'http://localhost:3000', pageSize: 10 }, 'x'));
    expect(plain).not.toContain('data-param');
    expect(
      offered.replace(/\n<label data-for="[^"]+">[^<]+<(?:input|select)[^>]* data-param=[\s\S]*?<\/label>/g, ''),
    ).toBe(plain);
  });
});
