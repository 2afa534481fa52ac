// `npm run import` as the user runs it, in a process of its own, over real HTTP on 127.0.0.1:
// the sample built and served by the local server, imported into an empty project and built
// again gives every output file byte for byte, and `npm run verify` finds no difference until
// the service changes; and a refusal is one line, with nothing written.

import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { type Finished, hasStackTrace, runCommand } from '../unit/helpers/cli.ts';
import { type StandInService, startStandInService } from '../unit/helpers/stand-in-service.ts';

let dir: string;
let server: http.Server | undefined;
let standIn: StandInService | undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'import-cli-'));
});

afterEach(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise((closed) => server?.close(closed));
    server = undefined;
  }
  await standIn?.close();
  standIn = undefined;
  await rm(dir, { recursive: true, force: true });
});

/**
 * Runs `npm run <name>` with `args` in the project folder `cwd`, so that its default paths are
 * the project's; killed by its PID after 30 s.
 */
const runCli = (name: 'import' | 'verify', args: readonly string[], cwd: string): Promise<Finished> =>
  runCommand(name, args, { cwd, timeoutMs: 30_000 });

/** Every file under `root`, relative path → bytes. */
async function tree(root: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.set(path.relative(root, file), await readFile(file));
  }
  return files;
}

const buildInto = (out: string, options: { dataDir: string; baseUrl: string; pageSize: number }) =>
  build({
    resources: API,
    ...options,
    outDir: path.join(out, 'public'),
    targetsDir: path.join(out, 'targets'),
    targets: [],
    headersPath: SAMPLE_HEADERS,
  });

it('round trip: the sample, built and served, imported and built again, gives every output file byte for byte', async () => {
  const served = path.join(dir, 'served');
  // The links must be on the origin the service is asked on, which is known once it listens:
  // the server is started on a first build, which the second replaces under it.
  await buildInto(served, { dataDir: SAMPLE_DATA, baseUrl: 'http://127.0.0.1', pageSize: 10 });
  server = createApiServer(path.join(served, 'public'), API);
  const origin = await listen(server, '127.0.0.1', 0);
  await buildInto(served, { dataDir: SAMPLE_DATA, baseUrl: origin, pageSize: 10 });

  const project = path.join(dir, 'project');
  await mkdir(project);
  const imported = await runCli('import', ['--from', `${origin}/`], project);
  expect(imported.stderr).toContain('import: 3 of 3 lists, 6 of 6 texture pages, ');
  expect(imported.stderr).toContain("import: npm run build answers 9 requests with the service's bytes");
  // One file a list, as the sample's companies: each list holds at most 1,000 records.
  expect(imported.stderr).toContain(
    `import: wrote data/ (4 files) and static-api.config.json (baseUrl ${origin}, pageSize 10)`,
  );
  expect(imported.stderr).toContain('Next: npm run build');
  expect(imported.code).toBe(0);
  const settings = JSON.parse(await readFile(path.join(project, 'static-api.config.json'), 'utf8'));
  expect(settings).toEqual({ baseUrl: origin, pageSize: 10 });

  await buildInto(path.join(project, 'rebuilt'), { dataDir: path.join(project, 'data'), ...settings });
  const [before, after] = [await tree(path.join(served, 'public')), await tree(path.join(project, 'rebuilt/public'))];
  expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
  for (const [file, bytes] of before) expect(after.get(file)?.equals(bytes), file).toBe(true);
  expect(before.size).toBeGreaterThan(40);

  // verify, from the project with its settings file, finds no difference with the service...
  const verifyArgs = ['--against', `${origin}/`, '--headers', SAMPLE_HEADERS];
  const same = await runCli('verify', verifyArgs, project);
  expect(same.stdout).toMatch(/^verify: \d+ requests, (\d+) the same, 0 differ$/m);
  expect(same.code).toBe(0);

  // ...until one record of the service changes: then it names the record and the field.
  const companies = path.join(served, 'public/company/index.json');
  const list = JSON.parse(await readFile(companies, 'utf8')) as Array<{ id: number; name: string; city: string }>;
  const [first] = list;
  if (!first) throw new Error('the sample has no company');
  const moved = { ...first, city: `${first.city} (moved)` };
  await writeFile(companies, JSON.stringify([moved, ...list.slice(1)]));
  const changed = await runCli('verify', verifyArgs, project);
  expect(changed.stdout).toContain(
    `GET company/: company ${first.id} ${JSON.stringify(first.name)}: city ${JSON.stringify(moved.city)} → ${JSON.stringify(first.city)}`,
  );
  expect(changed.stdout).toMatch(/^verify: \d+ requests, \d+ the same, 1 differ$/m);
  expect(changed.code).toBe(1);
});

