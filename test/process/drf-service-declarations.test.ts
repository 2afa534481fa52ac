// The DRF test service (test/drf-service/) serves the lists of the declarations it is given: with
// a list declared only for the tests beside the sample's four (test/fixtures/extra-list/category.ts: a UUID id and
// a name, by name, a page at a time), Django and DRF under gunicorn serve it at its path, paginated
// and ordered as declared, with no edit of the Python side; and the static build of the same data
// answers every request of it as DRF does, status, the API's headers and the body's bytes, with
// DRF's defaults and with the filters, search and ordering of a settings file's section for it.

import { cpSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { declaredWithQueries } from '../../scripts/builder/site.ts';
import type { ResourceSettings } from '../../scripts/contract/query.ts';
import { routingOf } from '../../scripts/contract/routes.ts';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { type Catalogue, catalogueOf, findGunicorn, SERVICE_PACKAGES, startService } from '../drf-service/service.ts';
import { freePort } from '../e2e/targets/process.ts';
import { category } from '../fixtures/extra-list/category.ts';
import { CATALOGUE, CATALOGUE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { reportMissing } from '../installed.ts';

const gunicorn = findGunicorn();
if (gunicorn === undefined) reportMissing(SERVICE_PACKAGES, 'the DRF service on the declarations it is given');

const RESOURCES = [...CATALOGUE, category];
const PAGE_SIZE = 4;
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** Ten categories, written out of order: the list is by name. */
const CATEGORIES = Array.from({ length: 10 }, (_, i) => ({ id: uuid(i + 1), name: `Category ${(i * 7) % 10}` }));
const BY_NAME = [...CATEGORIES].sort((a, b) => (a.name < b.name ? -1 : 1));

/** The headers both must send alike: those of the sample's `_headers`, which DRF and Django send. */
const HEADERS = ['content-type', 'vary', 'allow', 'x-frame-options', 'x-content-type-options', 'referrer-policy'];

/** What both are asked: each page, a page beyond the last, one that is no number, the metadata, a POST. */
const REQUESTS: Array<[method: string, target: string]> = [
  ['GET', 'category/'],
  ['GET', 'category/?page=2'],
  ['GET', 'category/?page=3'],
  ['GET', 'category/?page=last'],
  ['GET', 'category/?page=4'],
  ['GET', 'category/?page=x'],
  ['GET', 'category/?format=json&page=2'],
  ['OPTIONS', 'category/'],
  ['POST', 'category/'],
];

/** The settings file's section for the categories, and what it makes both answer. */
const SETTINGS: Record<string, ResourceSettings> = {
  category: { filterset_fields: ['id'], search_fields: ['name'], ordering_fields: ['name'] },
};
const FILTERED_REQUESTS: Array<[method: string, target: string]> = [
  ...REQUESTS,
  ['GET', `category/?id=${uuid(3)}`],
  ['GET', 'category/?id=x'],
  ['GET', 'category/?search=gory%203'],
  ['GET', 'category/?search=category&page=2'],
  ['GET', 'category/?ordering=-name'],
  ['GET', 'category/?ordering=-name&page=3'],
];

interface Answer {
  status: number;
  headers: Record<string, string | null>;
  body: string;
}

async function ask(origin: string, method: string, target: string): Promise<Answer> {
  const response = await fetch(`${origin}${target}`, { method, redirect: 'manual' });
  return {
    status: response.status,
    headers: Object.fromEntries(HEADERS.map((name) => [name, response.headers.get(name)])),
    body: Buffer.from(await response.arrayBuffer()).toString('utf8'),
  };
}

describe.skipIf(gunicorn === undefined)('the DRF test service on the declarations it is given', () => {
  let dir: string;
  let dataDir: string;
  let catalogue: Catalogue;
  const servers: http.Server[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'drf-service-declarations-'));
    dataDir = path.join(dir, 'data');
    cpSync(CATALOGUE_DATA, dataDir, { recursive: true });
    await mkdir(path.join(dataDir, 'category'));
    await writeFile(path.join(dataDir, 'category', 'categories.json'), JSON.stringify(CATEGORIES, null, 2));
    catalogue = await catalogueOf(RESOURCES, dataDir, SAMPLE_HEADERS, path.join(dir, 'catalogue'));
  }, 60_000);

  afterAll(async () => {
    for (const server of servers) server.close();
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * The service and the build's local server, both on the data with the categories and the
   * settings of `settingsFile`: the build's page links on the service's origin. Each pair of
   * answers to `requests`, DRF's first.
   */
  async function bothAnswer(name: string, requests: typeof REQUESTS, settingsFile?: string) {
    const service = await startService(gunicorn as string, catalogue, path.join(dir, name, 'service'), {
      resources: RESOURCES,
      port: await freePort(),
      pageSize: PAGE_SIZE,
      ...(settingsFile ? { settingsFile } : {}),
    });
    try {
      const drf = service.url.slice(0, -1);
      const outDir = path.join(dir, name, 'public');
      await build({
        resources: RESOURCES,
        dataDir,
        headersPath: SAMPLE_HEADERS,
        outDir,
        targetsDir: path.join(dir, name, 'targets'),
        targets: [],
        baseUrl: drf,
        pageSize: PAGE_SIZE,
        precompress: false,
        ...(settingsFile ? { resourceSettings: SETTINGS } : {}),
      });
      // The local server answers the filters of the declarations the settings were applied to.
      const resources = declaredWithQueries(RESOURCES, settingsFile ? SETTINGS : undefined, 'static-api.config.json');
      const server = createApiServer(outDir, routingOf(resources));
      servers.push(server);
      const ours = `${await listen(server, '127.0.0.1', 0)}/`;
      const answers: Array<{ request: string; drf: Answer; ours: Answer }> = [];
      for (const [method, target] of requests)
        answers.push({
          request: `${method} ${target}`,
          drf: await ask(service.url, method, target),
          ours: await ask(ours, method, target),
        });
      return { drf, answers };
    } finally {
      await service.stop();
    }
  }

  it('serves the extra list at its path, paginated and ordered as declared, as the build answers it', async () => {
    const { drf, answers } = await bothAnswer('defaults', REQUESTS);
    const first = answers[0]?.drf as Answer;
    expect(first.status, first.body).toBe(200);
    expect(JSON.parse(first.body)).toEqual({
      count: CATEGORIES.length,
      next: `${drf}/category/?page=2`,
      previous: null,
      results: BY_NAME.slice(0, PAGE_SIZE),
    });
    const metadata = answers.find((answer) => answer.request === 'OPTIONS category/')?.drf as Answer;
    expect(JSON.parse(metadata.body)).toMatchObject({ name: 'Category List', description: '' });
    for (const { request, drf: theirs, ours } of answers) expect(ours, request).toEqual(theirs);
  }, 90_000);

  it('filters, searches and orders the extra list as its settings section says, as the build does', async () => {
    const settingsFile = path.join(dir, 'static-api.config.json');
    await writeFile(settingsFile, JSON.stringify({ resources: SETTINGS }));
    const { answers } = await bothAnswer('filtered', FILTERED_REQUESTS, settingsFile);
    const answer = (request: string) => answers.find((one) => one.request === request)?.drf as Answer;
    expect(JSON.parse(answer(`GET category/?id=${uuid(3)}`).body).results).toEqual([CATEGORIES[2]]);
    expect([answer('GET category/?id=x').status, answer('GET category/?id=x').body]).toEqual([
      400,
      '{"id":["Enter a valid UUID."]}',
    ]);
    expect(JSON.parse(answer('GET category/?ordering=-name').body).results).toEqual(
      [...BY_NAME].reverse().slice(0, PAGE_SIZE),
    );
    for (const { request, drf: theirs, ours } of answers) expect(ours, request).toEqual(theirs);
  }, 90_000);
});
