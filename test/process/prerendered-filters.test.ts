// `prerendered_filters` on the targets without code: the sample data, with companies and textures
// added whose values are awkward (a `/`, spaces, letters beyond ASCII, an empty text, a null, a
// value a dozen textures share so that its answer has pages), built with a settings file that
// filters, searches and orders the companies and the textures. Over real HTTP, nginx, Caddy and
// Apache (each where installed) answer each pre-rendered filter, its pages and its spellings
// with the local server's status, headers and bytes, and every other filter, search or ordering
// of those lists with the unsupported-query error; vercel.json does, through Vercel's route
// compiler, with its one 404 for the errors.

import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { rewritesSchema } from '@vercel/routing-utils';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { declaredWithQueries } from '../../scripts/builder/site.ts';
import { UNSUPPORTED_QUERY_BODY } from '../../scripts/contract/bodies.ts';
import type { ResourceSettings } from '../../scripts/contract/query.ts';
import { filterSegment, routingOf } from '../../scripts/contract/routes.ts';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { SETTINGS_FILE } from '../../scripts/shared/folders.ts';
import { API_HEADERS } from '../e2e/lib/contract.ts';
import { freePort } from '../e2e/targets/process.ts';
import type { RunningTarget } from '../e2e/targets/target.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { readTreeText } from '../unit/helpers/tree.ts';
import { compileVercel, vercelRouter } from '../unit/helpers/vercel-routes.ts';
import { installedWebServers } from '../unit/helpers/web-servers.ts';

const SETTINGS: Record<string, ResourceSettings> = {
  company: {
    filterset_fields: ['country_name', 'city', 'platform_plus_status', 'phone', 'id'],
    prerendered_filters: ['city', 'id', 'platform_plus_status'],
    search_fields: ['name'],
    ordering_fields: ['name'],
  },
  'virtualbooth-texture': {
    filterset_fields: ['name'],
    prerendered_filters: ['name'],
    search_fields: ['name'],
  },
};
const PAGE_SIZE = 5;
const BASE_URL = 'http://127.0.0.1:8000';
const SHARED = 'Geteilt/Über Ö';
const ODD_CITY = 'Foo/Bar Baz+1&x=ü';

let dir: string;
let publicDir: string;
let targetsDir: string;
let local: http.Server;
let localOrigin: string;

/** The sample data, with companies of odd cities and a dozen textures of one name. */
function awkwardData(dataDir: string): void {
  cpSync(SAMPLE_DATA, dataDir, { recursive: true });
  const companies = JSON.parse(readFileSync(path.join(dataDir, 'company', 'companies.json'), 'utf8')) as Array<
    Record<string, unknown>
  >;
  const model = companies[0] as Record<string, unknown>;
  const extra = [ODD_CITY, '', ' Padded', 'İstanbul', ODD_CITY].map((city, i) => ({
    ...model,
    id: 900001 + i,
    name: `Odd Company ${i}`,
    city,
    phone: null,
  }));
  writeFileSync(path.join(dataDir, 'company', 'odd.json'), JSON.stringify(extra, null, 2));
  const textureDir = path.join(dataDir, 'virtualbooth-texture');
  const model2 = JSON.parse(readFileSync(path.join(textureDir, readdirSync(textureDir)[0] as string), 'utf8'));
  for (let i = 0; i < 12; i++) {
    const id = `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`;
    writeFileSync(path.join(textureDir, `shared-${i}.json`), JSON.stringify({ ...model2, id, name: SHARED }));
  }
}

const options = () => ({
  dataDir: path.join(dir, 'data'),
  headersPath: SAMPLE_HEADERS,
  outDir: publicDir,
  targetsDir,
  baseUrl: BASE_URL,
  pageSize: PAGE_SIZE,
  resourceSettings: SETTINGS,
});

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'prerendered-filters-'));
  publicDir = path.join(dir, 'public');
  targetsDir = path.join(dir, 'targets');
  awkwardData(path.join(dir, 'data'));
  await build({ resources: API, ...options(), targets: ['nginx', 'caddy', 'apache', 'vercel'] });
  const resources = declaredWithQueries(API, SETTINGS, SETTINGS_FILE);
  local = createApiServer(publicDir, routingOf(resources));
  localOrigin = await listen(local, '127.0.0.1', 0);
}, 60_000);

afterAll(async () => {
  if (local) await new Promise((done) => local.close(() => done(undefined)));
  if (dir) await rm(dir, { recursive: true, force: true });
});

const enc = encodeURIComponent;

