// npm run import against a stand-in DRF service (helpers/stand-in-service.ts) on 127.0.0.1:
// what a real service can send, each case with its outcome. An import either reproduces every
// answer byte for byte (checked here by a real build of what it wrote, not by its own word), or
// refuses with one line naming the URL and writes nothing. The stand-in serves the trade-fair
// catalogue's four lists, so the import here is of the catalogue's declarations whatever SAMPLE_API
// says.

import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { readCatalogue } from '../../scripts/builder/pipeline/catalogue.ts';
import { DataErrors, formatDataError } from '../../scripts/builder/pipeline/errors.ts';
import { settingsFileText } from '../../scripts/cli/settings-file.ts';
import { fileFor } from '../../scripts/contract/routes.ts';
import { DataFolderInUse, type ImportOptions, importService } from '../../scripts/migrate/import.ts';
import { ImportError } from '../../scripts/migrate/read-service.ts';
import { CATALOGUE as API, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { importUrls } from './helpers/import-urls.ts';
import { validCompany, validFair } from './helpers/records.ts';
import {
  type ServiceLists,
  type StandInOptions,
  type StandInService,
  startStandInService,
} from './helpers/stand-in-service.ts';

// ---------------------------------------------------------------------------------------------
// A small catalogue as the service shows it, in the service's orders.

const uuid = (n: number) => `${n.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

// A company with an address and tags, as most are.
const company = (id: number, name: string) => ({
  ...validCompany(),
  id,
  name,
  street: 'Werkstraße 1',
  zip_code: '42853',
  city: 'Remscheid',
  website: null,
  tags: 'Welding,Cutting',
});

interface EventShown {
  id: number;
  name: string;
  slug: string;
  start_date: string;
  end_date: string;
  logo: string | null;
  logo_bg_color: string | null;
}

const event = (id: number, name: string, start: string): EventShown => ({
  id,
  name,
  slug: `${name.toLowerCase().replace(/\W+/g, '-')}-${start.slice(0, 4)}`,
  start_date: start,
  end_date: start,
  logo: `/media/events/${id}.png`,
  logo_bg_color: '#2a9d8f',
});

/** What a fair shows of an event: the event's own values unless `shown` says otherwise. */
const fairEvent = (ev: EventShown, shortCode: string | null, shown: Record<string, unknown> = {}) => ({
  id: ev.id,
  slug: ev.slug,
  name: ev.name,
  short_code: shortCode,
  start_date: ev.start_date,
  event_logo: ev.logo,
  ...shown,
});

// A refusal below quotes the end of its zoom: the translation factor, then xs_width_max 40.
const fair = (id: number, slug: string, events: unknown[], translation: number | null) => ({
  ...validFair(),
  id,
  slug,
  name: slug.replace(/-/g, ' '),
  events,
  zoom: { ...validFair().zoom, translation_factor_7: translation, xs_width_max: 40 },
});

const TEXTURE_NAMES = ['Beton', 'Cork', 'Oak Parquet', 'Oak Parquet', 'Slate', 'Terrazzo', 'Zürich Sandstone'];

const texture = (n: number, name: string) => ({
  id: uuid(n),
  name,
  texture: `https://media.example.com/textures/${n}.png`,
  categories: [uuid(1000 + (n % 2))],
});

const EVENTS = [
  event(101, 'Welding Week', '2024-09-16'),
  event(105, 'Targi Łódzkie', '2018-04-17'),
  event(122, 'Hydraulik', '2018-03-06'),
];
const [WELD, TARGI, HYDRAULIK] = EVENTS as [EventShown, EventShown, EventShown];

/** Every fair shows each event as /event/ does: the plain case. */
function plainCatalogue(): ServiceLists {
  return {
    // Case-insensitive order of name, as the service lists them.
    companies: [company(7, 'acme Tools'), company(3, 'Borealis'), company(12, 'Zeta Werkzeuge')],
    fairs: [
      fair(23, 'virtual-metaltech', [fairEvent(WELD, 'WELD'), fairEvent(HYDRAULIK, 'HYKO')], 2),
      fair(7, 'blechforum-online', [fairEvent(TARGI, 'TLDZ')], 4.5),
    ],
    events: EVENTS,
    textures: TEXTURE_NAMES.map((name, i) => texture(i + 1, name)),
  };
}

// ---------------------------------------------------------------------------------------------

let dir: string;
const services: StandInService[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'import-test-'));
});

afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
  await rm(dir, { recursive: true, force: true });
});

