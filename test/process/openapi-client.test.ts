// A typed client made from the committed schemas/openapi.json as docs/schemas.md says: the types
// by openapi-typescript, the calls by openapi-fetch, compiled with `tsc --strict` (a wrong
// ordering field must not compile), then run by Node against the sample on the local server and
// on nginx (skipped with one line when it is missing, failing under CI=true). Every list is
// called; the texture page's links are read as the document types them; and `ordering` by two
// fields is sent as the document's `explode: false` says, where openapi-fetch's default would
// repeat the key and the service would keep only the last field.

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nginx } from '../e2e/targets/nginx.ts';
import { ROOT } from '../unit/helpers/cli.ts';
import { sampleDocument } from '../unit/helpers/sample-output.ts';
import {
  installedWebServers,
  localInProcess,
  type ServedSample,
  serveSampleWithHeaders,
} from '../unit/helpers/web-servers.ts';

const run = promisify(execFile);
const SERVERS = [localInProcess, ...installedWebServers('the typed OpenAPI client', [nginx])];

/** The client a user writes (docs/schemas.md), with a line that must not compile. */
const CLIENT = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const baseUrl = process.argv[2] as string;
// DRF reads ordering as one comma-separated value: the document's style form, explode false.
const client = createClient<paths>({ baseUrl, querySerializer: { array: { style: 'form', explode: false } } });
const byDefault = createClient<paths>({ baseUrl });

const companies = await client.GET('/company/');
const fairs = await client.GET('/virtualfair/');
const events = await client.GET('/event/', { params: { query: { ordering: ['-start_date'] } } });
const byTwo = await client.GET('/event/', { params: { query: { ordering: ['-start_date', 'name'] } } });
const byTwoExploded = await byDefault.GET('/event/', { params: { query: { ordering: ['-start_date', 'name'] } } });
const byName = await client.GET('/event/', { params: { query: { ordering: ['name'] } } });
const textures = await client.GET('/virtualbooth-texture/', { params: { query: { page: 2, format: 'json' } } });

export function neverCalled() {
  // @ts-expect-error: bogus is no ordering field of the events
  return client.GET('/event/', { params: { query: { ordering: ['bogus'] } } });
}

const next: string | null | undefined = textures.data?.next;
console.log(
  JSON.stringify({
    companies: [companies.response.status, companies.data?.map((company) => company.name)],
    fairs: [fairs.response.status, fairs.data?.map((fair) => fair.slug)],
    events: [events.response.status, events.data?.map((event) => event.id)],
    byTwo: [byTwo.response.status, byTwo.data?.map((event) => event.id) ?? byTwo.error?.detail],
    byTwoExploded: [byTwoExploded.response.status, byTwoExploded.data?.map((event) => event.id)],
    byName: [byName.response.status, byName.data?.map((event) => event.id)],
    textures: [textures.response.status, textures.data?.results.map((texture) => texture.name), next, textures.data?.previous],
  }),
);
`;

type Call = [status: number, ...values: unknown[]];
type Calls = Record<'companies' | 'fairs' | 'events' | 'byTwo' | 'byTwoExploded' | 'byName' | 'textures', Call>;

let sample: ServedSample;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'openapi-client-'));
  const document = JSON.parse(sampleDocument());
  await writeFile(path.join(dir, 'api.ts'), astToString(await openapiTS(document)));
  await writeFile(path.join(dir, 'client.ts'), CLIENT);
  await writeFile(path.join(dir, 'package.json'), '{"type": "module"}\n');
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  sample = await serveSampleWithHeaders('openapi-client-', '', SERVERS);
}, 60_000);

afterAll(async () => {
  await sample?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const compiled = () =>
  run(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/typescript/bin/tsc'),
      // The generated types are a .ts file, checked in full; only the packages' .d.ts are skipped
      // (four times faster).
      ...['--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--types', 'node'],
      ...['--outDir', 'out'],
      'client.ts',
    ],
    { cwd: dir },
  );

describe('a client generated from schemas/openapi.json (openapi-typescript, openapi-fetch)', () => {
  it('compiles with tsc --strict', async () => {
    await expect(compiled()).resolves.toBeDefined();
  }, 60_000);

  it.each(SERVERS.map((server) => server.name))('calls every list on %s', async (name) => {
    const origin = sample.running.get(name)?.origin as string;
    const { stdout } = await run(process.execPath, [path.join(dir, 'out/client.js'), origin]);
    const calls = JSON.parse(stdout) as Calls;
    const list = async (file: string) => JSON.parse(await readFile(path.join(sample.publicDir, file), 'utf8'));
    const ids = (records: Array<{ id: unknown }>) => records.map((record) => record.id);
    const names = (records: Array<{ name: unknown }>) => records.map((record) => record.name);
    const slugs = (records: Array<{ slug: unknown }>) => records.map((record) => record.slug);
    expect(calls.companies).toEqual([200, names(await list('company/index.json'))]);
    expect(calls.fairs).toEqual([200, slugs(await list('virtualfair/index.json'))]);
    expect(calls.events).toEqual([200, ids(await list('event/ordering=-start_date.json'))]);
    expect(calls.byName).toEqual([200, ids(await list('event/ordering=name.json'))]);
    const page = await list('virtualbooth-texture/format=json/page=2.json');
    expect(calls.textures).toEqual([200, names(page.results), page.next, page.previous]);
    expect(page.next).toMatch(/^http:\/\/127\.0\.0\.1:8000\/virtualbooth-texture\/\?format=json&page=3$/);
    // The default explode repeats the key: Django keeps the last value, the events by name alone.
    expect(calls.byTwoExploded).toEqual(calls.byName);
    if (name === 'local') {
      expect(calls.byTwo[0]).toBe(200);
      expect(calls.byTwo).not.toEqual(calls.byName);
      const asked = await fetch(`${origin}/event/?ordering=-start_date,name`);
      expect(calls.byTwo[1]).toEqual(ids((await asked.json()) as Array<{ id: unknown }>));
    } else {
      // A web server cannot sort at request time: the 400 the document declares for it.
      expect(calls.byTwo[0]).toBe(400);
      expect(calls.byTwo[1]).toMatch(/several fields/);
    }
  });
});