/** Requests a pre-rendered file answers: each must equal the local server's answer. */
const ANSWERED = [
  '/company/?city=Remscheid',
  '/company/?city=%52emscheid',
  '/company/?city=+Remscheid%20',
  `/company/?city=${enc(ODD_CITY)}`,
  `/company/?city=${enc(ODD_CITY).replaceAll('%20', '+')}`,
  `/company/?city=${enc('İstanbul')}`,
  '/company/?id=128',
  '/company/?id=00128',
  '/company/?id=%2B128',
  '/company/?platform_plus_status=true',
  '/company/?platform_plus_status=TRUE',
  '/company/?platform_plus_status=0',
  '/company/?city=Remscheid&format=json',
  '/company/?city=&platform_plus_status=1',
  `/virtualbooth-texture/?name=${enc(SHARED)}`,
  `/virtualbooth-texture/?name=${enc(SHARED)}&page=2`,
  `/virtualbooth-texture/?name=${enc(SHARED)}&page=3`,
  `/virtualbooth-texture/?name=${enc(SHARED)}&page=last`,
  `/virtualbooth-texture/?page=2&name=${enc(SHARED).replaceAll('%20', '+')}`,
  `/virtualbooth-texture/?name=${enc(SHARED)}&page=1`,
  '/company/',
  '/virtualbooth-texture/?page=2',
  '/event/?ordering=-id',
];

/** Requests the local server answers and these targets refuse: unsupported-query, status 400. */
const REFUSED = [
  '/company/?search=laser',
  '/company/?ordering=name',
  '/company/?phone=123',
  '/company/?city=Remscheid&platform_plus_status=true',
  '/company/?city=Nowhere',
  '/company/?city=%20Padded',
  '/company/?id=128.0',
  '/company/?city=Remscheid&search=x',
  '/virtualbooth-texture/?search=wood',
  `/virtualbooth-texture/?name=${enc(SHARED)}&format=json`,
  `/virtualbooth-texture/?name=+${enc(SHARED)}`,
];

async function answer(origin: string, url: string) {
  // Without Accept-Encoding: the servers would send a precompressed sibling of a file of 4 KiB or
  // more, with Accept-Encoding in Vary, where the local server computes the answer.
  const response = await fetch(`${origin}${url}`, { redirect: 'manual', headers: { 'accept-encoding': 'identity' } });
  const headers = Object.fromEntries(Object.keys(API_HEADERS).map((name) => [name, response.headers.get(name)]));
  return { status: response.status, headers, body: await response.text() };
}

