// `npm run drf-service -- [--data <dir>] [--config <file>] [--postgres] [--port <n>] [--page-size <n>]`:
// the project's own DRF test service, serving the project's declared lists (read as every command
// reads them, scripts/cli/settings.ts) on the catalogue of a data folder (data/ by default), with
// the filters, search and orderings of the settings file's `resources` section, on
// 127.0.0.1, until Ctrl-C; to rehearse `npm run import` and `npm run verify` before pointing them
// at production (docs/migrating.md). The data is built first and loaded into the service's
// SQLite database, or with --postgres into a throwaway PostgreSQL cluster, in a temporary folder
// removed on exit.

import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DataErrors, formatDataError } from '../../scripts/builder/pipeline/errors.ts';
import { readSettings } from '../../scripts/cli/settings.ts';
import { SETUP_COMMAND } from '../installed.ts';
import { type Postgres, startPostgres } from './postgres.ts';
import {
  catalogueOf,
  FILTER_PACKAGES,
  findFilteringService,
  findGunicorn,
  SERVICE_PACKAGES,
  type Service,
  startService,
} from './service.ts';

const USAGE =
  'Usage: npm run drf-service -- [--data <dir>] [--headers <file>] [--config <file>] [--postgres] [--port <n>] [--page-size <n>]';

/** One line on stderr and exit status 1 (2 for a usage error). */
function fail(line: string, status = 1): never {
  console.error(line);
  process.exit(status);
}

let values: {
  data: string;
  headers: string;
  config: string;
  postgres?: boolean;
  port: string;
  'page-size': string;
  help?: boolean;
};
try {
  ({ values } = parseArgs({
    options: {
      data: { type: 'string', default: 'data' },
      headers: { type: 'string', default: '_headers' },
      config: { type: 'string', default: 'static-api.config.json' },
      postgres: { type: 'boolean' },
      port: { type: 'string', default: '8000' },
      'page-size': { type: 'string', default: '10' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }) as { values: typeof values });
} catch (error) {
  fail(`${(error as Error).message.split('\n')[0]}\n${USAGE}`, 2);
}
if (values.help) {
  console.log(
    `${USAGE}\n\nServes the catalogue of the data folder (default data/) as a DRF service under gunicorn on 127.0.0.1 (default port 8000) until Ctrl-C, with the filters, search and orderings of the settings file's "resources" (default static-api.config.json), on SQLite or, with --postgres, on a throwaway PostgreSQL cluster.`,
  );
  process.exit(0);
}
const port = Number(values.port);
const pageSize = Number(values['page-size']);
if (!Number.isInteger(port) || port < 1 || port > 65_535)
  fail(`--port must be a whole number from 1 to 65535, got ${JSON.stringify(values.port)}`, 2);
if (!Number.isInteger(pageSize) || pageSize < 1)
  fail(`--page-size must be a whole number of at least 1, got ${JSON.stringify(values['page-size'])}`, 2);

const gunicorn = findGunicorn();
if (gunicorn === undefined) fail(`drf-service: needs ${SERVICE_PACKAGES}; ${SETUP_COMMAND} installs them`);
const postgresBin = values.postgres ? findFilteringService(gunicorn) : undefined;
if (values.postgres && postgresBin === undefined)
  fail(`drf-service: --postgres needs ${FILTER_PACKAGES}; ${SETUP_COMMAND} installs them`);
const settingsFile = existsSync(values.config) ? path.resolve(values.config) : undefined;
let resources: ReturnType<typeof readSettings>['resources'];
try {
  // No environment: its variables (BASE_URL, PAGE_SIZE) are the build's settings, not the service's.
  ({ resources } = readSettings(['--config', values.config], {}, 'build'));
} catch (error) {
  fail(`drf-service: ${(error as Error).message}`, 2);
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'drf-service-'));
let service: Service | undefined;
let postgres: Postgres | undefined;
let stopping = false;
const stop = async (status: number) => {
  if (stopping) return;
  stopping = true;
  await service?.stop();
  await postgres?.stop();
  await rm(dir, { recursive: true, force: true });
  process.exit(status);
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop(0));

try {
  const catalogue = await catalogueOf(resources, values.data, values.headers, path.join(dir, 'build'));
  if (postgresBin !== undefined) postgres = await startPostgres(postgresBin);
  const databaseUrl = await postgres?.createDatabase('catalogue');
  service = await startService(gunicorn, catalogue, path.join(dir, 'service'), {
    resources,
    port,
    pageSize,
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(settingsFile ? { settingsFile } : {}),
  });
  // gunicorn's own log (errors only) from now on.
  service.process.child.stdout?.pipe(process.stderr);
  service.process.child.stderr?.pipe(process.stderr);
  service.process.child.once('exit', () => {
    if (stopping) return;
    console.error('drf-service: gunicorn stopped');
    void stop(1);
  });
  const records = Object.values(catalogue).reduce((sum, list: unknown[]) => sum + list.length, 0);
  console.error(
    `DRF test service at ${service.url} (gunicorn, pid ${service.process.child.pid}${postgres ? `, PostgreSQL pid ${postgres.pid}` : ''}): ${records} records of ${values.data}/, ${pageSize} to a page. Ctrl-C stops it.`,
  );
  // The import writes a settings file too: both go into a folder of their own, not the project's.
  const apart = '--data rehearsal/data --config rehearsal/static-api.config.json';
  console.error(
    `Rehearse: npm run import -- --from ${service.url} ${apart}, then npm run verify -- --against ${service.url} ${apart}`,
  );
} catch (error) {
  if (error instanceof DataErrors) {
    for (const problem of error.errors) console.error(formatDataError(problem));
    console.error(`\n${error.message}; nothing was served.`);
  } else console.error(`drf-service: ${(error as Error).message}`);
  await stop(1);
}
