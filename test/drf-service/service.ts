// The project's own DRF service (this folder: Django, DRF with its default renderers,
// OrderingFilter, PageNumberPagination) under gunicorn from the system's packages: found, loaded
// with a catalogue, started and stopped. drf-service.test.ts runs import and verify against it;
// `npm run drf-service` (start.ts) starts it on a data folder for a user to rehearse them.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from '../../scripts/builder/build.ts';
import { REPO_ROOT, type Spawned, spawnProcess, waitForPort } from '../e2e/targets/process.ts';
import { findProgram } from '../installed.ts';

const SERVICE_DIR = path.join(REPO_ROOT, 'test/drf-service');

/** What the tests and the command say when it is missing. */
export const SERVICE_PACKAGES =
  'gunicorn with Django and DRF (Debian: gunicorn python3-django python3-djangorestframework)';

/**
 * gunicorn, if the Python its first line names (Debian's /usr/bin/python3, not another python3
 * first on the PATH) has Django and DRF.
 */
export function findGunicorn(): string | undefined {
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

/** The records the service is loaded with, as the API shows them (catalogue/load.py). */
export interface Catalogue {
  companies: Array<Record<string, unknown>>;
  virtualfairs: unknown[];
  events: unknown[];
  textures: unknown[];
}

/**
 * The catalogue of `dataDir`: the lists of its build (into `workDir`), and the textures of every
 * page. Throws the build's DataErrors when the data has problems.
 */
export async function catalogueOf(dataDir: string, headersPath: string, workDir: string): Promise<Catalogue> {
  const outDir = path.join(workDir, 'public');
  await build({
    dataDir,
    headersPath,
    outDir,
    targetsDir: path.join(workDir, 'targets'),
    targets: [],
    baseUrl: 'http://localhost:3000',
    pageSize: 10,
    precompress: false,
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

export interface ServiceOptions {
  /** On 127.0.0.1, the one address the service's ALLOWED_HOSTS and the tests know. */
  port: number;
  /** The texture list's page size (DRF's PAGE_SIZE); 10 by default. */
  pageSize?: number;
  /** A handler404 that answers JSON (`JsonResponse`), as many services set, instead of Django's HTML page. */
  jsonNotFound?: boolean;
}

export interface Service {
  /** With its trailing slash. */
  url: string;
  process: Spawned;
  stop: () => Promise<void>;
}

/**
 * Serves `catalogue` under `gunicorn`, stopped by its process group. Everything it writes (the
 * SQLite file, the workers' heartbeat files) goes into `dir`; its log is the process's output.
 */
export async function startService(
  gunicorn: string,
  catalogue: Catalogue,
  dir: string,
  options: ServiceOptions,
): Promise<Service> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'catalogue.json'), JSON.stringify(catalogue));
  const args = ['--preload', '--workers', '2', '--bind', `127.0.0.1:${options.port}`, '--chdir', SERVICE_DIR];
  const service = spawnProcess(
    gunicorn,
    [...args, '--worker-tmp-dir', dir, '--error-logfile', '-', 'wsgi:application'],
    {
      env: {
        ...process.env,
        DJANGO_SETTINGS_MODULE: 'settings',
        DATA_DIR: dir,
        CATALOGUE: path.join(dir, 'catalogue.json'),
        PAGE_SIZE: String(options.pageSize ?? 10),
        ...(options.jsonNotFound ? { NOT_FOUND: 'json' } : {}),
        // No __pycache__ in test/drf-service/.
        PYTHONDONTWRITEBYTECODE: '1',
      },
    },
  );
  await waitForPort(options.port, service);
  return {
    url: `http://127.0.0.1:${options.port}/`,
    process: service,
    stop: service.stop,
  };
}
