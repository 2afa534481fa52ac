// The migration against a real Django REST Framework service: the project under
// test/drf-service/ (Django, DRF with its default renderers, OrderingFilter, PageNumberPagination)
// serving the sample catalogue under gunicorn from Debian's packages, as most DRF services run.
// npm run import reads it, npm run build builds what it wrote, and npm run verify finds no
// difference but where the contract departs from Django and DRF on purpose; with one record
// changed in the service, verify names it and exits 1. gunicorn sends a body on HEAD, which
// verify must read past and report once.

import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Catalogue,
  catalogueOf,
  findGunicorn,
  SERVICE_PACKAGES,
  type ServiceOptions,
  startService as startGunicorn,
} from '../drf-service/service.ts';
import { freePort } from '../e2e/targets/process.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { reportMissing } from '../installed.ts';
import { outputArgs, ROOT, runCommand } from '../unit/helpers/cli.ts';

/** Not the import's default of 10, so that the test sees the import find it. */
const PAGE_SIZE = 7;

const gunicorn = findGunicorn();
if (gunicorn === undefined) reportMissing(SERVICE_PACKAGES, 'the real DRF service tests');

/** The sample catalogue: the lists of a build of data/, every page of a paginated one. */
const sampleCatalogue = (dir: string) => catalogueOf(API, SAMPLE_DATA, SAMPLE_HEADERS, dir);

/** Serves `catalogue` under gunicorn on a free port of 127.0.0.1, writing into `dir`. */
async function startService(catalogue: Catalogue, dir: string, options: Partial<ServiceOptions> = {}) {
  const port = await freePort();
  return startGunicorn(gunicorn as string, catalogue, dir, { resources: API, port, pageSize: PAGE_SIZE, ...options });
}

/** stdout's lines without the last, empty one. */
const linesOf = (stdout: string) => stdout.trimEnd().split('\n');

const BODY_ON_HEAD =
  'the service sends a body with its answer to HEAD (4 answers), which HTTP forbids; HEAD is compared by status and headers';

describe.skipIf(gunicorn === undefined)('npm run import and verify against a DRF service under gunicorn', () => {
  let dir: string;
  let catalogue: Catalogue;
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  const project = () => path.join(dir, 'project');

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'drf-service-'));
    catalogue = await sampleCatalogue(path.join(dir, 'sample'));
    service = await startService(catalogue, path.join(dir, 'service'));
    await mkdir(project());
    await writeFile(path.join(project(), '_headers'), await readFile(SAMPLE_HEADERS));
  }, 30_000);

  afterAll(async () => {
    await service?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('imports the service, builds what it wrote, and verify finds no difference', async () => {
    const url = (service as NonNullable<typeof service>).url;
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
    const browsable = Math.ceil((catalogue['virtualbooth-texture'] ?? []).length / PAGE_SIZE) + 1;
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
    const [first, ...rest] = catalogue.company ?? [];
    if (first === undefined) throw new Error('the sample has no company');
    const changed = await startService(
      { ...catalogue, company: [{ ...first, city: 'Bonn' }, ...rest] },
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

  // A handler404 returning JsonResponse: JSON, but without the Vary and Allow of DRF's views.
  it("takes a JSON 404 without the API's headers as the contract decides", async () => {
    const jsonNotFound = await startService(catalogue, path.join(dir, 'json-404'), { jsonNotFound: true });
    try {
      const answer = await fetch(`${jsonNotFound.url}no-such-list/`);
      expect(answer.status).toBe(404);
      expect(answer.headers.get('content-type')).toBe('application/json');
      expect(answer.headers.get('vary')).toBeNull();
      expect(await answer.json()).toEqual({ detail: 'Not found.' });
      const args = ['--against', jsonNotFound.url, '--base-url', jsonNotFound.url.slice(0, -1)];
      const verified = await runCommand('verify', args, { cwd: project(), timeoutMs: 30_000 });
      expect(linesOf(verified.stdout)).toContain(
        "GET no-such-list/: differs only as the contract decides: the build's 404 carries the API's headers, as the contract decides for every 404 (docs/contract.md, section 8, decision 2)",
      );
      expect(verified.stdout).not.toContain('Each difference reads');
      expect(verified.code, verified.stdout).toBe(0);
    } finally {
      await jsonNotFound.stop();
    }
  }, 60_000);
});

describe.skipIf(gunicorn === undefined)('npm run drf-service', () => {
  it('serves the catalogue of a data folder until stopped by its PID, and leaves nothing behind', async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'drf-service-command-'));
    const port = await freePort();
    // A settings file that does not exist: the project's own is not the test's.
    const args = ['--data', SAMPLE_DATA, '--config', path.join(tmp, 'none.json'), '--port', String(port)];
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/drf-service/start.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: tmp },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    try {
      const deadline = Date.now() + 45_000;
      while (!stderr.includes('Ctrl-C stops it.')) {
        expect(Date.now(), stderr).toBeLessThan(deadline);
        expect(child.exitCode, stderr).toBeNull();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const url = `http://127.0.0.1:${port}/`;
      expect(stderr).toMatch(
        new RegExp(
          `^DRF test service at ${url} \\(gunicorn, pid \\d+\\): \\d+ records of ${SAMPLE_DATA.replaceAll('/', '\\/')}/, 10 to a page\\. Ctrl-C stops it\\.$`,
          'm',
        ),
      );
      const companies = await fetch(`${url}company/`);
      expect(companies.status).toBe(200);
      const sample = await sampleCatalogue(path.join(tmp, 'sample'));
      expect(await companies.json()).toEqual(sample.company);
      await rm(path.join(tmp, 'sample'), { recursive: true });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    // gunicorn went with it, and so did its folder.
    await expect(fetch(`http://127.0.0.1:${port}/company/`)).rejects.toThrow();
    expect((await readdir(tmp)).filter((name) => name.startsWith('drf-service-'))).toEqual([]);
    await rm(tmp, { recursive: true, force: true });
  }, 90_000);
});