async function serve(lists: ServiceLists, options: StandInOptions = {}): Promise<StandInService> {
  const service = await startStandInService(lists, options);
  services.push(service);
  return service;
}

const paths = () => ({ dataDir: path.join(dir, 'data'), configPath: path.join(dir, 'static-api.config.json') });

/** An import with short timeouts, so that the fault cases take a second, not a minute. */
function runImport(service: StandInService, options: Partial<ImportOptions> = {}) {
  const lines: string[] = [];
  const done = importService({
    resources: API,
    from: service.url,
    ...paths(),
    force: false,
    settingsText: settingsFileText,
    client: { timeoutMs: 400, retries: 2, retryDelayMs: 10 },
    log: (line) => lines.push(line),
    ...options,
  });
  return { done, lines };
}

/**
 * Builds what the import wrote, with the settings file it wrote and no flags, and checks each
 * answer against the service's bytes.
 */
async function expectBuildReproduces(service: StandInService, pages: number): Promise<void> {
  const { dataDir, configPath } = paths();
  const settings = JSON.parse(await readFile(configPath, 'utf8')) as { baseUrl: string; pageSize: number };
  const out = path.join(dir, 'out');
  await build({
    resources: API,
    dataDir,
    outDir: path.join(out, 'public'),
    targetsDir: path.join(out, 'targets'),
    targets: [],
    headersPath: SAMPLE_HEADERS,
    ...settings,
  });
  // The requests that the build answers with one file each, as the service was asked them.
  for (const url of importUrls(pages, API)) {
    const [pathPart, query] = url.split('?');
    const file = fileFor(`/${pathPart}`, Object.fromEntries(new URLSearchParams(query)));
    const built = await readFile(path.join(out, 'public', file));
    expect(built.toString('utf8'), url).toBe(service.answer(url).toString('utf8'));
  }
  // One page more than the service has is not a page the build makes either.
  await expect(readFile(path.join(out, 'public', `virtualbooth-texture/page=${pages + 1}.json`))).rejects.toThrow();
}

/** Nothing of the import is left in the project folder: no data/, no settings file, no staging folder. */
async function expectNothingWritten(): Promise<void> {
  expect(await readdir(dir)).toEqual([]);
}

