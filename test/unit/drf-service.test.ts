// The migration against a real Django REST Framework service: the project under
// test/drf-service/ (Django, DRF with its default renderers, OrderingFilter, PageNumberPagination)
// serving the sample catalogue under gunicorn from Debian's packages, as most DRF services run.
// npm run import reads it, npm run build builds what it wrote, and npm run verify finds no
// difference but where the contract departs from Django and DRF on purpose; with one record
// changed in the service, verify names it and exits 1. gunicorn sends a body on HEAD, which
// verify must read past and report once.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { freePort, spawnProcess, waitForPort } from '../e2e/targets/process.ts';
import { findProgram, reportMissing } from '../installed.ts';
import { outputArgs, ROOT, runCommand } from './helpers/cli.ts';

const SERVICE_DIR = path.join(ROOT, 'test/drf-service');
/** Not the import's default of 10, so that the test sees the import find it. */
const PAGE_SIZE = 7;

/**
 * gunicorn, if the Python its first line names (Debian's /usr/bin/python3, not another python3
 * first on the PATH) has Django and DRF.
 */
function findService(): string | undefined {
  const gunicorn = findProgram(['gunicorn']);
  if (gunicorn === undefined) return undefined;
  const shebang = /^#!\s*(\S+)(?:[ \t]+(\S+))?/.exec(readFileSync(gunicorn, 'latin1').slice(0, 200));
  const python = shebang?.[1] && path.basename(shebang[1]) === 'env' ? shebang[2] : shebang?.[1];
  try {
    execFileSync(python ?? 'python3', ['-c', 'import django, rest_framework'], { stdio: 'ignore' });
    return gunicorn;
  } catch {
    return undefined;
  }
}

const gunicorn = findService();
if (gunicorn === undefined)
  reportMissing(
    'gunicorn with Django and DRF (Debian: gunicorn python3-django python3-djangorestframework)',
    'the real DRF service tests',
  );

/** The records the service is loaded with, as the API shows them (test/drf-service/catalogue/load.py). */
interface Catalogue {
  companies: Array<Record<string, unknown>>;
  virtualfairs: unknown[];
  events: unknown[];
  textures: unknown[];
}

/** The sample catalogue: the lists of a build of data/, and the textures of every page. */
async function sampleCatalogue(dir: string): Promise<Catalogue> {
  const outDir = path.join(dir, 'public');
  await build({
    dataDir: path.join(ROOT, 'data'),
    headersPath: path.join(ROOT, '_headers'),
    outDir,
    targetsDir: path.join(dir, 'targets'),
    targets: [],
    baseUrl: 'http://localhost:3000',
    pageSize: 10,
  });
  const read = async (file: string) => JSON.parse(await readFile(path.join(outDir, file), 'utf8'));
  const textures: unknown[] = [];
  for (let page = 1, next: unknown = 'first'; next !== null; page += 1) {
    const envelope = await read(`virtualbooth-texture/${page === 1 ? 'index' : `page=${page}`}.json`);
    textures.push(...envelope.results);
    next = envelope.next;
  }
  return {
    companies: await read('company/index.json'),
    virtualfairs: await read('virtualfair/index.json'),
    events: await read('event/index.json'),
    textures,
  };
}

interface Service {
  /** With its trailing slash. */
  url: string;
  stop: () => Promise<void>;
}

/**
 * Serves `catalogue` under gunicorn on 127.0.0.1, stopped by its process group. Everything it
 * writes (the SQLite file, the workers' heartbeat files) goes into `dir`; its log goes to stderr.
 */
async function startService(catalogue: Catalogue, dir: string): Promise<Service> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'catalogue.json'), JSON.stringify(catalogue));
  const port = await freePort();
  const args = ['--preload', '--workers', '2', '--bind', `127.0.0.1:${port}`, '--chdir', SERVICE_DIR];
  const service = spawnProcess(
    gunicorn as string,
    [...args, '--worker-tmp-dir', dir, '--error-logfile', '-', 'wsgi:application'],
    {
      env: {
        ...process.env,
        DJANGO_SETTINGS_MODULE: 'settings',
        DATA_DIR: dir,
        CATALOGUE: path.join(dir, 'catalogue.json'),
        PAGE_SIZE: String(PAGE_SIZE),
        // No __pycache__ in test/drf-service/.
        PYTHONDONTWRITEBYTECODE: '1',
      },
    },
  );
  await waitForPort(port, service);
  return { url: `http://127.0.0.1:${port}/`, stop: service.stop };
}

