// The live preview's build (builder/preview/live-build.ts) against the full build, with fast-check:
// random sequences of edits, additions, removals and renames of data files, invalid ones and
// their fixes among them. After every step the preview folder holds exactly what a full build of
// the same data writes (the same files, the same bytes, precompressed siblings included), or,
// when the data has problems, the same problem lines as the full build while the folder keeps the
// last good output.
//
// `npm test` runs a bounded number of sequences; `npm run fuzz` many more (FUZZ_LIVE_RUNS; FUZZ_SEED
// to replay a failure).

import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type BuildOptions, build } from '../../scripts/builder/build.ts';
import { DataErrors, formatDataError } from '../../scripts/builder/pipeline/errors.ts';
import { LiveBuild } from '../../scripts/builder/preview/live-build.ts';
import { generate } from '../bench/generate.ts';
import { CATALOGUE as API, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { ROOT } from './helpers/cli.ts';
import { validFair } from './helpers/records.ts';
import { readTree, tempDirs } from './helpers/tree.ts';

const RUNS = Number(process.env.FUZZ_LIVE_RUNS ?? 60);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const GOOD = path.join(ROOT, 'test/fixtures/good/data');
const tempDir = tempDirs('dev-live-');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Resource = 'company' | 'event' | 'virtualfair' | 'virtualbooth-texture';
const LIST_NAMES: readonly Resource[] = ['company', 'event', 'virtualfair', 'virtualbooth-texture'];

// ---------------------------------------------------------------------------------------------
// Records: few values each, so that ids repeat, names tie and fairs name events that come and go.

const NAMES = ['Alpha', 'alpha', 'Beta', 'Zeta Werkzeuge GmbH', 'Öl & Gas', 'Cork', 'Oak parquet', 'ﬀ\u2028line'];
const EVENT_IDS = [5, 9, 11, 13, 21, 34, 55, 99];
const TEXTURE_IDS = [
  '6a1351f2-4afd-4a5d-96cc-b91631d3a389',
  '10fc2ce5-0b1c-4d5e-8f9a-1b2c3d4e5f60',
  '3d1f0a2b-5c6d-4e7f-8a9b-0c1d2e3f4a5b',
  '7e8f9a0b-1c2d-4e3f-9a5b-6c7d8e9f0a1b',
  '8f9a0b1c-2d3e-4f5a-8b6c-7d8e9f0a1b2c',
  '9a0b1c2d-3e4f-4a5b-9c7d-8e9f0a1b2c3d',
  'a0b1c2d3-4e5f-4a6b-8d8e-9f0a1b2c3d4e',
  'b1c2d3e4-5f6a-4b7c-9e9f-0a1b2c3d4e5f',
];
const name = fc.constantFrom(...NAMES);

const company = fc.record({ id: fc.integer({ min: 1, max: 400 }), name }).map(
  ({ id, name }): Json => ({
    id,
    name,
    street: 'Königsallee 23',
    zip_code: '42853',
    city: 'Remscheid',
    country_name: 'Germany',
    phone: null,
    fax: null,
    e_mail: 'info@example.com',
    platform_plus_status: false,
    website: 'https://www.example.com/',
    logo: null,
    tags: 'Welding & Cutting',
    vf_plus_status: true,
  }),
);

const event = fc
  .record({
    id: fc.constantFrom(...EVENT_IDS),
    name,
    day: fc.integer({ min: 1, max: 28 }),
    logo: fc.constantFrom(null, '/media/events/expo.png', '/media/events/other.png'),
    shortCode: fc.constantFrom(null, 'EXPO', 'FUTR'),
  })
  .map(
    ({ id, name, day, logo, shortCode }): Json => ({
      id,
      name,
      slug: `event-${id}`,
      short_code: shortCode,
      start_date: `2024-05-${String(day).padStart(2, '0')}`,
      end_date: '2024-05-28',
      logo,
      logo_bg_color: null,
    }),
  );

/** A fair's event: an id, or an object that gives some fields itself (all of them, or too few). */
const fairEvent = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(5, 9, 11) },
  { weight: 1, arbitrary: fc.constantFrom(...EVENT_IDS) },
  fc
    .record({ id: fc.constantFrom(...EVENT_IDS), every: fc.boolean() })
    .map(
      ({ id, every }): Json =>
        every
          ? { id, slug: `fair-${id}`, name: 'Given', short_code: null, start_date: '2024-01-01', event_logo: '/x.png' }
          : { id, event_logo: '/given.png' },
    ),
);