it('refuses a data folder that holds files without --force: one line, exit 2, nothing asked or written', async () => {
  await mkdir(path.join(dir, 'data/company'), { recursive: true });
  await writeFile(path.join(dir, 'data/company/companies.json'), '[]\n');
  // Nothing listens there: the refusal comes before any request.
  const finished = await runCli('import', ['--from', 'http://127.0.0.1:9/api/'], dir);
  expect(finished.code).toBe(2);
  expect(finished.stderr).toBe(
    'data/ already holds 1 entry (company): pass --force to replace it with the import, or --data to import into another folder\n' +
      'See `npm run import -- --help`.\n',
  );
  expect(await readdir(dir)).toEqual(['data']);
  expect(await readFile(path.join(dir, 'data/company/companies.json'), 'utf8')).toBe('[]\n');
});

it('gives up on a service that cannot be reached: one line naming the URL and the cause, no stack, nothing written', async () => {
  const finished = await runCli('import', ['--from', 'http://127.0.0.1:9/api/'], dir);
  expect(finished.code).toBe(1);
  expect(finished.stderr).toMatch(
    /^GET http:\/\/127\.0\.0\.1:9\/api\/[a-z-]+\/: [^\n]*refused[^\n]* \(tried 4 times\)\n$/,
  );
  expect(hasStackTrace(finished.stderr)).toBe(false);
  expect(await readdir(dir)).toEqual([]);
});

it('writes a record that breaks a rule, prints each problem as the build will, and exits 1', async () => {
  // The sample's answers, from a build of it, shown by a service that writes one colour #FFF.
  const served = path.join(dir, 'served');
  await buildInto(served, { dataDir: SAMPLE_DATA, baseUrl: 'http://127.0.0.1', pageSize: 10 });
  const read = async (file: string) => JSON.parse(await readFile(path.join(served, 'public', file), 'utf8'));
  const textures = [];
  for (const page of ['index', 'page=2', 'page=3', 'page=4', 'page=5', 'page=6']) {
    textures.push(...(await read(`virtualbooth-texture/${page}.json`)).results);
  }
  const events = (await read('event/index.json')).map((event: { id: number }) =>
    event.id === 105 ? { ...event, logo_bg_color: '#FFF' } : event,
  );
  standIn = await startStandInService(
    { companies: await read('company/index.json'), fairs: await read('virtualfair/index.json'), events, textures },
    { prefix: '/api/' },
  );
  const project = path.join(dir, 'project');
  await mkdir(project);
  const finished = await runCli('import', ['--from', standIn.url], project);
  expect(finished.code).toBe(1);
  expect(finished.stderr).toContain(
    "import: npm run build answers 7 requests with the service's bytes (not compared, for the problems below: virtualfair, event)\n",
  );
  expect(finished.stderr).toContain(
    'data/event/events.json:20:22 #/1/logo_bg_color (record 1, id 105): expected a colour of the form #rrggbb, got "#FFF"\n\n' +
      '1 problem in the imported records: data/ holds them as the service shows them, and npm run build refuses the data ' +
      'until they are fixed (README: "Moving from a running DRF service").\n',
  );
  expect((await readdir(project)).sort()).toEqual(['data', 'static-api.config.json']);
});
