// Filters, search and ordering over HTTP: `npm start` on the sample data with a settings file
// that turns them on for the companies and the textures (test/fixtures/filters/), each answer
// compared with what the unfiltered lists, which the build writes as files, give when filtered
// here by hand. Then the settings file's mistakes, each said with its JSON pointer.

import type { ChildProcess } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { outputArgs, ROOT, runCommand, startCommand } from '../unit/helpers/cli.ts';

const SETTINGS = path.join(ROOT, 'test/fixtures/filters/static-api.config.json');
const WAIT_MS = 60_000;

interface Company {
  id: number;
  name: string;
  city: string;
  zip_code: string;
  country_name: string;
  platform_plus_status: boolean;
  phone: string | null;
}
interface Texture {
  id: string;
  name: string;
}

let dir: string;
let server: ChildProcess;
let origin: string;
let companies: Company[];
let textures: Texture[];

const get = (target: string) => fetch(`${origin}${target}`);

/** The JSON text DRF writes: JSON.stringify's, with U+2028 and U+2029 escaped. */
const drfJson = (value: unknown) =>
  JSON.stringify(value).replace(/[\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16)}`);

/** Code-point order, as PostgreSQL with a C collation and Python compare. */
const byCodePoints = (a: string, b: string) => {
  const [x, y] = [[...a], [...b]];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i]?.codePointAt(0) as number) - (y[i]?.codePointAt(0) as number);
    if (d !== 0) return d;
  }
  return x.length - y.length;
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'filters-http-'));
  await cp(SAMPLE_DATA, path.join(dir, 'data'), { recursive: true });
  await cp(SAMPLE_HEADERS, path.join(dir, '_headers'));
  await cp(SETTINGS, path.join(dir, 'static-api.config.json'));
  server = startCommand('start', ['--port', '0'], { cwd: dir });
  let stderr = '';
  server.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const deadline = Date.now() + WAIT_MS;
  while (!/^Serving .* at (http:\/\/\S+)/m.test(stderr)) {
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`npm start did not serve:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const served = /^Serving .* at (http:\/\/\S+)/m.exec(stderr)?.[1] ?? '';
  origin = served.replace(/\/$/, '');
  companies = (await (await get('/company/')).json()) as Company[];
  textures = [];
  for (let page = 1; ; page++) {
    const body = (await (await get(`/virtualbooth-texture/?page=${page}`)).json()) as {
      results: Texture[];
      next: string | null;
    };
    textures.push(...body.results);
    if (body.next === null) break;
  }
}, WAIT_MS + 10_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('npm start with filters, search and ordering on', () => {
  it('filters the companies exactly, in the list order, and keeps their bytes', async () => {
    const answer = await get('/company/?country_name=Switzerland');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const expected = companies.filter((company) => company.country_name === 'Switzerland');
    expect(expected.length).toBeGreaterThan(1);
    expect(await answer.text()).toBe(drfJson(expected));
    expect(await (await get('/company/?country_name=switzerland')).text()).toBe('[]');
  });

  it('combines filters, ignores an empty one and a boolean it cannot read', async () => {
    const expected = companies.filter((one) => one.country_name === 'Germany' && one.platform_plus_status);
    expect(await (await get('/company/?platform_plus_status=True&country_name=Germany&city=')).text()).toBe(
      drfJson(expected),
    );
    expect(await (await get('/company/?platform_plus_status=maybe')).text()).toBe(drfJson(companies));
  });

  it('searches every term in any search field, with their prefixes', async () => {
    const upper = (text: string) => text.toUpperCase();
    const matches = (company: Company, term: string) =>
      upper(company.name).includes(upper(term)) ||
      upper(company.city).startsWith(upper(term)) ||
      upper(company.zip_code) === upper(term);
    for (const search of ['gmbh', 'GmbH,a', 'zür', '  ']) {
      const terms = search.replace(',', ' ').split(/\s+/).filter(Boolean);
      const expected = companies.filter((company) => terms.every((term) => matches(company, term)));
      const answer = await get(`/company/?search=${encodeURIComponent(search)}`);
      expect(await answer.text(), search).toBe(drfJson(expected));
    }
  });

  it('orders any list by its ordering fields, then by id, after filtering', async () => {
    const expected = companies
      .filter((company) => company.platform_plus_status)
      .sort((a, b) => byCodePoints(b.city, a.city) || a.id - b.id);
    expect(await (await get('/company/?ordering=-city,unknown&platform_plus_status=1')).text()).toBe(drfJson(expected));
  });

  it('orders by id alone when asked, though id is the tie-break of every order', async () => {
    const expected = [...companies].sort((a, b) => a.id - b.id);
    expect(await (await get('/company/?ordering=id,name')).text()).toBe(drfJson(expected));
    expect(await (await get('/company/?ordering=%1Fid')).text()).toBe(drfJson(expected));
  });

  it("strips an ordering term of Python's white space, which is not JavaScript's", async () => {
    const byCity = [...companies].sort((a, b) => byCodePoints(b.city, a.city) || a.id - b.id);
    expect(await (await get('/company/?ordering=%1C-city%C2%85')).text()).toBe(drfJson(byCity));
    expect(await (await get('/company/?ordering=%EF%BB%BF-city')).text()).toBe(drfJson(companies));
    const events = (await (await get('/event/')).json()) as { id: number; end_date: string }[];
    const byEnd = [...events].sort((a, b) => byCodePoints(a.end_date, b.end_date) || a.id - b.id);
    expect(await (await get('/event/?ordering=%1Cend_date')).text()).toBe(drfJson(byEnd));
    expect(await (await get('/event/?ordering=%EF%BB%BF-end_date')).text()).toBe(drfJson(events));
  });

  it("answers a value a filter cannot read with django-filter's 400 body, every field named", async () => {
    const answer = await get('/company/?id=abc&phone=a%00b&city=x');
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await answer.text()).toBe('{"phone":["Null characters are not allowed."],"id":["Enter a number."]}');
  });

  it('paginates the filtered list, its links keeping every parameter as DRF writes them', async () => {
    const matching = textures.filter((texture) => texture.name.toUpperCase().includes('A'));
    expect(matching.length).toBeGreaterThan(20);
    const answer = await get('/virtualbooth-texture/?zz=1&search=a&page=2&format=json&search=a');
    expect(answer.status).toBe(200);
    expect(JSON.parse(await answer.text())).toEqual({
      count: matching.length,
      next: `${origin.replace('127.0.0.1', 'localhost')}/virtualbooth-texture/?format=json&page=3&search=a&search=a&zz=1`,
      previous: `${origin.replace('127.0.0.1', 'localhost')}/virtualbooth-texture/?format=json&search=a&search=a&zz=1`,
      results: matching.slice(10, 20),
    });
    const last = await get('/virtualbooth-texture/?search=a&page=last&ordering=-name');
    const sorted = [...matching].sort((a, b) => byCodePoints(b.name, a.name));
    const pages = Math.ceil(matching.length / 10);
    expect(((await last.json()) as { results: Texture[] }).results).toEqual(sorted.slice((pages - 1) * 10));
    const beyond = await get(`/virtualbooth-texture/?search=a&page=${pages + 1}`);
    expect(beyond.status).toBe(404);
    expect(await beyond.text()).toBe('{"detail":"Invalid page."}');
  });

  it('filters by a UUID in any of the forms Python reads, and refuses another', async () => {
    const [first] = textures as [Texture];
    const braced = `{${first.id.toUpperCase()}}`;
    const body = JSON.parse(await (await get(`/virtualbooth-texture/?id=${encodeURIComponent(braced)}`)).text());
    expect(body.results).toEqual([first]);
    expect(body.count).toBe(1);
    const refused = await get('/virtualbooth-texture/?id=nope');
    expect([refused.status, await refused.text()]).toEqual([400, '{"id":["Enter a valid UUID."]}']);
  });

  it('keeps ignoring parameters that are not its settings: the files answer, with their validators', async () => {
    const plain = await get('/company/');
    const other = await get('/company/?foo=bar&ordering=city,name&ordering=zzz');
    expect(other.headers.get('etag')).toBe(plain.headers.get('etag'));
    expect(other.headers.get('etag')).not.toBeNull();
    expect(await other.text()).toBe(await plain.text());
    const events = await get('/event/?name=x');
    expect(events.headers.get('etag')).not.toBeNull();
  });
});

