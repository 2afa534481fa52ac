// The project's own DRF service (this folder: Django, DRF with its default renderers,
// OrderingFilter, PageNumberPagination; django-filter and SearchFilter where the settings file
// asks for them) under gunicorn from the system's packages, on SQLite or PostgreSQL: found,
// told the lists of the declarations it is given (lists.ts), loaded with a catalogue, started
// and stopped. drf-service.test.ts runs import and verify against it, filters-differential.test.ts
// the build's filters, drf-service-declarations.test.ts a list the API does not have; `npm run
// drf-service` (start.ts) starts it on a data folder for a user to rehearse them.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from '../../scripts/builder/build.ts';
import type { ResourceSettings } from '../../scripts/contract/query.ts';
import type { Resource } from '../../scripts/contract/resources/resource.ts';
import { REPO_ROOT, type Spawned, spawnProcess, waitForPort } from '../e2e/targets/process.ts';
import { findPostgres, findProgram } from '../installed.ts';
import { describeLists } from './lists.ts';

const SERVICE_DIR = path.join(REPO_ROOT, 'test/drf-service');

/** What the tests and the command say when it is missing. */
export const SERVICE_PACKAGES =
  'gunicorn with Django and DRF (Debian: gunicorn python3-django python3-djangorestframework)';

/** The Python that `gunicorn` runs, from its first line (Debian's /usr/bin/python3). */
function pythonOf(gunicorn: string): string {
  const shebang = /^#!\s*(\S+)(?:[ \t]+(\S+))?/.exec(readFileSync(gunicorn, 'latin1').slice(0, 200));
  const python = shebang?.[1] && path.basename(shebang[1]) === 'env' ? shebang[2] : shebang?.[1];
  return python ?? 'python3';
}

/** Whether the Python that `gunicorn` runs can import each of `modules`. */
function imports(gunicorn: string, modules: string): boolean {
  try {
    execFileSync(pythonOf(gunicorn), ['-c', `import ${modules}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * gunicorn, if the Python its first line names (Debian's /usr/bin/python3, not another python3
 * first on the PATH) has Django and DRF.
 */
export function findGunicorn(): string | undefined {
  const gunicorn = findProgram(['gunicorn']);
  return gunicorn !== undefined && imports(gunicorn, 'django, rest_framework') ? gunicorn : undefined;
}

/** What the filters' tests say when the service cannot filter or use PostgreSQL. */
export const FILTER_PACKAGES = `django-filter, PostgreSQL and psycopg2 (Debian: python3-django-filters postgresql python3-psycopg2)`;

/**
 * PostgreSQL's server programs' folder, when gunicorn's Python also has django-filter and
 * psycopg2: all the filters' differential test needs besides the service itself.
 */
export function findFilteringService(gunicorn: string | undefined): string | undefined {
  const bin = findPostgres();
  return gunicorn !== undefined && bin !== undefined && imports(gunicorn, 'django_filters, psycopg2') ? bin : undefined;
}

/** The records the service is loaded with, as the API shows them, by list name (catalogue/load.py). */
export type Catalogue = Record<string, Array<Record<string, unknown>>>;

/**
 * The catalogue of `dataDir` for the lists of `resources`: the lists of its build (into
 * `workDir`), every page of a paginated one. Throws the build's DataErrors when the data has
 * problems.
 */
export async function catalogueOf(
  resources: readonly Resource[],
  dataDir: string,
  headersPath: string,
  workDir: string,
): Promise<Catalogue> {
  const outDir = path.join(workDir, 'public');
  await build({
    resources,
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
  const catalogue: Catalogue = {};
  for (const resource of resources) {
    const folder = resource.path.replace(/^\/|\/$/g, '');
    if (!resource.paginated) {
      catalogue[resource.name] = await read(`${folder}/index.json`);
      continue;
    }
    const records: Array<Record<string, unknown>> = [];
    for (let page = 1, next: unknown = 'first'; next !== null; page += 1) {
      const envelope = await read(`${folder}/${page === 1 ? 'index' : `page=${page}`}.json`);
      records.push(...envelope.results);
      next = envelope.next;
    }
    catalogue[resource.name] = records;
  }
  return catalogue;
}

export interface ServiceOptions {
  /** The declarations of the lists it serves, each at its path. */
  resources: readonly Resource[];
  /** On 127.0.0.1, the one address the service's ALLOWED_HOSTS and the tests know. */
  port: number;
  /** The paginated lists' page size (DRF's PAGE_SIZE); 10 by default. */
  pageSize?: number;
  /** A handler404 that answers JSON (`JsonResponse`), as many services set, instead of Django's HTML page. */
  jsonNotFound?: boolean;
  /** An empty PostgreSQL database to load the catalogue into (postgres.ts), instead of SQLite in `dir`. */
  databaseUrl?: string;
  /** The project's settings file, whose `resources` section gives the lists their filters, search and orderings. */
  settingsFile?: string;
}

export interface Service {
  /** With its trailing slash. */
  url: string;
  process: Spawned;
  stop: () => Promise<void>;
}

/**
 * Serves `catalogue` under `gunicorn`, stopped by its process group. Everything it writes (the
 * SQLite file unless it is given a PostgreSQL database, the workers' heartbeat files) goes into
 * `dir`; its log is the process's output.
 */
export async function startService(
  gunicorn: string,
  catalogue: Catalogue,
  dir: string,
  options: ServiceOptions,
): Promise<Service> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'catalogue.json'), JSON.stringify(catalogue));
  const settings: Record<string, ResourceSettings> = options.settingsFile
    ? (JSON.parse(await readFile(options.settingsFile, 'utf8')).resources ?? {})
    : {};
  await writeFile(path.join(dir, 'lists.json'), JSON.stringify(describeLists(options.resources, settings)));
  const args = ['--preload', '--workers', '2', '--bind', `127.0.0.1:${options.port}`, '--chdir', SERVICE_DIR];
  const service = spawnProcess(
    gunicorn,
    [...args, '--worker-tmp-dir', dir, '--error-logfile', '-', 'wsgi:application'],
    {
      env: {
        ...process.env,
        DJANGO_SETTINGS_MODULE: 'settings',
        DATA_DIR: dir,
        LISTS: path.join(dir, 'lists.json'),
        CATALOGUE: path.join(dir, 'catalogue.json'),
        PAGE_SIZE: String(options.pageSize ?? 10),
        ...(options.jsonNotFound ? { NOT_FOUND: 'json' } : {}),
        ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
        // No __pycache__ in test/drf-service/.
        PYTHONDONTWRITEBYTECODE: '1',
      },
    },
  );
  await waitForPort(options.port, service);
  // Another process may hold the port (tests of other worktrees start servers too): the service
  // is there only once gunicorn says it listens, which it does after loading the catalogue.
  const listening = `Listening at: http://127.0.0.1:${options.port} `;
  for (const deadline = Date.now() + 60_000; !service.output().includes(listening); ) {
    if (service.child.exitCode !== null || Date.now() > deadline) {
      await service.stop();
      throw new Error(`gunicorn did not listen on port ${options.port}:\n${service.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `http://127.0.0.1:${options.port}/`,
    process: service,
    stop: service.stop,
  };
}
