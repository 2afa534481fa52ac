// The import's search for filters, search fields and orderings (migrate/discover-queries.ts)
// against the project's own local server, which answers them as the build does: a build of the
// sample with settings, served on 127.0.0.1, must be imported with exactly those settings, and one
// without settings with none, in one request a list; verify's request of every filter refused at
// once must tell two orders of the filters apart. It runs where the DRF service cannot
// (import-filters.test.ts holds the import to a real DRF service on PostgreSQL).

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { settingsFileText } from '../../scripts/cli/settings-file.ts';
import type { ResourceSettings } from '../../scripts/contract/query.ts';
import { serviceClient } from '../../scripts/migrate/client.ts';
import { importService } from '../../scripts/migrate/import.ts';
import { verifyAgainst } from '../../scripts/migrate/verify.ts';
import { queryRequests } from '../../scripts/migrate/verify-queries.ts';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { API, declares, missingList, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';

let dir: string;
const servers: http.Server[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'discover-queries-'));
});

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((closed) => server.close(closed));
  }
  await rm(dir, { recursive: true, force: true });
});

/** The sample built with `resourceSettings` into `name` and served; its base URL. */
async function serveSample(resourceSettings?: Record<string, ResourceSettings>, name = 'served'): Promise<string> {
  const out = path.join(dir, name);
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
  const server = createApiServer(path.join(out, 'public'), API);
  servers.push(server);
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

it("finds the settings a server answers, the filters in the service's order, the rest in the list's", async ({
  skip,
}) => {
  skip(!declares('virtualbooth-texture'), missingList('virtualbooth-texture'));
  const settings = {
    company: {
      // Not the list's order (id, zip_code, country_name): the order its 400 names them in.
      filterset_fields: ['country_name', 'zip_code', 'id', 'vf_plus_status'],
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
  expect(imported.lines).toEqual(
    API.map(({ path }) => `import: ${path.slice(1)}: no filters, search or orderings (1 request)`),
  );
}, 60_000);

it('verify asks every filter a value refuses at once, whose 400 tells another order of the filters', async () => {
  const company = (filters: string[]) => ({ company: { filterset_fields: filters } });
  const service = await serveSample(company(['city', 'phone', 'id', 'country_name']), 'service');
  const built = await serveSample(company(['country_name', 'city', 'id', 'phone']), 'built');
  const requests = await queryRequests(path.join(dir, 'built/public'), API);
  const report = await verifyAgainst(
    { client: serviceClient(service), base: service },
    { client: serviceClient(built), base: built },
    requests,
    API,
  );
  expect(report.lines).toHaveLength(1);
  expect(report.lines[0]).toMatch(
    /^GET company\/\?country_name=%00&city=%00&id=abc&phone=%00: the same values written differently "\{\\"city\\":.* → "\{\\"country_name\\":/,
  );
}, 60_000);