const fair = fc
  .record({ id: fc.integer({ min: 1, max: 20 }), name, events: fc.array(fairEvent, { maxLength: 3 }) })
  .map(({ id, name, events }): Json => ({ ...validFair(), id, slug: `fair-${id}`, name, events }));

const texture = fc.record({ id: fc.constantFrom(...TEXTURE_IDS), name }).map(
  ({ id, name }): Json => ({
    id,
    name,
    texture: 'https://media.example.com/textures/x.jpg',
    categories: ['0c33de5e-721a-4c87-8ab3-6763ab932548'],
  }),
);

const RECORDS: Record<Resource, fc.Arbitrary<Json>> = {
  company,
  event,
  virtualfair: fair,
  'virtualbooth-texture': texture,
};

/** A record of `resource` that breaks its schema in one of a few ways, or a valid one. */
function recordOf(resource: Resource): fc.Arbitrary<Json> {
  return fc.oneof(
    { weight: 12, arbitrary: RECORDS[resource] },
    {
      weight: 1,
      arbitrary: RECORDS[resource].map((record) => {
        const { name: _left, ...rest } = record as { [key: string]: Json };
        return { ...rest, nmae: 'misspelt' };
      }),
    },
    { weight: 1, arbitrary: RECORDS[resource].map((record) => ({ ...(record as object), id: 'not an id' })) },
  );
}

/** A file's contents: one record, an array of records, or text that is not valid data. */
function contentsOf(resource: Resource): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.array(recordOf(resource), { minLength: 1, maxLength: 4 }).map(pretty) },
    { weight: 4, arbitrary: recordOf(resource).map(pretty) },
    { weight: 1, arbitrary: fc.constantFrom('{', '[{"id": 12,', '[1, 2]', '"text"', '{"id": 1, "id": 2}') },
  );
}

function pretty(value: Json): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

// ---------------------------------------------------------------------------------------------
// Steps, applied to the data folder; each returns the paths it changed, as the watcher names them.

const FILE_NAMES = ['a.json', 'main.json', 'zz.json', 'nested/b.json', 'nested/deep/c.json'];

/** What an edit sets in a record: the fields that move it in its lists or change what others show of it. */
const FIELD_EDITS: ReadonlyArray<[string, fc.Arbitrary<Json>]> = [
  ['name', name],
  ['logo', fc.constantFrom(null, '/media/events/expo.png', 'https://media.example.com/x.png')],
  ['start_date', fc.constantFrom('2024-05-01', '2018-03-06', '2031-09-16')],
  ['events', fc.array(fc.constantFrom(5, 9, 11), { maxLength: 2 })],
];

type Step =
  | { kind: 'write'; resource: Resource; name: string; contents: string }
  | { kind: 'edit'; pick: number; record: number; field: string; value: Json }
  | { kind: 'remove'; pick: number }
  | { kind: 'rename'; pick: number; name: string }
  | { kind: 'stray'; resource: Resource; name: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({
        resource: fc.constantFrom(...LIST_NAMES),
        name: fc.constantFrom(...FILE_NAMES),
      })
      .chain(({ resource, name }) =>
        contentsOf(resource).map((contents): Step => ({ kind: 'write', resource, name, contents })),
      ),
  },
  {
    weight: 8,
    arbitrary: fc
      .record({ pick: fc.nat(), record: fc.nat(), edit: fc.integer({ min: 0, max: FIELD_EDITS.length - 1 }) })
      .chain(({ pick, record, edit }) => {
        const [field, value] = FIELD_EDITS[edit] as [string, fc.Arbitrary<Json>];
        return value.map((set): Step => ({ kind: 'edit', pick, record, field, value: set }));
      }),
  },
  { weight: 2, arbitrary: fc.nat().map((pick): Step => ({ kind: 'remove', pick })) },
  {
    weight: 2,
    arbitrary: fc
      .record({ pick: fc.nat(), name: fc.constantFrom(...FILE_NAMES) })
      .map((fields): Step => ({ kind: 'rename', ...fields })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ resource: fc.constantFrom(...LIST_NAMES), name: fc.constantFrom('notes.txt', '.DS_Store') })
      .map((fields): Step => ({ kind: 'stray', ...fields })),
  },
);

