// The migration against a real Django REST Framework service: the project under
// test/drf-service/ (Django, DRF, PageNumberPagination, OrderingFilter) serving the sample
// catalogue under gunicorn, from Debian's packages, as most DRF services run. npm run import
// reads it, npm run build builds what it wrote, and npm run verify finds no difference; with one
// record changed in the service, verify names it and exits 1. gunicorn sends a body on HEAD,
// which verify must read past and report once.

import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { freePort, type Spawned, spawnProcess, waitForPort } from '../e2e/targets/process.ts';
import { findProgram, reportMissing } from '../installed.ts';
import { outputArgs, ROOT, runCommand } from './helpers/cli.ts';

const SERVICE_DIR = path.join(ROOT, 'test/drf-service');
const PAGE_SIZE = 7;

/** gunicorn, and the Python its first line names, which must have Django and DRF. */
function findService(): string | undefined {
  const gunicorn = findProgram(['gunicorn']);
  if (gunicorn === undefined) return undefined;
  const shebang = /^#!\s*(\S+)/.exec(execFileSync('head', ['-n', '1', gunicorn], { encoding: 'utf8' }))?.[1];
  try {
    execFileSync(shebang ?? 'python3', ['-c', 'import django, rest_framework'], { stdio: 'ignore' });
    return gunicorn;
  } catch {
    return undefined;
  }
}

const gunicorn = findService();
if (gunicorn === undefined)
  reportMissing(
    'gunicorn with Django and DRF (Debian: gunicorn python3-django python3-djangorestframework)',
    'the tests against a real DRF service',
  );

interface Catalogue {
  companies: Array<Record<string, unknown>>;
  virtualfairs: unknown[];
  events: unknown[];
  textures: unknown[];
}

/** The sample catalogue as the API shows it: the lists of a build of data/, the textures of every page. */
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
  url: string;
  stop: () => Promise<void>;
}

/** Serves `catalogue` under gunicorn on 127.0.0.1, each service with a folder of its own. */
async function startService(catalogue: Catalogue, dir: string): Promise<Service> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'catalogue.json'), JSON.stringify(catalogue));
  const port = await freePort();
  const child: Spawned = spawnProcess(
    gunicorn as string,
    [
      '--preload',
      '--workers',
      '2',
      '--bind',
      `127.0.0.1:${port}`,
      '--chdir',
      SERVICE_DIR,
      '--worker-tmp-dir',
      dir,
      '--error-logfile',
      '-',
      'wsgi:application',
    ],
    {
      env: {
        ...process.env,
        DATA_DIR: dir,
        CATALOGUE: path.join(dir, 'catalogue.json'),
        PAGE_SIZE: String(PAGE_SIZE),
        PYTHONDONTWRITEBYTECODE: '1',
      },
    },
  );
  await waitForPort(port, child);
  return { url: `http://127.0.0.1:${port}/`, stop: child.stop };
}

describe.skipIf(gunicorn === undefined)('npm run import and verify against a DRF service under gunicorn', () => {
  let dir: string;
  let catalogue: Catalogue;
  let service: Service;
  const project = () => path.join(dir, 'project');

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'drf-service-'));
    catalogue = await sampleCatalogue(path.join(dir, 'sample'));
    service = await startService(catalogue, path.join(dir, 'service'));
    await mkdir(project());
    await writeFile(path.join(project(), '_headers'), await readFile(path.join(ROOT, '_headers')));
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('imports the service, builds what it wrote, and verify finds no difference', async () => {
    const imported = await runCommand('import', ['--from', service.url], { cwd: project(), timeoutMs: 60_000 });
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(await readFile(path.join(project(), 'static-api.config.json'), 'utf8'))).toEqual({
      baseUrl: service.url.slice(0, -1),
      pageSize: PAGE_SIZE,
    });

    const built = await runCommand('build', outputArgs(path.join(dir, 'out')), { cwd: project(), timeoutMs: 60_000 });
    expect(built.code, built.stderr).toBe(0);

    const verified = await runCommand('verify', ['--against', service.url], { cwd: project(), timeoutMs: 60_000 });
    expect(verified.stderr).not.toContain('Parse Error');
    const lines = verified.stdout.trimEnd().split('\n');
    // gunicorn's body on HEAD, said once; Django's own HTML pages where the contract departs.
    expect(lines.filter((line) => line.includes('HEAD'))).toEqual([
      'the service sends a body with its answer to HEAD (4 answers), which HTTP forbids; HEAD is compared by status and headers',
    ]);
    expect(lines.at(-1)).toMatch(
      /^verify: \d+ requests, \d+ the same, 6 differ only where the contract departs from Django \(docs\/contract\.md, section 8\), 0 differ$/,
    );
    expect(verified.code).toBe(0);
  }, 120_000);

  it('names the record changed in the service, and exits 1', async () => {
    const [first, ...rest] = catalogue.companies;
    if (first === undefined) throw new Error('the sample has no company');
    const changed = await startService(
      { ...catalogue, companies: [{ ...first, city: 'Bonn' }, ...rest] },
      path.join(dir, 'changed'),
    );
    try {
      const verified = await runCommand('verify', ['--against', changed.url, '--base-url', service.url], {
        cwd: project(),
        timeoutMs: 60_000,
      });
      const differences = verified.stdout
        .split('\n')
        .filter((line) => /^(GET|HEAD|OPTIONS) /.test(line) && !line.includes('differs only as the contract decides'));
      // The one record, and nothing of the page links, which name the other service's port.
      expect(differences).toEqual([
        `GET company/: company ${first.id} ${JSON.stringify(first.name)}: city "Bonn" → ${JSON.stringify(first.city)}`,
      ]);
      expect(verified.code).toBe(1);
    } finally {
      await changed.stop();
    }
  }, 120_000);
});
