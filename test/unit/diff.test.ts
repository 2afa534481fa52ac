// The diff engine (scripts/review/) on small catalogues: test/fixtures/diff/before/data, edited
// per case and built into temporary folders (page size 3, so 10 textures make 4 pages).

import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { movesBetween } from '../../scripts/review/answers.ts';
import { compareSides, type Report } from '../../scripts/review/compare.ts';
import { formatMarkdown } from '../../scripts/review/format-markdown.ts';
import { formatText } from '../../scripts/review/format-text.ts';
import { readSide, type Side, WORKING_TREE } from '../../scripts/review/side.ts';
import { CATALOGUE as API, SAMPLE_HEADERS } from '../fixtures/sample.ts';

const FIXTURES = path.resolve('test/fixtures/diff');
const scratch = await mkdtemp(path.join(os.tmpdir(), 'diff-test-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

let made = 0;
type Edit = (data: string) => Promise<void>;
interface BuildSettings {
  baseUrl?: string;
  pageSize?: number;
  headers?: string;
}

/** Builds `test/fixtures/diff/<from>/data` after `edit` into a folder of its own and reads it. */
async function side(edit: Edit = async () => {}, settings: BuildSettings = {}, from = 'before'): Promise<Side> {
  const folder = path.join(scratch, String(made++));
  await cp(path.join(FIXTURES, from, 'data'), path.join(folder, 'data'), { recursive: true });
  await edit(path.join(folder, 'data'));
  const headersPath = path.join(folder, '_headers');
  await writeFile(headersPath, (await readFile(SAMPLE_HEADERS, 'utf8')) + (settings.headers ?? ''));
  await build({
    resources: API,
    dataDir: path.join(folder, 'data'),
    headersPath,
    outDir: path.join(folder, 'public'),
    targetsDir: path.join(folder, 'targets'),
    targets: [],
    baseUrl: settings.baseUrl ?? 'https://api.example.com',
    pageSize: settings.pageSize ?? 3,
  });
  return readSide(path.join(folder, 'public'), folder);
}

const before = await side();

async function json<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}
async function put(file: string, value: unknown): Promise<void> {
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
}
type Rec = Record<string, unknown>;
/** An edit of one source file's records. */
function records(file: string, change: (list: Rec[]) => Rec[] | undefined): Edit {
  return async (data) => {
    const list = await json<Rec[]>(path.join(data, file));
    await put(path.join(data, file), change(list) ?? list);
  };
}
/** An edit of one field of one record of a source file. */
function field(file: string, index: number, key: string, value: unknown): Edit {
  return records(file, (list) => list.map((record, at) => (at === index ? { ...record, [key]: value } : record)));
}
const texture =
  (name: string, id: string, categories = ['0c33de5e-721a-4c87-8ab3-6763ab932548']): Edit =>
  async (data) =>
    put(path.join(data, 'virtualbooth-texture', `${name.toLowerCase()}.json`), {
      id,
      name,
      texture: `https://media.example.com/textures/${name.toLowerCase()}.png`,
      categories,
    });

async function diff(edit: Edit, settings?: BuildSettings): Promise<Report> {
  return compareSides(before, await side(edit, settings), API);
}
const resource = (report: Report, name: string) => report.resources.find((entry) => entry.resource === name);
const NO_ANSWERS = {
  appeared: [],
  vanished: [],
  reordered: [],
  pages: { shifts: [] },
  paginated: [],
  bodies: [],
  headers: [],
};
const SLATE = '00000009-0000-4000-8000-000000000000';

describe('records by resource', () => {
  it('company: added, removed and changed, each alone, nothing else', async () => {
    const added = await diff(
      records('company/companies.json', (list) => [...list, { ...list[1], id: 40, name: 'acme Tools Ltd 2' }]),
    );
    expect(resource(added, 'company')?.added.map((entry) => entry.id)).toEqual(['40']);
    expect(added.answers).toEqual(NO_ANSWERS);
    const removed = await diff(records('company/companies.json', (list) => list.slice(1)));
    expect(resource(removed, 'company')).toMatchObject({ removed: [{ id: '12' }], added: [], changed: [] });
    const changed = await diff(field('company/companies.json', 1, 'fax', '0123'));
    expect(resource(changed, 'company')?.changed).toEqual([
      { id: '7', name: 'acme Tools Ltd', fields: [{ path: 'fax', before: null, after: '0123' }] },
    ]);
    expect(changed.answers).toEqual(NO_ANSWERS);
    expect(changed.resources.filter((entry) => entry.changed.length > 0)).toHaveLength(1);
  });

  it('company: a long string is shown around the change, not whole', async () => {
    const long = `${'Welding & Cutting,'.repeat(12)}CAD/CAM Software`;
    const start = await side(field('company/companies.json', 0, 'tags', long));
    const end = await side(field('company/companies.json', 0, 'tags', long.replace('CAD/CAM', 'CAM')));
    const text = formatText(compareSides(start, end, API), false, API);
    expect(text).toContain('tags: "…ing,Welding & Cutting,CAD/CAM Software" → "…ing,Welding & Cutting,CAM Software"');
    expect(text).not.toContain(long);
  });

  it('virtualfair: added, removed, a nested field and an event taken off, by id', async () => {
    const fair = (list: Rec[]) => list[0] as Rec;
    const added = await diff(records('virtualfair/fairs.json', (list) => [...list, { ...fair(list), id: 4 }]));
    expect(resource(added, 'virtualfair')?.added.map((entry) => entry.id)).toEqual(['4']);
    const removed = await diff(records('virtualfair/fairs.json', () => []));
    expect(resource(removed, 'virtualfair')?.removed.map((entry) => entry.id)).toEqual(['3']);
    const changed = await diff(
      records('virtualfair/fairs.json', (list) => {
        fair(list).events = [9];
        (fair(list).tiles as Rec).tile_size = 512;
        return list;
      }),
    );
    const fields = resource(changed, 'virtualfair')?.changed[0]?.fields;
    expect(fields).toContainEqual({ path: 'tiles.tile_size', before: 256, after: 512 });
    expect(fields).toContainEqual(expect.objectContaining({ path: 'events[id=5]', before: expect.anything() }));
    expect(fields?.find((field) => field.path === 'events[id=5]')?.after).toBeUndefined();
  });

  it('event: added, removed, changed; a change reaches the fairs that list it', async () => {
    const added = await diff(records('event/events.json', (list) => [...list, { ...list[2], id: 20, slug: 'x' }]));
    expect(resource(added, 'event')?.added.map((entry) => entry.id)).toEqual(['20']);
    const removed = await diff(records('event/events.json', (list) => list.filter((event) => event.id !== 11)));
    expect(resource(removed, 'event')?.removed.map((entry) => entry.id)).toEqual(['11']);
    const changed = await diff(field('event/events.json', 0, 'start_date', '2024-05-01'));
    const change = { before: '2024-05-02', after: '2024-05-01' };
    expect(resource(changed, 'event')?.changed).toEqual([
      { id: '5', name: 'Expo', fields: [{ path: 'start_date', ...change }] },
    ]);
    expect(resource(changed, 'virtualfair')?.changed).toEqual([
      { id: '3', name: 'Virtual Expo', fields: [{ path: 'events[id=5].start_date', ...change }] },
    ]);
  });

  it('virtualbooth-texture: added, removed, and categories changed by value', async () => {
    const removed = await diff(async (data) => rm(path.join(data, 'virtualbooth-texture/walnut.json')));
    expect(resource(removed, 'virtualbooth-texture')?.removed.map((entry) => entry.id)).toEqual([
      '0000000a-0000-4000-8000-000000000000',
    ]);
    const changed = await diff(async (data) => {
      const file = path.join(data, 'virtualbooth-texture/slate.json');
      await put(file, { ...(await json<Rec>(file)), categories: ['dc06f438-7b43-4c22-9f44-5b398d7c672b'] });
    });
    expect(resource(changed, 'virtualbooth-texture')?.changed).toEqual([
      {
        id: SLATE,
        name: 'Slate',
        fields: [
          { path: 'categories[]', before: '0c33de5e-721a-4c87-8ab3-6763ab932548' },
          { path: 'categories[]', after: 'dc06f438-7b43-4c22-9f44-5b398d7c672b' },
        ],
      },
    ]);
    expect(changed.answers).toEqual(NO_ANSWERS);
  });
});

describe('answers', () => {
  it('an event renamed moves in the name orderings: said as moves, not as lists', async () => {
    const report = await diff(field('event/events.json', 0, 'name', 'Zoo Expo'));
    expect(report.answers.reordered).toEqual([
      { answer: '/event/?ordering=-name', moves: [{ id: '5', before: 3, after: 1 }] },
      { answer: '/event/?ordering=name', moves: [{ id: '5', before: 1, after: 3 }] },
    ]);
    expect(formatText(report, false, API)).toContain('/event/?ordering=name: 1 move: id 5 from 1 to 3');
  });

  it('a texture inserted in the middle: the later pages shift, in one line', async () => {
    const report = await diff(texture('Ceramic', '0000000b-0000-4000-8000-000000000000'));
    expect(resource(report, 'virtualbooth-texture')?.added.map((entry) => entry.id)).toEqual([
      '0000000b-0000-4000-8000-000000000000',
    ]);
    expect(report.answers.pages).toEqual({ count: { before: 10, after: 11 }, shifts: [{ from: 2, to: 4, by: 1 }] });
    expect(report.answers.reordered).toEqual([]);
    expect(formatText(report, false, API)).toContain('pages 2–4 shift by one texture');
  });

  it('a change of page count: the new pages appear, the vanished ones go', async () => {
    const more = await diff(async (data) => {
      for (const [index, name] of ['Zinc', 'Zircon', 'Zebrano'].entries()) {
        await texture(name, `0000000${'cde'[index]}-0000-4000-8000-000000000000`)(data);
      }
    });
    const pages = (format: string) => `/virtualbooth-texture/?${format}page=5`;
    expect(more.answers.appeared).toEqual([pages(''), pages('format=api&'), pages('format=json&')].sort());
    expect(more.answers.vanished).toEqual([]);
    expect(more.answers.pages.shifts).toEqual([]);
    expect(formatText(more, false, API)).toContain('+ /virtualbooth-texture/?format=api&page=5 appeared');
    const fewer = await diff(async (data) => rm(path.join(data, 'virtualbooth-texture/walnut.json')));
    expect(fewer.answers.vanished).toContain('/virtualbooth-texture/?page=4');
  });

  it('a base URL or page-size change: one line each, no record', async () => {
    const moved = await diff(async () => {}, { baseUrl: 'https://api.example.org' });
    expect(moved.resources.every((entry) => entry.changed.length === 0)).toBe(true);
    const text = formatText(moved, false, API);
    expect(text).toContain('every page link: base URL https://api.example.com → https://api.example.org');
    expect(text.trim().split('\n')).toHaveLength(4);
    const resized = await diff(async () => {}, { pageSize: 4 });
    expect(resized.answers.pages.pageSize).toEqual({ before: 3, after: 4 });
    expect(resized.answers.pages.shifts).toEqual([]);
    expect(formatText(resized, false, API)).toContain('page size 3 → 4: every texture page is cut anew');
  });

  it('_headers: a change by route pattern and header name', async () => {
    const report = await diff(async () => {}, { headers: '  Cache-Control: max-age=60\n' });
    expect(report.answers.headers).toEqual([{ pattern: '/*', name: 'Cache-Control', after: 'max-age=60' }]);
    expect(formatText(report, false, API)).toContain('+ _headers /* Cache-Control: max-age=60');
  });

  it('OPTIONS and error bodies: by route and field', async () => {
    const files = new Map(before.files);
    files.set('_options/company.json', Buffer.from('{"name":"Companies","description":"","renders":[],"parses":[]}'));
    files.set('_errors/405/POST.json', Buffer.from('{"detail":"No."}'));
    const report = compareSides(before, { label: 'edited', files }, API);
    expect(report.answers.bodies.map((body) => body.answer)).toEqual(['405 POST', 'OPTIONS /company/']);
    const text = formatText(report, false, API);
    expect(text).toContain('name: "Company List" → "Companies"');
    expect(text).toContain('detail: "Method \\"POST\\" not allowed." → "No."');
  });

  it('identical sides: no change, nothing reported', async () => {
    const report = compareSides(before, await side(), API);
    expect(report.identical).toBe(true);
    expect(formatText(report, false, API)).toMatch(/^No change in the API between /);
  });

  it('the after fixture: every kind of change at once, in the three formats', async () => {
    const report = compareSides(before, await side(undefined, {}, 'after'), API);
    const text = formatText(report, false, API);
    for (const expected of [
      '+ id 30 "Borealis Metall AS"',
      'events[id=9].start_date: "2018-03-06" → "2018-03-05"',
      'pages 2–4 shift by one texture',
      '/event/?ordering=name: 1 move: id 9 from 2 to 3',
    ]) {
      expect(text).toContain(expected);
    }
    const markdown = formatMarkdown(report, API);
    expect(markdown).toContain('| company | 1 added, 2 changed |');
    expect(markdown).toContain('<details><summary><b>event</b>: 1 changed</summary>');
    expect(markdown).not.toContain('left out');
  });
});

describe('moves', () => {
  it('the fewest moves, and among as few the records that changed', () => {
    expect(movesBetween(['a', 'b', 'c'], ['b', 'a', 'c'], new Set(['a']))).toEqual([{ id: 'a', before: 1, after: 2 }]);
    expect(movesBetween(['a', 'b', 'c'], ['b', 'a', 'c'], new Set(['b']))).toEqual([{ id: 'b', before: 2, after: 1 }]);
    expect(movesBetween(['a', 'b', 'c', 'd'], ['d', 'x', 'a', 'b'])).toEqual([{ id: 'd', before: 4, after: 1 }]);
  });

  // No clock here: a quadratic search over 100,000 ids would outlast the test's timeout, and the
  // speed of the diff is judged by npm run bench against reading both trees.
  it('a long list with one record moved: one move', () => {
    const before = Array.from({ length: 100_000 }, (_, index) => String(index));
    const after = [...before.slice(0, 10), ...before.slice(11, 90_000), '10', ...before.slice(90_000)];
    expect(movesBetween(before, after)).toEqual([{ id: '10', before: 11, after: 89_999 + 1 }]);
  });
});

describe('settings', () => {
  it('a changed setting is shown whole, however long: the settings are short and each word counts', () => {
    const resources = {
      company: { filterset_fields: ['city', 'country_name'], search_fields: ['name', '^city'] },
      virtualfair: { filterset_fields: ['slug'], ordering_fields: ['name', 'start_date'] },
    };
    const report = compareSides(
      { ...before, settings: { pageSize: 3 } },
      { ...before, label: 'edited', settings: { pageSize: 3, resources } },
      API,
    );
    const whole = `+ resources: ${JSON.stringify(resources)}`;
    expect(whole.length).toBeGreaterThan(150);
    expect(formatText(report, false, API)).toContain(`  ${whole}\n`);
    expect(formatMarkdown(report, API)).toContain(`${whole}\n`);
  });
});

describe('markdown', () => {
  it('names a revision as code and the working tree in words', () => {
    const report = compareSides({ ...before, label: 'HEAD' }, { ...before, label: WORKING_TREE }, API);
    expect(formatMarkdown(report, API)).toContain(`### API changes from \`HEAD\` to ${WORKING_TREE}\n`);
  });

  it('stays under the limit and says how much was left out', async () => {
    const report = await diff(
      records('company/companies.json', (list) =>
        Array.from({ length: 400 }, (_, index) => ({ ...list[1], id: 1000 + index, name: `Company ${index}` })),
      ),
    );
    const markdown = formatMarkdown(report, API, 5000);
    expect(markdown.length).toBeLessThan(5000);
    const last = markdown.trim().split('\n').at(-1);
    expect(last).toMatch(/^_\d[\d,]* more lines \([\d,]+ characters\) were left out/);
    expect(markdown.match(/<details>/g)?.length).toBe(markdown.match(/<\/details>/g)?.length);
    expect(markdown.match(/```/g)?.length ?? 0).toBeGreaterThan(0);
    expect((markdown.match(/```/g)?.length ?? 0) % 2).toBe(0);
  });
});