/** The data files, as paths relative to the data folder, in path order. */
async function dataFiles(dataDir: string): Promise<string[]> {
  const tree = await readTree(dataDir);
  return [...tree.keys()].sort();
}

async function apply(dataDir: string, change: Step): Promise<{ paths: string[]; label: string }> {
  const at = (relative: string) => path.join(dataDir, relative);
  switch (change.kind) {
    case 'write':
    case 'stray': {
      const relative = `${change.resource}/${change.name}`;
      await mkdir(path.dirname(at(relative)), { recursive: true });
      await writeFile(at(relative), change.kind === 'write' ? change.contents : 'not data\n');
      const what = change.kind === 'write' ? change.contents.slice(0, 60).replaceAll('\n', ' ') : 'a stray file';
      return { paths: [at(relative)], label: `write ${relative}: ${what}` };
    }
    case 'edit': {
      // A field of a record, set in place as an editor saves it; a file that is not valid JSON is left alone.
      const files = (await dataFiles(dataDir)).filter((file) => file.endsWith('.json'));
      if (files.length === 0) return { paths: [], label: 'edit: nothing to edit' };
      const relative = files[change.pick % files.length] as string;
      let value: Json;
      try {
        value = JSON.parse(await readFile(at(relative), 'utf8')) as Json;
      } catch {
        return { paths: [], label: `edit ${relative}: not JSON, left alone` };
      }
      const records = Array.isArray(value) ? value : [value];
      const target = records[change.record % Math.max(1, records.length)];
      if (target === null || typeof target !== 'object' || Array.isArray(target) || !(change.field in target)) {
        return { paths: [], label: `edit ${relative}: no ${change.field} to set` };
      }
      target[change.field] = change.value;
      await writeFile(at(relative), pretty(value));
      return { paths: [at(relative)], label: `edit ${relative}: ${change.field} = ${JSON.stringify(change.value)}` };
    }
    case 'remove': {
      const files = await dataFiles(dataDir);
      if (files.length === 0) return { paths: [], label: 'remove: nothing to remove' };
      const relative = files[change.pick % files.length] as string;
      await rm(at(relative));
      return { paths: [at(relative)], label: `remove ${relative}` };
    }
    case 'rename': {
      const files = await dataFiles(dataDir);
      if (files.length === 0) return { paths: [], label: 'rename: nothing to rename' };
      const relative = files[change.pick % files.length] as string;
      const target = `${relative.split('/')[0]}/${change.name}`;
      await mkdir(path.dirname(at(target)), { recursive: true });
      await rename(at(relative), at(target));
      return { paths: [at(relative), at(target)], label: `rename ${relative} → ${target}` };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The comparison.

/** The first difference between two folders, or undefined when they hold the same files and bytes. */
async function difference(actual: string, expected: string): Promise<string | undefined> {
  const [got, want] = [await readTree(actual), await readTree(expected)];
  const [gotFiles, wantFiles] = [[...got.keys()].join('\n'), [...want.keys()].join('\n')];
  if (gotFiles !== wantFiles) return `the file lists differ:\n${gotFiles}\n--- expected:\n${wantFiles}`;
  for (const [file, bytes] of want) {
    const other = got.get(file) as Buffer;
    if (!other.equals(bytes))
      return `${file} differs:\n${other.toString().slice(0, 400)}\n--- expected:\n${bytes.toString().slice(0, 400)}`;
  }
  return undefined;
}

async function problemLines(run: () => Promise<unknown>): Promise<string[] | undefined> {
  try {
    await run();
    return undefined;
  } catch (error) {
    if (!(error instanceof DataErrors)) throw error;
    return error.errors.map(formatDataError);
  }
}

/** How the steps ended, printed with FUZZ_VERBOSE=1 to see that both outcomes are reached. */
const outcomes = { published: 0, refused: 0 };

afterAll(() => {
  if (process.env.FUZZ_VERBOSE) console.log(`dev-live: ${outcomes.published} published, ${outcomes.refused} refused`);
});

describe('the live preview', () => {
  it(
    `${RUNS} sequences of changes: after each, the preview folder is a full build's, or the same problems with the last good output kept`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(step, { minLength: 1, maxLength: 8 }),
          fc.integer({ min: 1, max: 3 }),
          fc.boolean(),
          async (steps, pageSize, reference) => {
            const dir = await tempDir();
            const dataDir = path.join(dir, 'data');
            await mkdir(dataDir);
            for (const resource of LIST_NAMES) {
              await mkdir(path.join(dataDir, resource));
            }
            // The fixture, with companies enough for a list that gets precompressed siblings.
            for (const file of (await readTree(GOOD)).keys()) {
              await mkdir(path.dirname(path.join(dataDir, file)), { recursive: true });
              await writeFile(path.join(dataDir, file), await readFile(path.join(GOOD, file)));
            }
            const [first] = JSON.parse(await readFile(path.join(GOOD, 'company/companies.json'), 'utf8')) as Json[];
            const many = Array.from({ length: 30 }, (_, i) => ({
              ...(first as object),
              id: 100 + i,
              name: `Company ${i}`,
            }));
            await writeFile(path.join(dataDir, 'company/many.json'), pretty(many as Json));
            const options = {
              resources: API,
              dataDir,
              headersPath: SAMPLE_HEADERS,
              baseUrl: 'http://localhost:8000',
              pageSize,
              reference,
              targetsDir: path.join(dir, 'targets'),
              targets: [],
            } satisfies Omit<BuildOptions, 'outDir'>;
            const fullDir = path.join(dir, 'full');
            const liveDir = path.join(dir, 'live');
            await build({ ...options, outDir: fullDir });
            // The siblings are compared too: the company list is large enough to have them.
            expect([...(await readTree(fullDir)).keys()]).toContain('company/index.json.br');
            const live = await LiveBuild.open({ ...options, outDir: liveDir });
            await live.publish();
            const labels: string[] = [];
            for (const change of steps) {
              const { paths, label } = await apply(dataDir, change);
              labels.push(label);
              const context = `after: ${labels.join(' | ')}`;
              const expected = await problemLines(() => build({ ...options, outDir: fullDir }));
              const actual = await problemLines(async () => {
                await live.reload(paths);
                await live.publish();
              });
              expect(actual, context).toEqual(expected);
              if (expected === undefined) outcomes.published++;
              else outcomes.refused++;
              expect(await difference(liveDir, fullDir), context).toBeUndefined();
            }
          },
        ),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    },
    60_000 + RUNS * 5_000,
  );
});

/** A generated catalogue in a folder of its own, with the options a full build and the preview share. */
async function generatedCatalogue(counts: Parameters<typeof generate>[1], more: Partial<BuildOptions> = {}) {
  const dir = await tempDir();
  const dataDir = path.join(dir, 'data');
  generate(dataDir, counts);
  const options = {
    resources: API,
    dataDir,
    headersPath: SAMPLE_HEADERS,
    baseUrl: 'http://localhost:8000',
    pageSize: 10,
    targetsDir: path.join(dir, 'targets'),
    targets: [],
    ...more,
  } satisfies Omit<BuildOptions, 'outDir'>;
  return { dataDir, options, fullDir: path.join(dir, 'full'), liveDir: path.join(dir, 'live') };
}

describe('the live preview on a catalogue whose answers outgrow a write batch', () => {
  it("after an event edit and a texture removal, the preview folder is a full build's", async () => {
    // Event lists of about 100 KB each, more than one batch of writes holds.
    const { dataDir, options, fullDir, liveDir } = await generatedCatalogue({
      companies: 300,
      events: 500,
      fairs: 20,
      textures: 300,
    });
    const live = await LiveBuild.open({ ...options, outDir: liveDir });
    await live.publish();
    const eventFile = path.join(dataDir, 'event', (await readdir(path.join(dataDir, 'event'))).sort()[0] as string);
    const events = JSON.parse(await readFile(eventFile, 'utf8')) as Array<{ name: string }>;
    (events[0] as { name: string }).name = 'Renamed in the preview';
    await writeFile(eventFile, pretty(events as Json));
    await live.reload([eventFile]);
    const published = await live.publish();
    await build({ ...options, outDir: fullDir });
    expect((await readFile(path.join(fullDir, 'event/index.json'))).length).toBeGreaterThan(64 * 1024);
    expect(published.changedFiles).toBeGreaterThanOrEqual(15);
    expect(await difference(liveDir, fullDir)).toBeUndefined();
    // One texture fewer: every page's count changes, hundreds of small answers.
    const textureFile = (await readdir(path.join(dataDir, 'virtualbooth-texture'), { recursive: true }))
      .filter((file) => file.endsWith('.json'))
      .sort()[0] as string;
    const textures = JSON.parse(
      await readFile(path.join(dataDir, 'virtualbooth-texture', textureFile), 'utf8'),
    ) as Json[];
    await writeFile(path.join(dataDir, 'virtualbooth-texture', textureFile), pretty(textures.slice(1)));
    await live.reload([path.join(dataDir, 'virtualbooth-texture', textureFile)]);
    await live.publish();
    await build({ ...options, outDir: fullDir });
    expect(await difference(liveDir, fullDir)).toBeUndefined();
  }, 60_000);
});

describe('the live preview with filters, search and orderings set', () => {
  it("after a company's country and a texture's name change, the preview folder is a full build's, filter files included", async () => {
    const { dataDir, options, fullDir, liveDir } = await generatedCatalogue(
      { companies: 200, events: 20, fairs: 5, textures: 40 },
      {
        resourceSettings: {
          company: {
            filterset_fields: ['country_name', 'city'],
            search_fields: ['name'],
            ordering_fields: ['city'],
            prerendered_filters: ['country_name'],
          },
          'virtualbooth-texture': { filterset_fields: ['name'], prerendered_filters: ['name'] },
        },
      },
    );
    const live = await LiveBuild.open({ ...options, outDir: liveDir });
    await live.publish();
    const edit = async (resource: string, change: (record: Record<string, Json>) => void) => {
      const files = (await readdir(path.join(dataDir, resource), { recursive: true }))
        .filter((file) => file.endsWith('.json'))
        .sort();
      const file = path.join(dataDir, resource, files[0] as string);
      const records = JSON.parse(await readFile(file, 'utf8')) as Record<string, Json>[];
      change(records[0] as Record<string, Json>);
      await writeFile(file, pretty(records as Json));
      await live.reload([file]);
      await live.publish();
      await build({ ...options, outDir: fullDir });
    };
    // A value no record held: a filter folder of its own appears, and the old value's may go.
    await edit('company', (record) => {
      record.country_name = 'Ruritania';
    });
    const filterFiles = [...(await readTree(fullDir)).keys()].filter((file) => file.startsWith('company/_filters/'));
    expect(filterFiles.some((file) => file.includes('_52uritania'))).toBe(true);
    expect(await difference(liveDir, fullDir)).toBeUndefined();
    await edit('virtualbooth-texture', (record) => {
      record.name = 'Renamed in the preview';
    });
    expect(await difference(liveDir, fullDir)).toBeUndefined();
  }, 120_000);
});