/** stdout's lines without the last, empty one. */
const linesOf = (stdout: string) => stdout.trimEnd().split('\n');

const BODY_ON_HEAD =
  'the service sends a body with its answer to HEAD (4 answers), which HTTP forbids; HEAD is compared by status and headers';

describe.skipIf(gunicorn === undefined)('npm run import and verify against a DRF service under gunicorn', () => {
  let dir: string;
  let catalogue: Catalogue;
  let service: Service | undefined;
  const project = () => path.join(dir, 'project');

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'drf-service-'));
    catalogue = await sampleCatalogue(path.join(dir, 'sample'));
    service = await startService(catalogue, path.join(dir, 'service'));
    await mkdir(project());
    await writeFile(path.join(project(), '_headers'), await readFile(path.join(ROOT, '_headers')));
  }, 30_000);

  afterAll(async () => {
    await service?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('imports the service, builds what it wrote, and verify finds no difference', async () => {
    const url = (service as Service).url;
    const imported = await runCommand('import', ['--from', url], { cwd: project(), timeoutMs: 30_000 });
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(await readFile(path.join(project(), 'static-api.config.json'), 'utf8'))).toEqual({
      baseUrl: url.slice(0, -1),
      pageSize: PAGE_SIZE,
    });

    const built = await runCommand('build', outputArgs(path.join(dir, 'out')), { cwd: project(), timeoutMs: 30_000 });
    expect(built.code, built.stderr).toBe(0);

    const verified = await runCommand('verify', ['--against', url], { cwd: project(), timeoutMs: 30_000 });
    expect(verified.stderr).not.toContain('Parse Error');
    // Where Django or DRF answers with an HTML page of its own and the contract with the API's
    // JSON, said once for each: DRF's browsable API on ?format=api (the description saw JSON
    // there; test/drf-service/ keeps DRF's default renderers), Django's redirects of a path
    // without its slash, and its 404 page. Then gunicorn's body on HEAD, said once, as the
    // service's own.
    // Every texture page with `format=api`: 1, `last`, 2..N.
    const browsable = Math.ceil(catalogue.textures.length / PAGE_SIZE) + 1;
    const redirects = 5;
    expect(linesOf(verified.stdout)).toEqual([
      `GET virtualbooth-texture/?format=api, virtualbooth-texture/?format=api&page=last, virtualbooth-texture/?format=api&page=2 and ${browsable - 3} more: differs only as the contract decides: DRF's browsable API is an HTML page, the build answers the JSON (docs/contract.md, section 8, decision 11)`,
      `GET company, virtualfair, event and ${redirects - 3} more: differs only as the contract decides: Django's redirect is text/html, the build's has the API's headers (docs/contract.md, section 8, decision 2)`,
      "GET no-such-list/: differs only as the contract decides: Django's 404 page is HTML, the build's is JSON with the API's headers (docs/contract.md, section 8, decisions 1 and 2)",
      BODY_ON_HEAD,
      expect.stringMatching(
        new RegExp(
          `^verify: \\d+ requests, \\d+ the same, ${browsable + redirects + 1} differ only where the contract departs from Django \\(docs/contract\\.md, section 8\\), 0 differ$`,
        ),
      ),
    ]);
    expect(verified.code).toBe(0);
  }, 60_000);

  // Verifies the project the test above imported and built.
  it('names the record changed in the service, and exits 1', async () => {
    const [first, ...rest] = catalogue.companies;
    if (first === undefined) throw new Error('the sample has no company');
    const changed = await startService(
      { ...catalogue, companies: [{ ...first, city: 'Bonn' }, ...rest] },
      path.join(dir, 'changed'),
    );
    try {
      // The build's page links on the changed service's port, as its own.
      const args = ['--against', changed.url, '--base-url', changed.url.slice(0, -1)];
      const verified = await runCommand('verify', args, { cwd: project(), timeoutMs: 30_000 });
      const lines = linesOf(verified.stdout).filter((line) => !line.includes('differs only as the contract decides'));
      expect(lines).toEqual([
        'Each difference reads: as the service answers → as this build answers.',
        `GET company/: company ${first.id} ${JSON.stringify(first.name)}: city "Bonn" → ${JSON.stringify(first.city)}`,
        BODY_ON_HEAD,
        expect.stringMatching(/, 1 differ$/),
      ]);
      expect(verified.code).toBe(1);
    } finally {
      await changed.stop();
    }
  }, 60_000);
});
