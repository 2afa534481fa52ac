// The layout `npm run import` writes (migrate/layout.ts): which file each record goes in, that
// an edit, an added or a removed record changes one file, and, end to end, an import of a
// catalogue past the files' limit from a running server (two paginated lists, one of them
// declared only for the tests): the files it writes, the same bytes at a second import, and a
// build of them that gives every file the server answered from.

import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { settingsFileText } from '../../scripts/cli/settings-file.ts';
import { routingOf } from '../../scripts/contract/routes.ts';
import { importService } from '../../scripts/migrate/import.ts';
import { FILE_RECORDS, layoutOf } from '../../scripts/migrate/layout.ts';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { freePort } from '../e2e/targets/process.ts';
import { category } from '../fixtures/extra-list/category.ts';
import { CATALOGUE as API, CATALOGUE_DATA as SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { readTree, tempDirs } from '../unit/helpers/tree.ts';

const [company, virtualfair, , texture] = API as unknown as [
  (typeof API)[number],
  (typeof API)[number],
  (typeof API)[number],
  (typeof API)[number],
];

// API is the catalogue's four whatever SAMPLE_API says: this file adds its own lists to them.
const WITH_CATEGORIES = [...API, category];

/** A lower-case UUID from a number, spread over the first hex digits as random ones are. */
const uuid = (n: number) => {
  const hex = ((n * 2654435761) % 2 ** 32).toString(16).padStart(8, '0');
  return `${hex}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
};

const files = (layout: ReturnType<typeof layoutOf>) => layout.map(({ file }) => file);
const textsOf = (layout: ReturnType<typeof layoutOf>) =>
  new Map(layout.map(({ file, records }) => [file, JSON.stringify(records)]));

/** The files made, removed or changed from one layout to the other. */
function changedFiles(before: ReturnType<typeof layoutOf>, after: ReturnType<typeof layoutOf>): string[] {
  const [a, b] = [textsOf(before), textsOf(after)];
  return [...new Set([...a.keys(), ...b.keys()])].filter((file) => a.get(file) !== b.get(file)).sort();
}

describe('which file each record goes in', () => {
  it(`keeps a resource of at most ${FILE_RECORDS} records in one file, as in the sample`, () => {
    const records = Array.from({ length: FILE_RECORDS }, (_, i) => ({ id: i * 97 + 5 }));
    expect(layoutOf(company, records)).toEqual([{ file: 'company/companies.json', records }]);
    expect(files(layoutOf(texture, [{ id: uuid(1) }]))).toEqual(['virtualbooth-texture/textures.json']);
  });

  it('splits integer ids by decimal ranges until each holds at most 1,000, sparse or dense', () => {
    // 1,500 dense ids from 1, then 300 sparse ones up to 3,000,000.
    const dense = Array.from({ length: 1500 }, (_, i) => ({ id: i + 1 }));
    const sparse = Array.from({ length: 300 }, (_, i) => ({ id: 10_000 * (i + 1) }));
    const layout = layoutOf(company, [...dense, ...sparse]);
    const ranges = (width: number) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((k) => `${k * width}-${(k + 1) * width - 1}`);
    expect(files(layout)).toEqual(
      [
        '0-999',
        '1000-1999',
        ...ranges(10_000),
        ...ranges(100_000),
        '1000000-1999999',
        '2000000-2999999',
        '3000000-3999999',
      ].map((range) => `company/companies-${range}.json`),
    );
    for (const { file, records } of layout) {
      expect(records.length, file).toBeLessThanOrEqual(FILE_RECORDS);
      const [from, to] = (/-(\d+)-(\d+)\.json$/.exec(file) as RegExpExecArray).slice(1).map(Number) as [number, number];
      for (const record of records as { id: number }[]) {
        expect(record.id >= from && record.id <= to, `${record.id} in ${file}`).toBe(true);
      }
    }
    expect(layout.flatMap(({ records }) => records)).toEqual([...dense, ...sparse]);
  });

  it('changes one file for an edited, an added or a removed record', () => {
    // Ids 1, 4, 7, ... 12,961: 334 a thousand, and 987 from 10,000 on.
    const records = Array.from({ length: 4321 }, (_, i) => ({ id: 3 * i + 1, name: `Company ${i}` }));
    const before = layoutOf(company, records);
    expect(files(before).slice(-2)).toEqual(['company/companies-9000-9999.json', 'company/companies-10000-19999.json']);
    const edited = records.map((record) => (record.id === 2_002 ? { ...record, name: 'Renamed' } : record));
    expect(changedFiles(before, layoutOf(company, edited))).toEqual(['company/companies-2000-2999.json']);
    // The next import: the service added a record after its last id, or deleted one.
    expect(changedFiles(before, layoutOf(company, [...records, { id: 12_964, name: 'New' }]))).toEqual([
      'company/companies-10000-19999.json',
    ]);
    expect(
      changedFiles(
        before,
        layoutOf(
          company,
          records.filter((record) => record.id !== 2_002),
        ),
      ),
    ).toEqual(['company/companies-2000-2999.json']);
  });

  it('splits text ids (UUIDs) by their first characters, and keeps ids of neither kind apart', () => {
    const records = Array.from({ length: 20_000 }, (_, i) => ({ id: uuid(i + 1) })).sort((a, b) =>
      a.id < b.id ? -1 : 1,
    );
    const layout = layoutOf(texture, [...records, { id: null }]);
    const names = files(layout);
    // 20,000 over 16 first digits is over 1,000 each, so two digits.
    expect(names).toHaveLength(256 + 1);
    expect(names[0]).toBe('virtualbooth-texture/textures-00.json');
    expect(names.at(-2)).toBe('virtualbooth-texture/textures-ff.json');
    expect(names.at(-1)).toBe('virtualbooth-texture/textures-other-ids.json');
    for (const { file, records: held } of layout.slice(0, -1)) {
      const prefix = (/-(\w+)\.json$/.exec(file) as RegExpExecArray)[1] as string;
      for (const record of held as { id: string }[]) expect(record.id.startsWith(prefix), file).toBe(true);
    }
    const added = [...records, { id: uuid(9999) }].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(changedFiles(layoutOf(texture, records), layoutOf(texture, added))).toEqual([
      `virtualbooth-texture/textures-${uuid(9999).slice(0, 2)}.json`,
    ]);
  });

  it("cuts a list kept in the data's order into files in that order, their path order", () => {
    const records = Array.from({ length: 2500 }, (_, i) => ({ id: 2500 - i }));
    const layout = layoutOf(virtualfair, records);
    expect(files(layout)).toEqual([
      'virtualfair/fairs-0001.json',
      'virtualfair/fairs-0002.json',
      'virtualfair/fairs-0003.json',
    ]);
    expect(layout.map(({ records: held }) => held.length)).toEqual([1000, 1000, 500]);
    expect(layout.flatMap(({ records: held }) => held)).toEqual(records);
  });
});

// ---------------------------------------------------------------------------------------------
// End to end: a catalogue past the limit, built and served by the local server, imported.

const temp = tempDirs('import-layout-');
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

const PAGE_SIZE = 50;
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>[];
const writeJson = (file: string, value: unknown) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
};

/**
 * The sample with 2,000 companies (every second id from 200,000), 1,000 fairs, 1,000 textures and 1,030 categories more: every
 * resource past the limit of a file, in the layout a user might have written by hand.
 */
function largeCatalogue(dataDir: string, extraCompany?: number): void {
  cpSync(SAMPLE_DATA, dataDir, { recursive: true });
  const [firstCompany] = readJson(path.join(dataDir, 'company/companies.json'));
  const companies = Array.from({ length: 2000 }, (_, i) => ({
    ...firstCompany,
    id: 200_000 + 2 * i,
    name: `Firm ${i}`,
  }));
  if (extraCompany !== undefined) companies.push({ ...firstCompany, id: extraCompany, name: 'Added Firm' });
  writeJson(path.join(dataDir, 'company/more.json'), companies);
  const [firstFair] = readJson(path.join(dataDir, 'virtualfair/fairs.json'));
  const fairs = Array.from({ length: 1000 }, (_, i) => ({ ...firstFair, id: 5_000 + i, slug: `fair-${i}` }));
  writeJson(path.join(dataDir, 'virtualfair/more.json'), fairs);
  const [textureFile] = readdirSync(path.join(dataDir, 'virtualbooth-texture'));
  const oneTexture = readJson(path.join(dataDir, 'virtualbooth-texture', textureFile as string)) as unknown as object;
  const textures = Array.from({ length: 1000 }, (_, i) => ({ ...oneTexture, id: uuid(i + 1), name: `Tex ${i}` }));
  writeJson(path.join(dataDir, 'virtualbooth-texture/more.json'), textures);
  const categories = Array.from({ length: 1030 }, (_, i) => ({ id: uuid(50_000 + i), name: `Category ${i}` }));
  writeJson(path.join(dataDir, 'category/all.json'), categories);
}

/** Builds `dataDir` with its links on a local origin and serves it; the origin's base URL. */
async function served(dataDir: string, dir: string): Promise<{ from: string; outDir: string }> {
  const outDir = path.join(dir, 'public');
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  await build({
    resources: WITH_CATEGORIES,
    dataDir,
    outDir,
    targetsDir: path.join(dir, 'targets'),
    targets: [],
    headersPath: SAMPLE_HEADERS,
    baseUrl: origin,
    pageSize: PAGE_SIZE,
  });
  const server = createApiServer(outDir, routingOf(WITH_CATEGORIES));
  servers.push(server);
  await listen(server, '127.0.0.1', port);
  return { from: `${origin}/`, outDir };
}

async function importInto(from: string, project: string) {
  const lines: string[] = [];
  const result = await importService({
    from,
    dataDir: path.join(project, 'data'),
    configPath: path.join(project, 'static-api.config.json'),
    force: false,
    settingsText: settingsFileText,
    resources: WITH_CATEGORIES,
    log: (line) => lines.push(line),
  });
  return { result, lines, data: await readTree(path.join(project, 'data')) };
}

describe('an import past the limit of a file', () => {
  it('writes files of at most 1,000 records, the same bytes again, and data that builds to every file served', async () => {
    const dir = await temp();
    largeCatalogue(path.join(dir, 'source'));
    const service = await served(path.join(dir, 'source'), path.join(dir, 'service'));
    const first = await importInto(service.from, path.join(dir, 'first'));
    expect(first.result).toMatchObject({ pageSize: PAGE_SIZE, problems: [] });
    expect(first.lines.join('\n')).toContain(
      '2,132 companies, 1,010 fairs, 66 events, 1,054 textures, 1,030 categories',
    );
    const names = [...first.data.keys()];
    expect(names.filter((file) => file.startsWith('company/'))).toEqual([
      'company/companies-0-99999.json',
      'company/companies-200000-200999.json',
      'company/companies-201000-201999.json',
      'company/companies-202000-202999.json',
      'company/companies-203000-203999.json',
    ]);
    expect(
      names.filter(
        (file) =>
          !file.startsWith('company/') && !file.startsWith('virtualbooth-texture/') && !file.startsWith('category/'),
      ),
    ).toEqual(['event/events.json', 'virtualfair/fairs-0001.json', 'virtualfair/fairs-0002.json']);
    // 1,054 textures and 1,030 categories: by the first digit of their ids.
    for (const folder of ['virtualbooth-texture/textures', 'category/categories']) {
      const held = names.filter((file) => file.startsWith(folder));
      expect(held.length, folder).toBeGreaterThan(10);
      for (const file of held) expect(file, folder).toMatch(new RegExp(`^${folder}-[0-9a-f]\\.json$`));
    }
    for (const [file, bytes] of first.data) {
      expect((JSON.parse(bytes.toString('utf8')) as unknown[]).length, file).toBeLessThanOrEqual(FILE_RECORDS);
    }

    // Imported again from the same service: the same files, byte for byte.
    const second = await importInto(service.from, path.join(dir, 'second'));
    expect([...second.data.keys()]).toEqual(names);
    for (const [file, bytes] of first.data) expect(second.data.get(file)?.equals(bytes), file).toBe(true);

    // What the import wrote builds, with the settings file it wrote, to every file the service answered from.
    const settings = JSON.parse(readFileSync(path.join(dir, 'first', 'static-api.config.json'), 'utf8'));
    const rebuilt = path.join(dir, 'rebuilt');
    await build({
      resources: WITH_CATEGORIES,
      dataDir: path.join(dir, 'first', 'data'),
      outDir: path.join(rebuilt, 'public'),
      targetsDir: path.join(rebuilt, 'targets'),
      targets: [],
      headersPath: SAMPLE_HEADERS,
      ...settings,
    });
    const [expected, actual] = [await readTree(service.outDir), await readTree(path.join(rebuilt, 'public'))];
    expect([...actual.keys()]).toEqual([...expected.keys()]);
    for (const [file, bytes] of expected) expect(actual.get(file)?.equals(bytes), file).toBe(true);
  }, 120_000);

  it('changes only the file of a company the service added since the last import', async () => {
    const dir = await temp();
    largeCatalogue(path.join(dir, 'before'));
    largeCatalogue(path.join(dir, 'after'), 201_555);
    const before = await importInto(
      (await served(path.join(dir, 'before'), path.join(dir, 's1'))).from,
      path.join(dir, 'p1'),
    );
    const after = await importInto(
      (await served(path.join(dir, 'after'), path.join(dir, 's2'))).from,
      path.join(dir, 'p2'),
    );
    expect([...after.data.keys()]).toEqual([...before.data.keys()]);
    const differing = [...after.data]
      .filter(([file, bytes]) => !before.data.get(file)?.equals(bytes))
      .map(([file]) => file);
    expect(differing).toEqual(['company/companies-201000-201999.json']);
  }, 120_000);

  it('refuses paginated lists whose pages are of different sizes, which one page size cannot reproduce', async () => {
    const dir = await temp();
    const dataDir = path.join(dir, 'source');
    cpSync(SAMPLE_DATA, dataDir, { recursive: true });
    writeJson(
      path.join(dataDir, 'category/all.json'),
      Array.from({ length: 60 }, (_, i) => ({ id: uuid(i + 1), name: `Category ${i}` })),
    );
    // The textures 50 a page, the categories 20 a page: the second build's category pages in the first's folder.
    const service = await served(dataDir, path.join(dir, 'service'));
    const other = path.join(dir, 'other');
    await build({
      resources: WITH_CATEGORIES,
      dataDir,
      outDir: path.join(other, 'public'),
      targetsDir: path.join(other, 'targets'),
      targets: [],
      headersPath: SAMPLE_HEADERS,
      baseUrl: service.from.replace(/\/$/, ''),
      pageSize: 20,
    });
    await rm(path.join(service.outDir, 'category'), { recursive: true });
    cpSync(path.join(other, 'public', 'category'), path.join(service.outDir, 'category'), { recursive: true });
    const project = path.join(dir, 'project');
    await expect(importInto(service.from, project)).rejects.toThrow(
      `${service.from}category/: shows 20 a page, but ${service.from}virtualbooth-texture/ shows ${PAGE_SIZE} a page: ` +
        'the build writes every paginated list with one page size',
    );
    expect(existsSync(project)).toBe(false);
  }, 60_000);
});