describe('an import that reproduces the service', () => {
  it('reads a service under a path prefix with a page size of 3, through a 503, a closed connection and a timeout', async () => {
    const service = await serve(plainCatalogue(), {
      prefix: '/api/v1/',
      pageSize: 3,
      faults: {
        'virtualbooth-texture/?page=2': [{ status: 503 }],
        'event/': ['hang'],
        'company/': ['reset'],
      },
    });
    const { done, lines } = runImport(service);
    const result = await done;
    expect(result).toMatchObject({ baseUrl: `${service.origin}/api/v1`, pageSize: 3, problems: [] });
    // Each faulty request was asked again, and answered.
    for (const target of ['virtualbooth-texture/?page=2', 'event/', 'company/']) {
      expect(service.requests.filter((request) => request === target)).toHaveLength(2);
    }
    expect(await readFile(paths().configPath, 'utf8')).toBe(
      `${JSON.stringify({ baseUrl: `${service.origin}/api/v1`, pageSize: 3 }, null, 2)}\n`,
    );
    expect(lines.join('\n')).toMatch(/npm run build answers 6 requests with the service's bytes/);
    await expectBuildReproduces(service, 3);
  });

  it("writes the sample's layout: one file a list of at most 1,000, by id but for the fairs in the service's order", async () => {
    const service = await serve(plainCatalogue(), { pageSize: 3 });
    await runImport(service).done;
    const { dataDir } = paths();
    expect((await readdir(dataDir, { recursive: true })).sort()).toEqual([
      'company',
      'company/companies.json',
      'event',
      'event/events.json',
      'virtualbooth-texture',
      'virtualbooth-texture/textures.json',
      'virtualfair',
      'virtualfair/fairs.json',
    ]);
    const companies = JSON.parse(await readFile(path.join(dataDir, 'company/companies.json'), 'utf8'));
    expect(companies.map((record: { id: number }) => record.id)).toEqual([3, 7, 12]);
    const fairsText = await readFile(path.join(dataDir, 'virtualfair/fairs.json'), 'utf8');
    // A Python float keeps its `.0`, as in the sample, and each fair lists its events by id.
    expect(fairsText).toContain('"translation_factor_7": 2.0,');
    expect(fairsText).toContain('"translation_factor_7": 4.5,');
    expect(JSON.parse(fairsText).map((record: { id: number; events: unknown }) => [record.id, record.events])).toEqual([
      [23, [101, 122]],
      [7, [105]],
    ]);
    const events = JSON.parse(await readFile(path.join(dataDir, 'event/events.json'), 'utf8'));
    expect(events[0]).toEqual({ ...WELD, short_code: 'WELD' });
    expect(Object.keys(events[0])).toEqual([
      'id',
      'name',
      'slug',
      'short_code',
      'start_date',
      'end_date',
      'logo',
      'logo_bg_color',
    ]);
    // The textures by id, whatever their pages' order.
    const textures = plainCatalogue().textures.map((_, i) => texture(i + 1, TEXTURE_NAMES[i] as string));
    expect(await readFile(path.join(dataDir, 'virtualbooth-texture/textures.json'), 'utf8')).toBe(
      `${JSON.stringify(textures, null, 2)}\n`,
    );
  });

  it('keeps what a fair shows differently: its own name and logo of an event, another short_code, an event /event/ does not list', async () => {
    const unlisted = event(640, 'Closed Fair', '2015-05-05');
    const lists = plainCatalogue();
    lists.fairs = [
      fair(23, 'virtual-metaltech', [fairEvent(WELD, 'WELD'), fairEvent(HYDRAULIK, 'HYKO')], 2),
      fair(
        7,
        'blechforum-online',
        [
          fairEvent(TARGI, 'TLDZ'),
          fairEvent(WELD, 'WW24', { name: 'Welding Week (Blechforum)', event_logo: '/media/events/blech-101.png' }),
        ],
        4.5,
      ),
      fair(9, 'third-fair', [fairEvent(WELD, 'WELD'), fairEvent(unlisted, null)], null),
    ];
    const service = await serve(lists, { pageSize: 3 });
    await runImport(service).done;
    const dataDir = paths().dataDir;
    const fairs = JSON.parse(await readFile(path.join(dataDir, 'virtualfair/fairs.json'), 'utf8'));
    expect(fairs.map((record: { events: unknown }) => record.events)).toEqual([
      [101, 122],
      [
        105,
        { id: 101, name: 'Welding Week (Blechforum)', short_code: 'WW24', event_logo: '/media/events/blech-101.png' },
      ],
      [
        101,
        {
          id: 640,
          slug: unlisted.slug,
          name: unlisted.name,
          short_code: null,
          start_date: unlisted.start_date,
          event_logo: unlisted.logo,
        },
      ],
    ]);
    const events = JSON.parse(await readFile(path.join(dataDir, 'event/events.json'), 'utf8'));
    // WELD is shown so by two fairs of three; 640 has no record, as /event/ does not list it.
    expect(events.map((record: { id: number; short_code: unknown }) => [record.id, record.short_code])).toEqual([
      [101, 'WELD'],
      [105, 'TLDZ'],
      [122, 'HYKO'],
    ]);
    await expectBuildReproduces(service, 3);
  });

  it('on a tie of short_codes takes the first fair’s, and null for an event no fair shows', async () => {
    const lists = plainCatalogue();
    lists.fairs = [fair(1, 'first', [fairEvent(TARGI, 'T-ONE')], 2), fair(2, 'second', [fairEvent(TARGI, 'T-TWO')], 2)];
    const service = await serve(lists);
    await runImport(service).done;
    const events = JSON.parse(await readFile(path.join(paths().dataDir, 'event/events.json'), 'utf8'));
    expect(events.map((record: { id: number; short_code: unknown }) => [record.id, record.short_code])).toEqual([
      [101, null],
      [105, 'T-ONE'],
      [122, null],
    ]);
    await expectBuildReproduces(service, 1);
  });

  it('records the page size as the count when every texture fits on one page of more than 10', async () => {
    const lists = plainCatalogue();
    lists.textures = Array.from({ length: 12 }, (_, i) => texture(i + 1, `Texture ${String(i + 1).padStart(2, '0')}`));
    const service = await serve(lists, { pageSize: 50 });
    const { done, lines } = runImport(service);
    expect(await done).toMatchObject({ pageSize: 12 });
    expect(lines.join('\n')).toContain("the service's page size is at least 12");
    await expectBuildReproduces(service, 1);
  });

  it('keeps the default page size when the few textures fit on one page, and reads an empty list', async () => {
    const lists = plainCatalogue();
    lists.textures = [];
    const service = await serve(lists, { pageSize: 25 });
    expect(await runImport(service).done).toMatchObject({ pageSize: 10 });
    await expectBuildReproduces(service, 1);
  });

  it('replaces a data folder that holds files only with force', async () => {
    const { dataDir } = paths();
    await mkdir(dataDir);
    await writeFile(path.join(dataDir, 'notes.txt'), 'mine');
    const service = await serve(plainCatalogue());
    const refused = runImport(service).done;
    await expect(refused).rejects.toThrow(DataFolderInUse);
    await expect(refused).rejects.toThrow(/data\/ already holds 1 entry \(notes\.txt\): pass --force/);
    // Refused before asking the service anything.
    expect(service.requests).toEqual([]);
    expect(await readdir(dataDir)).toEqual(['notes.txt']);

    await runImport(service, { force: true }).done;
    expect((await readdir(dataDir)).sort()).toEqual(['company', 'event', 'virtualbooth-texture', 'virtualfair']);
    expect((await readdir(dir)).sort()).toEqual(['data', 'static-api.config.json']);
  });
});

describe('a record that breaks a rule of the build', () => {
  it('is written as the service shows it and reported with its file, record and field', async () => {
    const lists = plainCatalogue();
    lists.events = EVENTS.map((shown) => (shown.id === 105 ? { ...shown, logo_bg_color: '#FFF' } : shown));
    const service = await serve(lists, { pageSize: 3 });
    const { done, lines } = runImport(service);
    const result = await done;
    expect(result.problems.map(formatDataError)).toEqual([
      `${path.join(paths().dataDir, 'event/events.json')}:20:22 #/1/logo_bg_color (record 1, id 105): expected a colour of the form #rrggbb, got "#FFF"`,
    ]);
    // Word for word what the build says of the folder written.
    const checked = readCatalogue(
      { resources: API, dataDir: paths().dataDir, headersPath: SAMPLE_HEADERS, pageSize: 3 },
      () => {},
    );
    await expect(checked).rejects.toThrow(DataErrors);
    const refused = (await checked.catch((error: DataErrors) => error)) as DataErrors;
    expect(refused.errors.map(formatDataError)).toEqual(result.problems.map(formatDataError));
    // The lists the broken record does not reach are still proven: companies and textures.
    expect(lines.join('\n')).toContain(
      "answers 4 requests with the service's bytes (not compared, for the problems below: virtualfair, event)",
    );
    const events = JSON.parse(await readFile(path.join(paths().dataDir, 'event/events.json'), 'utf8'));
    expect(events[1].logo_bg_color).toBe('#FFF');
    expect((await readdir(dir)).sort()).toEqual(['data', 'static-api.config.json']);
  });
});

describe('a refusal, with nothing written', () => {
  async function expectRefusal(service: StandInService, message: RegExp | string): Promise<void> {
    const done = runImport(service).done;
    await expect(done).rejects.toThrow(ImportError);
    await expect(done).rejects.toThrow(message);
    await expectNothingWritten();
  }

  it('when the service does not answer in time, even when asked again', async () => {
    const service = await serve(plainCatalogue(), { faults: { 'event/': ['hang', 'hang', 'hang'] } });
    await expectRefusal(service, `GET ${service.url}event/: no answer within 0.4 s (tried 3 times)`);
  });

  it('when the service answers 503 to every attempt', async () => {
    const service = await serve(plainCatalogue(), {
      faults: { 'virtualfair/': [{ status: 503 }, { status: 503 }, { status: 503 }] },
    });
    await expectRefusal(service, `${service.url}virtualfair/: the service answered 503 "Service Unavailable"`);
  });

  it('when the service redirects (here to https), which is not followed', async () => {
    const service = await serve(plainCatalogue(), {
      faults: { 'event/': [{ status: 301, body: '', headers: { Location: 'https://example.com/api/event/' } }] },
    });
    await expectRefusal(
      service,
      `${service.url}event/: the service answered 301, a redirect to https://example.com/api/event/, which the import does not follow: give --from the URL it leads to`,
    );
  });

  it('when a page is not JSON', async () => {
    const service = await serve(plainCatalogue(), {
      pageSize: 3,
      faults: { 'virtualbooth-texture/?page=2': [{ body: '{"count": 7, "next": ' }] },
    });
    await expectRefusal(service, `${service.url}virtualbooth-texture/?page=2: the answer is not valid JSON`);
  });

  it("when a page is not DRF's envelope", async () => {
    const service = await serve(plainCatalogue(), { faults: { 'virtualbooth-texture/': [{ body: '[]' }] } });
    await expectRefusal(service, /virtualbooth-texture\/: expected a page of DRF's pagination .*, got an array/);
  });

  it('when --from is not the API: an HTML page', async () => {
    const service = await serve(plainCatalogue(), {
      faults: { 'company/': [{ body: '<!doctype html>', contentType: 'text/html; charset=utf-8' }] },
    });
    await expectRefusal(
      service,
      /company\/: expected a JSON answer \(Content-Type application\/json\), got "text\/html/,
    );
  });

  it('when a next link leads to another origin, which is never asked', async () => {
    const elsewhere = await serve(plainCatalogue(), { pageSize: 3 });
    const service = await serve(plainCatalogue(), {
      pageSize: 3,
      edit: (target, body) =>
        target === 'virtualbooth-texture/?page=2'
          ? { ...(body as object), next: `${elsewhere.url}virtualbooth-texture/?page=3` }
          : body,
    });
    await expectRefusal(service, /page=2: its next link ".*" leads to http:\/\/127\.0\.0\.1:\d+, another origin than/);
    expect(elsewhere.requests).toEqual([]);
  });

  it('when the next links leave the path of --from (a proxy without FORCE_SCRIPT_NAME)', async () => {
    // The links name the origin's root, as Django behind a proxy that strips /api/ writes them.
    const service = await serve(plainCatalogue(), {
      prefix: '/api/',
      pageSize: 3,
      edit: (_target, body) => {
        const page = body as { next: string | null };
        return page.next ? { ...page, next: page.next.replace('/api/', '/') } : body;
      },
    });
    await expectRefusal(service, /its next link ".*" is not under \/api\/, the path of --from: .*FORCE_SCRIPT_NAME/);
  });

  it('when the count is more than the pages hold', async () => {
    const service = await serve(plainCatalogue(), {
      pageSize: 3,
      edit: (target, body) => (target.startsWith('virtualbooth-texture/') ? { ...(body as object), count: 8 } : body),
    });
    await expectRefusal(service, /page=3: holds 1 textures, expected 2 \(count 8, 3 a page\)/);
  });

  it('when the count is less than the only page holds', async () => {
    const service = await serve(plainCatalogue(), {
      edit: (target, body) => (target === 'virtualbooth-texture/' ? { ...(body as object), count: 6 } : body),
    });
    await expectRefusal(service, /count is 6, but the only page \(next is null\) holds 7 textures/);
  });

  it('when a texture is on two pages', async () => {
    const lists = plainCatalogue();
    const textures = lists.textures;
    const service = await serve(lists, {
      pageSize: 3,
      edit: (target, body) =>
        target === 'virtualbooth-texture/?page=2'
          ? { ...(body as object), results: [textures[2], ...textures.slice(4, 6)] }
          : body,
    });
    await expectRefusal(service, /page=2: texture "00000003-.*" is also on page 1: the pages show a texture twice/);
  });

  it('when the pages hold a field that the build does not write (a custom pagination)', async () => {
    const service = await serve(plainCatalogue(), {
      edit: (target, body) => (target === 'virtualbooth-texture/' ? { ...(body as object), total_pages: 1 } : body),
    });
    await expectRefusal(
      service,
      `${service.url}virtualbooth-texture/: npm run build would not answer the same bytes: the page holds the fields ` +
        'count, next, previous, results, total_pages, the build writes count, next, previous, results; nothing was written',
    );
  });

  it('when the service sorts companies otherwise than the contract (here case-sensitively)', async () => {
    const lists = plainCatalogue();
    lists.companies = [company(3, 'Borealis'), company(12, 'Zeta Werkzeuge'), company(7, 'acme Tools')];
    const service = await serve(lists);
    await expectRefusal(
      service,
      `${service.url}company/: npm run build would not answer the same bytes: record 0 is id 3 "Borealis" in the service, id 7 "acme Tools" in the build`,
    );
  });

  it('when the service writes a float as an integer', async () => {
    // Bytes DRF would not send, but a hand-written service might: `2` for a FloatField.
    const fairs = (await serve(plainCatalogue())).answer('virtualfair/').toString('utf8');
    const service = await serve(plainCatalogue(), {
      faults: { 'virtualfair/': [{ body: fairs.replace('"translation_factor_7":2.0', '"translation_factor_7":2') }] },
    });
    await expectRefusal(
      service,
      'virtualfair/: npm run build would not answer the same bytes: record 0 (id 23 "virtual metaltech") has the same ' +
        'values written otherwise: the service sends ...,"translation_factor_7":2,"xs_width_max":40},"show... ' +
        'where the build writes ...,"translation_factor_7":2.0,"xs_width_max":40},"sh... (character',
    );
  });
});