describe('the settings file', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['an unknown resource', { companies: {} }, /: \/resources\/companies: unknown resource "companies"/],
    [
      'an unknown field',
      { company: { filterset_fields: ['citty'] } },
      /: \/resources\/company\/filterset_fields\/0: company shows no field "citty" \(did you mean "city"\?\)/,
    ],
    [
      'a @ prefix',
      { company: { search_fields: ['name', '@name'] } },
      /: \/resources\/company\/search_fields\/1: "@name": the @ prefix \(full-text search\) is not supported/,
    ],
    [
      'a list field',
      { 'virtualbooth-texture': { filterset_fields: ['categories'] } },
      /filterset_fields\/0: "categories" is a list: a filter takes text, integer, boolean, date or UUID fields/,
    ],
    [
      'another ordering of the event',
      { event: { ordering_fields: ['name'] } },
      /\/resources\/event\/ordering_fields: event orders by its own fields/,
    ],
    [
      'a pre-rendered filter that is none',
      { company: { filterset_fields: ['city'], prerendered_filters: ['name'] } },
      /prerendered_filters\/0: "name" is not one of filterset_fields/,
    ],
  ];
  it.each(cases)('names %s with its JSON pointer, and writes nothing', async (_, resources, message) => {
    const file = path.join(dir, `settings-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify({ resources }));
    const out = path.join(dir, 'refused');
    const { code, stderr } = await runCommand(
      'build',
      [
        '--config',
        file,
        '--data',
        path.join(dir, 'data'),
        '--headers',
        path.join(dir, '_headers'),
        ...outputArgs(out),
        '--target',
        'nginx',
      ],
      { timeoutMs: 30_000 },
    );
    expect(stderr).toMatch(message);
    expect(stderr).toContain(file);
    expect(code).not.toBe(0);
  });
});
