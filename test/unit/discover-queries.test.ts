// The import's search for filters, search fields and orderings (migrate/discover-queries.ts)
// against the project's own local server, which answers them as the build does: a build of the
// sample with settings, served on 127.0.0.1, must be imported with exactly those settings, and one
// without settings with none, in one request a list. It runs where the DRF service cannot
// (import-filters.test.ts holds the import to a real DRF service on PostgreSQL).

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { settingsFileText } from '../../scripts/cli/settings-file.ts';
import type { ResourceSettings } from '../../scripts/contract/query.ts';
import { importService } from '../../scripts/migrate/import.ts';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';

let dir: string;
let server: http.Server | undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'discover-queries-'));
});

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((closed) => (server ? server.close(closed) : closed(undefined)));
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** The sample built with `resourceSettings` and served; its base URL. */
async function serveSample(resourceSettings?: Record<string, ResourceSettings>): Promise<string> {
  const out = path.join(dir, 'served');
  const buildWith = (baseUrl: string) =>
    build({
      resources: API,
      dataDir: SAMPLE_DATA,
      headersPath: SAMPLE_HEADERS,
      outDir: path.join(out, 'public'),
      targetsDir: path.join(out, 'targets'),
      targets: [],
      baseUrl,
      pageSize: 10,
      resourceSettings,
      precompress: false,
    });
  // The page links must name the origin the server listens on, known once it listens.
  await buildWith('http://127.0.0.1');
  server = createApiServer(path.join(out, 'public'), API);
  const origin = await listen(server, '127.0.0.1', 0);
  await buildWith(origin);
  return `${origin}/`;
}

async function importFrom(from: string) {
  const lines: string[] = [];
  const configPath = path.join(dir, 'static-api.config.json');
  await importService({
    resources: API,
    from,
    dataDir: path.join(dir, 'data'),
    configPath,
    force: false,
    settingsText: settingsFileText,
    log: (line) => lines.push(line),
  });
  return {
    lines: lines.filter((line) => /^import: [a-z-]+\/: /.test(line)),
    settings: JSON.parse(await readFile(configPath, 'utf8')),
  };
}

it('finds the settings a server answers, each list in the order its fields show', async () => {
  const settings = {
    company: {
      filterset_fields: ['id', 'zip_code', 'country_name', 'vf_plus_status'],
      search_fields: ['name', '^street', '=city'],
      ordering_fields: ['id', 'name', 'zip_code'],
    },
    virtualfair: { filterset_fields: ['slug'], search_fields: ['^name'] },
    'virtualbooth-texture': { search_fields: ['name'] },
  };
  const from = await serveSample(settings);
  const imported = await importFrom(from);
  expect(imported.settings.resources).toEqual(settings);
  expect(imported.lines[2]).toBe('import: event/: no filters, search or orderings (1 request)');
}, 60_000);

it('finds none on a server without settings, with one request a list, and writes no resources section', async () => {
  const from = await serveSample();
  const imported = await importFrom(from);
  expect(imported.settings).toEqual({ baseUrl: from.slice(0, -1), pageSize: 10 });
  expect(imported.lines).toEqual([
    'import: company/: no filters, search or orderings (1 request)',
    'import: virtualfair/: no filters, search or orderings (1 request)',
    'import: event/: no filters, search or orderings (1 request)',
    'import: virtualbooth-texture/: no filters, search or orderings (1 request)',
  ]);
}, 60_000);