describe('prerendered_filters', () => {
  it('writes one folder per value that a request can ask for, named safely, and every page', async () => {
    const files = await readTreeText(publicDir);
    const names = Object.keys(files).filter((file) => file.includes('/_filters/'));
    expect(names).toContain(`company/_filters/city/${filterSegment('Remscheid')}/index.json`);
    expect(filterSegment('Remscheid')).toBe('_52emscheid');
    expect(filterSegment(ODD_CITY)).toBe('_46oo_2F_42ar_20_42az_2B1_26x_3D_C3_BC');
    expect(filterSegment('')).toBe('_');
    expect(filterSegment('x'.repeat(200))).toMatch(/^x{64}_h[0-9a-f]{16}$/);
    // No file for what no request filters: the empty text (ignored), text with space around it
    // (stripped), null (an exact filter matches none).
    expect(names.filter((file) => file.startsWith('company/_filters/city/_/'))).toEqual([]);
    expect(names.some((file) => file.includes(filterSegment(' Padded')))).toBe(false);
    const shared = `virtualbooth-texture/_filters/name/${filterSegment(SHARED)}`;
    expect(names.filter((file) => file.startsWith(`${shared}/`)).sort()).toEqual(
      ['index', 'page=2', 'page=3', 'page=last'].map((page) => `${shared}/${page}.json`),
    );
    const page2 = JSON.parse(files[`${shared}/page=2.json`] as string);
    expect(page2.count).toBe(12);
    expect(page2.next).toBe(`${BASE_URL}/virtualbooth-texture/?name=${enc(SHARED).replaceAll('%20', '+')}&page=3`);
    expect(files['_errors/unsupported-query.json']).toBe(UNSUPPORTED_QUERY_BODY);
    for (const target of ['nginx', 'caddy', 'apache', 'vercel']) {
      const readme = readFileSync(path.join(targetsDir, target, 'README.md'), 'utf8');
      expect(readme, target).toContain('## Filters, search and ordering of the settings file');
      expect(readme, target).toContain('`/company/`');
    }
  });

  it('is deterministic: a second build writes the same files', async () => {
    const again = path.join(dir, 'again');
    mkdirSync(again);
    await build({
      resources: API,
      ...options(),
      outDir: path.join(again, 'public'),
      targetsDir: path.join(again, 'targets'),
    });
    const [first, second] = await Promise.all([readTreeText(publicDir), readTreeText(path.join(again, 'public'))]);
    expect(second).toEqual(first);
    for (const target of ['nginx', 'caddy', 'apache', 'vercel']) {
      const [ours, theirs] = await Promise.all([
        readTreeText(path.join(targetsDir, target)),
        readTreeText(path.join(again, 'targets', target)),
      ]);
      expect(theirs, target).toEqual(ours);
    }
  });

  it("is routed by vercel.json as Vercel's route compiler compiles it: the spellings as written, the rest 404", async () => {
    const config = JSON.parse(readFileSync(path.join(targetsDir, 'vercel', 'vercel.json'), 'utf8'));
    const validate = new Ajv().compile(rewritesSchema);
    expect(validate(config.rewrites), JSON.stringify(validate.errors)).toBe(true);
    const compiled = compileVercel(config);
    expect(compiled.error).toBeNull();
    const files = await readTreeText(publicDir);
    const route = vercelRouter(compiled, new Set(Object.keys(files)));
    // `has` reads the decoded value: padding, leading zeros and a sign are not matched there.
    const asWritten = ANSWERED.filter((url) => !/=\+|%20&|=00|%2B|city=&/.test(url));
    expect(asWritten.length).toBeGreaterThan(15);
    for (const emptyIsAbsent of [true, false]) {
      for (const url of asWritten) {
        const expected = await answer(localOrigin, url);
        const outcome = route(url, emptyIsAbsent);
        expect(outcome.status, url).toBe(200);
        if (outcome.status === 200) expect(files[outcome.file], url).toBe(expected.body);
      }
      for (const url of [...REFUSED, '/company/?id=00128', `/virtualbooth-texture/?name=${enc(SHARED)}&page=4`]) {
        expect(route(url, emptyIsAbsent), url).toEqual({ status: 404 });
      }
    }
  });

  it("checks vercel.json's rewrites against Vercel's 2,048 routes: past it Vercel is refused, the others written", async () => {
    const many = path.join(dir, 'many');
    const dataDir = path.join(many, 'data');
    cpSync(SAMPLE_DATA, dataDir, { recursive: true });
    const model = (JSON.parse(readFileSync(path.join(dataDir, 'company', 'companies.json'), 'utf8')) as object[])[0];
    // Each id a value, with two rewrites (without and with a valid format): past 2,048 with the sample's.
    const extra = Array.from({ length: 1000 }, (_, i) => ({ ...model, id: 800001 + i, name: `Extra ${i}` }));
    writeFileSync(path.join(dataDir, 'company', 'extra.json'), JSON.stringify(extra));
    const settings = { company: { filterset_fields: ['id'], prerendered_filters: ['id'] } };
    const manyOptions = {
      ...options(),
      dataDir,
      resourceSettings: settings,
      outDir: path.join(many, 'public'),
      targetsDir: path.join(many, 'targets'),
    };
    await expect(build({ resources: API, ...manyOptions, targets: ['vercel', 'nginx'] })).rejects.toThrow(
      /^vercel: .*vercel\.json has 2,\d{3} rules, over the limit of 2,048 routes/,
    );
    const warnings: string[] = [];
    await build({ resources: API, ...manyOptions, targets: undefined }, { warn: (line) => warnings.push(line) });
    expect(warnings.join('\n')).toMatch(/^vercel is left out/m);
    // A target left out keeps a folder that holds only a README saying why, never a stale deploy.
    for (const left of ['cloudflare-pages-static', 'vercel'])
      expect(readdirSync(path.join(manyOptions.targetsDir, left)), left).toEqual(['README.md']);
    for (const written of ['apache', 'caddy', 'cloudflare-pages', 'cloudflare-workers', 'netlify', 'nginx'])
      expect(readdirSync(path.join(manyOptions.targetsDir, written)), written).not.toEqual(['README.md']);
  }, 60_000);

  describe('on nginx, Caddy and Apache', () => {
    const servers = installedWebServers('prerendered_filters');
    for (const server of servers) {
      it(`${server.name} answers them as the local server does, and refuses the rest with 400`, {
        timeout: 60_000,
      }, async () => {
        const workDir = path.join(dir, `work-${server.name}`);
        mkdirSync(workDir);
        const running: RunningTarget = await server.start({ publicDir, targetsDir, port: await freePort(), workDir });
        try {
          for (const url of ANSWERED) {
            const expected = await answer(localOrigin, url);
            expect(expected.status, url).not.toBe(400);
            expect(await answer(running.origin, url), `${server.name} ${url}`).toEqual(expected);
          }
          const beyond = await answer(running.origin, `/virtualbooth-texture/?name=${enc(SHARED)}&page=4`);
          expect(beyond).toEqual(await answer(localOrigin, `/virtualbooth-texture/?name=${enc(SHARED)}&page=4`));
          for (const url of REFUSED) {
            const local = await answer(localOrigin, url);
            expect(local.status, url).not.toBe(400);
            const got = await answer(running.origin, url);
            expect({ status: got.status, body: got.body }, `${server.name} ${url}`).toEqual({
              status: 400,
              body: UNSUPPORTED_QUERY_BODY,
            });
            expect(got.headers, url).toEqual(API_HEADERS);
          }
        } finally {
          await running.stop();
        }
      });
    }
  });
});
