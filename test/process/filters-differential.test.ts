// The filters, search and ordering of the settings file's `resources`, against DRF itself: the
// project's DRF test service (test/drf-service/) with DjangoFilterBackend, SearchFilter and
// OrderingFilter, on a throwaway PostgreSQL cluster (UTF-8, C.UTF-8), which folds case as a
// production database does. First the service's own answers are held to what django-filter and
// SearchFilter are known to answer, so that the reference is known to be one; then fast-check
// generates catalogues and requests, each catalogue is loaded into the service and built by the
// project, served by its local server, and every request is asked of both: status, the API's
// headers and the body's bytes must be the same. A failure names the seed (FILTERS_SEED=<seed>
// runs it again), each differing request and both answers.

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Postgres, startPostgres } from '../drf-service/postgres.ts';
import {
  type Catalogue,
  FILTER_PACKAGES,
  findFilteringService,
  findGunicorn,
  type Service,
  startService,
} from '../drf-service/service.ts';
import { freePort, spawnProcess, waitForPort } from '../e2e/targets/process.ts';
import { API, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { reportMissing } from '../installed.ts';
import { cleanEnv, commandLine, outputArgs, runCommand } from '../unit/helpers/cli.ts';
import {
  catalogueArbitrary,
  type GeneratedCatalogue,
  RESOURCE_SETTINGS,
  requestPath,
  requestsArbitrary,
} from '../unit/helpers/filter-cases.ts';

const gunicorn = findGunicorn();
const postgresBin = findFilteringService(gunicorn);
if (postgresBin === undefined)
  reportMissing(`gunicorn with Django and DRF, ${FILTER_PACKAGES}`, "the filters' differential test");

/** Small, so that a few textures make several pages. */
const PAGE_SIZE = 3;
const RUNS = Number(process.env.FILTERS_RUNS ?? 3);
const REQUESTS_PER_RUN = Number(process.env.FILTERS_REQUESTS ?? 100);

/** The headers both must send alike: those of the project's `_headers`, which DRF and Django send. */
const HEADERS = ['content-type', 'vary', 'allow', 'x-frame-options', 'x-content-type-options', 'referrer-policy'];

let databases = 0;

/** The records as the service loads them (test/drf-service/catalogue/load.py): the API's fields. */
function serviceCatalogue(catalogue: GeneratedCatalogue): Catalogue {
  return {
    company: catalogue.companies.map((company) => ({ ...company })),
    virtualfair: [],
    // /event/ does not list short_code.
    event: catalogue.events.map(({ short_code: _, ...event }) => event),
    'virtualbooth-texture': catalogue.textures.map((texture) => ({ ...texture })),
  };
}

/** The settings file both read: the lists' filters, search and orderings, and the page links' origin. */
function settingsText(baseUrl: string): string {
  return `${JSON.stringify({ baseUrl, pageSize: PAGE_SIZE, resources: RESOURCE_SETTINGS }, null, 2)}\n`;
}

/** A project folder holding `catalogue` as data/, the sample's `_headers` and the settings file. */
async function writeProject(dir: string, catalogue: GeneratedCatalogue, baseUrl: string): Promise<void> {
  const folder = (name: string) => path.join(dir, 'data', name);
  for (const name of ['company', 'event', 'virtualfair', 'virtualbooth-texture'])
    await mkdir(folder(name), { recursive: true });
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  await writeFile(path.join(folder('company'), 'companies.json'), json(catalogue.companies));
  await writeFile(path.join(folder('event'), 'events.json'), json(catalogue.events));
  await writeFile(path.join(folder('virtualfair'), 'fairs.json'), json([]));
  for (const texture of catalogue.textures)
    await writeFile(path.join(folder('virtualbooth-texture'), `${texture.id}.json`), json(texture));
  await writeFile(path.join(dir, '_headers'), await readFile(SAMPLE_HEADERS));
  await writeFile(path.join(dir, 'static-api.config.json'), settingsText(baseUrl));
}

/** The service on a new database of the cluster, loaded with `catalogue`, its lists filtered as `settingsFile` says. */
async function serve(postgres: Postgres, catalogue: Catalogue, dir: string, settingsFile: string, port?: number) {
  databases += 1;
  const databaseUrl = await postgres.createDatabase(`catalogue_${databases}`);
  return startService(gunicorn as string, catalogue, dir, {
    resources: API,
    port: port ?? (await freePort()),
    pageSize: PAGE_SIZE,
    databaseUrl,
    settingsFile,
  });
}

interface Answer {
  status: number;
  headers: Record<string, string | null>;
  body: string;
}

async function ask(origin: string, target: string): Promise<Answer> {
  const response = await fetch(`${origin}${target}`, { redirect: 'manual', signal: AbortSignal.timeout(20_000) });
  const body = Buffer.from(await response.arrayBuffer()).toString('utf8');
  return {
    status: response.status,
    headers: Object.fromEntries(HEADERS.map((name) => [name, response.headers.get(name)])),
    body,
  };
}

/**
 * `npm run serve` of the project's build, on a port of its own: another when a server of another
 * worktree's tests took the one tried, which the command says before it exits.
 */
async function serveBuild(project: string): Promise<{ origin: string; stop: () => Promise<void> }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const args = ['--out', path.join(project, 'out/public'), '--host', '127.0.0.1', '--port', String(port)];
    const server = spawnProcess(process.execPath, commandLine('serve', args), { cwd: project, env: cleanEnv() });
    const banner = `at http://127.0.0.1:${port}`;
    try {
      await waitForPort(port, server);
      // The port answered, but it is ours only once the command says it serves there.
      for (const deadline = Date.now() + 30_000; !server.output().includes(banner); ) {
        if (server.child.exitCode !== null || Date.now() > deadline)
          throw new Error(`npm run serve did not serve on port ${port}:\n${server.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { origin: `http://127.0.0.1:${port}`, stop: server.stop };
    } catch (error) {
      await server.stop();
      if (attempt === 3 || !server.output().includes('in use')) throw error;
    }
  }
}

const shown = (answer: Answer) =>
  `${answer.status} ${JSON.stringify(answer.headers)}\n    ${answer.body.length > 700 ? `${answer.body.slice(0, 700)}…` : answer.body}`;

describe.skipIf(postgresBin === undefined)("filters, search and ordering against DRF's on PostgreSQL", () => {
  let postgres: Postgres;
  let dir: string;

  beforeAll(async () => {
    postgres = await startPostgres(postgresBin as string);
    dir = await mkdtemp(path.join(os.tmpdir(), 'filters-differential-'));
  }, 60_000);

  afterAll(async () => {
    await postgres?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  // What the reference answers, written out: if the service were misconfigured (no filter
  // backend, SQLite's ASCII-only LIKE), the differential test below would compare with the wrong thing.
  it("the service answers as django-filter and SearchFilter do, folding case as PostgreSQL's UTF-8 database", async () => {
    const company = (id: number, name: string, city: string, extra: Partial<Record<string, unknown>> = {}) => ({
      id,
      name,
      street: '',
      zip_code: `Z${id}`,
      city,
      country_name: 'Türkiye',
      phone: null,
      fax: null,
      e_mail: null,
      platform_plus_status: false,
      website: null,
      logo: null,
      tags: null,
      vf_plus_status: false,
      ...extra,
    });
    const texture = (n: number, name: string) => ({
      id: `0000000${n}-0000-4000-8000-000000000000`,
      name,
      texture: `https://media.example.com/${n}.png`,
      categories: ['d4256858-43f2-499f-a6a9-77e4aafe0770'],
    });
    const catalogue: Catalogue = {
      company: [
        company(1, 'Straße Öl', 'İstanbul'),
        company(2, 'STRASSE', 'istanbul', { phone: '030 1' }),
        company(3, '東京 Tools', 'Tōkyō', { platform_plus_status: true }),
      ],
      virtualfair: [],
      event: [],
      'virtualbooth-texture': [1, 2, 3, 4, 5].map((n) => texture(n, n === 2 ? `Ash ${n}` : `Oak ${n}`)),
    };
    const settingsFile = path.join(dir, 'expectations.config.json');
    await writeFile(settingsFile, settingsText('http://127.0.0.1'));
    const service = await serve(postgres, catalogue, path.join(dir, 'expectations'), settingsFile);
    try {
      const origin = service.url.slice(0, -1);
      const ids = async (target: string) => {
        const answer = await ask(origin, target);
        expect(answer.status, `${target}: ${answer.body}`).toBe(200);
        const body = JSON.parse(answer.body);
        return (Array.isArray(body) ? body : body.results).map((record: { id: unknown }) => record.id);
      };
      // By lower-cased name: "strasse" before "straße öl" (s before ß), CJK last.
      expect(await ids('/company/')).toEqual([2, 1, 3]);
      // Exact and case-sensitive; an empty value is no filter; a boolean it cannot read neither.
      expect(await ids('/company/?city=istanbul')).toEqual([2]);
      expect(await ids('/company/?city=')).toHaveLength(3);
      expect(await ids('/company/?platform_plus_status=true')).toEqual([3]);
      expect(await ids('/company/?platform_plus_status=maybe')).toHaveLength(3);
      // icontains through PostgreSQL's upper(): ö and Ö alike, ß not SS; ^ is istartswith, = iexact.
      expect(await ids('/company/?search=%C3%B6L')).toEqual([1]);
      expect(await ids('/company/?search=stra%C3%9Fe')).toEqual([1]);
      expect(await ids('/company/?search=ist')).toEqual([2]);
      expect(await ids('/company/?search=%C4%B0st')).toEqual([1]);
      expect(await ids('/company/?search=tanbul')).toEqual([]);
      expect(await ids('/company/?search=z2')).toEqual([2]);
      expect(await ids('/company/?search=z')).toEqual([]);
      // Terms split at commas and white space, each required.
      expect(await ids('/company/?search=%E6%9D%B1%E4%BA%AC,tools')).toEqual([3]);
      expect(await ids('/company/?search=%E6%9D%B1%E4%BA%AC+stra')).toEqual([]);
      // Ordering by code point, nulls last going up, ties by id; a field not allowed is dropped.
      expect(await ids('/company/?ordering=-city')).toEqual([1, 2, 3]);
      expect(await ids('/company/?ordering=phone')).toEqual([2, 1, 3]);
      expect(await ids('/company/?ordering=street')).toEqual(await ids('/company/'));

      const invalid = await ask(origin, '/company/?id=abc&city=Bonn');
      expect([invalid.status, invalid.body]).toEqual([400, '{"id":["Enter a number."]}']);
      expect((await ask(origin, '/company/?city=a%00b')).body).toBe('{"city":["Null characters are not allowed."]}');
      expect((await ask(origin, '/virtualbooth-texture/?id=x')).body).toBe('{"id":["Enter a valid UUID."]}');

      // The filtered list is paginated, and its links keep the query, keys sorted.
      const page = JSON.parse((await ask(origin, '/virtualbooth-texture/?search=oak&page=2&x=1')).body);
      expect(page).toMatchObject({
        count: 4,
        next: null,
        previous: `${origin}/virtualbooth-texture/?search=oak&x=1`,
        results: [{ name: 'Oak 5' }],
      });
    } finally {
      await service.stop();
    }
  }, 90_000);

  it('answers every generated request as the DRF service does, byte for byte', async () => {
    const seed = Number(process.env.FILTERS_SEED ?? Date.now() % 2 ** 31);
    let run = 0;
    // Every run's differences, so that one failure shows them all; the catalogue of each such run.
    const differences: string[] = [];
    const catalogues: string[] = [];
    const cases = catalogueArbitrary.chain((catalogue) =>
      requestsArbitrary(catalogue, REQUESTS_PER_RUN).map((requests) => ({ catalogue, requests })),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ({ catalogue, requests }) => {
        run += 1;
        const project = path.join(dir, `run-${run}`);
        let servicePort = await freePort();
        const firstPort = servicePort;
        await writeProject(project, catalogue, `http://127.0.0.1:${servicePort}`);
        const settingsFile = path.join(project, 'static-api.config.json');
        const build = () =>
          runCommand('build', outputArgs(path.join(project, 'out')), { cwd: project, timeoutMs: 90_000 });
        let service: Service | undefined;
        let server: Awaited<ReturnType<typeof serveBuild>> | undefined;
        try {
          const firstBuild = build();
          for (let attempt = 1; service === undefined; attempt++) {
            try {
              service = await serve(
                postgres,
                serviceCatalogue(catalogue),
                path.join(project, `service-${attempt}`),
                settingsFile,
                servicePort,
              );
            } catch (error) {
              if (attempt === 3 || !String(error).includes('Connection in use')) throw error;
              servicePort = await freePort();
            }
          }
          let built = await firstBuild;
          // The page links name the service's origin: built again for the port it got.
          if (servicePort !== firstPort) {
            await writeFile(settingsFile, settingsText(`http://127.0.0.1:${servicePort}`));
            built = await build();
          }
          expect(built.code, `seed ${seed}: the build of run ${run} failed:\n${built.stderr}`).toBe(0);
          server = await serveBuild(project);
          const serviceOrigin = `http://127.0.0.1:${servicePort}`;
          const statuses = new Map<number, number>();
          const before = differences.length;
          for (const request of requests) {
            const target = requestPath(request);
            const [drf, ours] = await Promise.all([ask(serviceOrigin, target), ask(server.origin, target)]);
            statuses.set(drf.status, (statuses.get(drf.status) ?? 0) + 1);
            const same =
              drf.status === ours.status &&
              drf.body === ours.body &&
              JSON.stringify(drf.headers) === JSON.stringify(ours.headers);
            if (!same) differences.push(`run ${run}: GET ${target}\n  DRF:  ${shown(drf)}\n  ours: ${shown(ours)}`);
          }
          const counts = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${count} × ${status}`);
          console.log(
            `seed ${seed}, run ${run}: ${requests.length} requests (DRF answered ${counts.join(', ')}), ${differences.length - before} differ`,
          );
          if (differences.length > before) catalogues.push(`run ${run}: ${JSON.stringify(catalogue)}`);
        } finally {
          await server?.stop();
          await service?.stop();
        }
      }),
      // Each case starts a service and builds: no shrinking, which would start hundreds.
      { seed, numRuns: RUNS, endOnFailure: true },
    );
    if (differences.length > 0)
      throw new Error(
        `seed ${seed} (FILTERS_SEED=${seed} runs it again): ${differences.length} requests differ\n` +
          `${differences.slice(0, 40).join('\n')}\n${catalogues.join('\n')}`,
      );
  }, 600_000);
});
