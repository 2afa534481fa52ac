// scripts/cli/run-build.ts (build()) and the CLI scripts/cli/build-command.ts, end to end on files:
// (a) the build is deterministic on the sample project (test/fixtures/sample/);
// (b) every kind of bad input in test/fixtures/broken/<case>/ is reported with exactly the lines
// of its expected.txt (all of them), and the previous output is left byte for byte as it was;
// (c) the CLI: exit status, error lines on stderr, output intact, --check writes nothing;
// plus the output of the tiny good fixture, checked against literal bodies.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BuildOptions, build } from '../../scripts/builder/build.ts';
import { readCatalogue } from '../../scripts/builder/pipeline/catalogue.ts';
import { DataErrors, formatDataError } from '../../scripts/builder/pipeline/errors.ts';
import { render } from '../../scripts/builder/pipeline/render.ts';
import { DEFAULTS } from '../../scripts/cli/settings.ts';
import { bytesOf } from '../../scripts/shared/file-body.ts';
import { API, SAMPLE_DATA, SAMPLE_DIR, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { cleanEnv, commandLine } from '../unit/helpers/cli.ts';
import { readTree, readTreeText, tempDirs } from '../unit/helpers/tree.ts';

const ROOT = process.cwd();
const GOOD = 'test/fixtures/good/data';
const BROKEN = path.join(ROOT, 'test/fixtures/broken');
const tempDir = tempDirs('build-test-');

/** The default settings, except the output folders: tests never write into the project. */
const options = (overrides: Partial<BuildOptions> & Pick<BuildOptions, 'outDir' | 'targetsDir'>): BuildOptions => ({
  resources: API,
  dataDir: SAMPLE_DATA,
  headersPath: SAMPLE_HEADERS,
  baseUrl: DEFAULTS.baseUrl,
  pageSize: DEFAULTS.pageSize,
  ...overrides,
});

/** What the build renders of `dataDir` with the default settings, without writing it. */
async function renderFiles(dataDir: string, allowEmpty = false) {
  const settings = {
    resources: API,
    dataDir,
    allowEmpty,
    headersPath: SAMPLE_HEADERS,
    baseUrl: DEFAULTS.baseUrl,
    pageSize: DEFAULTS.pageSize,
  };
  const { catalogue, routes, headersText } = await readCatalogue(settings, () => {});
  const rendered = render(catalogue, routes, headersText, settings, API);
  const files = new Map([...rendered].map(([file, body]) => [file, bytesOf(body).toString('utf8')]));
  return { routes, files };
}

/** Temp folders for a build: `<parent>/public` and `<parent>/hosts`. */
async function outputs(): Promise<{ parent: string; out: string; hosts: string }> {
  const parent = await tempDir();
  return { parent, out: path.join(parent, 'public'), hosts: path.join(parent, 'hosts') };
}

/** A temp parent folder holding a good build of the small fixture in `public/` and `targets/`. */
async function goodOutput(): Promise<{ parent: string; out: string; hosts: string }> {
  const folders = await outputs();
  await build(options({ dataDir: GOOD, outDir: folders.out, targetsDir: folders.hosts, pageSize: 1 }));
  return folders;
}

function expectSameTree(actual: Map<string, Buffer>, expected: Map<string, Buffer>, message: string): void {
  expect([...actual.keys()].sort(), message).toEqual([...expected.keys()].sort());
  for (const [file, bytes] of expected) {
    expect(actual.get(file)?.equals(bytes), `${file}: ${message}`).toBe(true);
  }
}

describe('(a) determinism', () => {
  it('builds the sample to the same bytes twice', async () => {
    const [one, two] = [await outputs(), await outputs()];
    await build(options({ outDir: one.out, targetsDir: one.hosts }));
    await build(options({ outDir: two.out, targetsDir: two.hosts }));
    const first = await readTree(one.parent);
    expect(first.size).toBeGreaterThan(40);
    expectSameTree(await readTree(two.parent), first, 'two builds of the same data differ');
  });
});

const CASES = [
  'bad-date',
  'bad-headers-file',
  'bad-url',
  'bad-uuid',
  'duplicate-id',
  'end-before-start',
  'fair-event-without-logo',
  'malformed-json',
  'missing-field',
  'misspelt-field',
  'several-errors-in-several-files',
  'stray-file',
  'unknown-fair-event',
  'unknown-field',
];

/** The case's expected lines: paths are relative to the case folder. */
const expectedLines = (name: string) =>
  readFileSync(path.join(BROKEN, name, 'expected.txt'), 'utf8')
    .split('\n')
    .filter((line) => line !== '');

const headersOf = (name: string) =>
  existsSync(path.join(BROKEN, name, '_headers')) ? path.join(BROKEN, name, '_headers') : SAMPLE_HEADERS;

describe('(b) bad input', () => {
  it('has one fixture folder per kind of error, each with an expected.txt', () => {
    expect(readdirSync(BROKEN).sort()).toEqual(CASES);
    for (const name of CASES) expect(expectedLines(name).length, `${name}/expected.txt`).toBeGreaterThan(0);
  });

  it.each(CASES)('%s: reports every problem and leaves the previous output', async (name) => {
    const caseDir = path.join(BROKEN, name);
    const { parent, out, hosts } = await goodOutput();
    const before = await readTree(parent);

    const failing = build(
      options({
        dataDir: path.join(caseDir, 'data'),
        outDir: out,
        targetsDir: hosts,
        headersPath: headersOf(name),
        pageSize: 1,
      }),
    );
    await expect(failing).rejects.toBeInstanceOf(DataErrors);
    const error = (await failing.catch((e: unknown) => e)) as DataErrors;
    const lines = error.errors.map(formatDataError).map((line) => line.replaceAll(`${caseDir}/`, ''));
    const expected = expectedLines(name);
    expect(lines).toEqual(expected);
    expect(error.message).toBe(`${expected.length} problem${expected.length === 1 ? '' : 's'} in the source data`);

    expectSameTree(await readTree(parent), before, 'a failed build changed the previous output');
    expect((await readdir(parent)).sort()).toEqual(['hosts', 'public']);
  });

  it('reports the same problems in check mode and writes nothing', async () => {
    const { parent, out, hosts } = await outputs();
    const caseDir = path.join(BROKEN, 'several-errors-in-several-files');
    const failing = build(
      options({ dataDir: path.join(caseDir, 'data'), outDir: out, targetsDir: hosts, check: true }),
    );
    await expect(failing).rejects.toBeInstanceOf(DataErrors);
    const error = (await failing.catch((e: unknown) => e)) as DataErrors;
    expect(error.errors.map(formatDataError).map((line) => line.replaceAll(`${caseDir}/`, ''))).toEqual(
      expectedLines('several-errors-in-several-files'),
    );
    expect(await readdir(parent)).toEqual([]);
  });

  // A mistyped --data must not "succeed" and replace the output with empty lists.
  it('fails on a data folder that does not exist and leaves the previous output', async () => {
    const { parent, out, hosts } = await goodOutput();
    const before = await readTree(parent);
    const built = build(options({ dataDir: path.join(parent, 'no-such-data'), outDir: out, targetsDir: hosts })).then(
      () => 'built an empty catalogue',
    );
    await expect(built).rejects.toBeInstanceOf(DataErrors);
    expectSameTree(await readTree(parent), before, 'a build of a missing data folder replaced the output');
  });
});

/** Runs the CLI without the settings' environment variables; stderr as lines. */
function cli(args: string[], cwd = SAMPLE_DIR) {
  const result = spawnSync(process.execPath, commandLine('build', args), { cwd, encoding: 'utf8', env: cleanEnv() });
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr.split('\n').filter((line, i, all) => i < all.length - 1 || line !== ''),
  };
}

/** A copy of the project's scripts (and package.json, node_modules linked) in a temp folder named `name`. */
async function projectCopy(name: string): Promise<string> {
  const copy = path.join(await tempDir(), name);
  cpSync(path.join(ROOT, 'scripts'), path.join(copy, 'scripts'), { recursive: true });
  cpSync(path.join(ROOT, 'package.json'), path.join(copy, 'package.json'));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  return copy;
}

describe('(c) the CLI', () => {
  it('exits with status 1, prints every problem and leaves the output', async () => {
    const { parent, out, hosts } = await goodOutput();
    const before = await readTree(parent);
    const caseDir = path.join(BROKEN, 'several-errors-in-several-files');
    const expected = expectedLines('several-errors-in-several-files');

    const { status, stdout, stderr } = cli([
      '--data',
      path.join(caseDir, 'data'),
      '--out',
      out,
      '--targets-dir',
      hosts,
      '--schemas-dir',
      path.join(out, '..', 'schemas'),
      '--base-url',
      'https://api.example.com',
    ]);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr[0]).toMatch(/^load: 8 records from 6 files, \d+ bytes \(\d+ ms\)$/);
    expect(stderr.slice(1).map((line) => line.replaceAll(`${caseDir}/`, ''))).toEqual([
      ...expected,
      '',
      `${expected.length} problems in the source data; ${out}/ was left as it was.`,
    ]);
    expectSameTree(await readTree(parent), before, 'the CLI changed the previous output');
    expect((await readdir(parent)).sort()).toEqual(['hosts', 'public']);
  });

  it('prints a misspelt field once, with the field it likely means, at its file:line:column', () => {
    const caseDir = path.join(BROKEN, 'misspelt-field');
    const { status, stderr } = cli(['--check', '--data', path.join(caseDir, 'data')]);
    expect(status).toBe(1);
    expect(stderr.slice(1).map((line) => line.replaceAll(`${caseDir}/`, ''))).toEqual([
      'data/company/companies.json:27:5 #/1/email (record 1, id 7): unknown field "email": did you mean "e_mail"?',
      'data/virtualfair/fairs.json:17:7 #/0/tiles/tile-size (record 0, id 3): unknown field "tile-size": did you mean "tile_size"?',
      '',
      '2 problems in the source data; nothing was written.',
    ]);
  });

  it('places a problem by code points, in a file with a BOM, CRLF line ends and an emoji', async () => {
    const data = path.join(await tempDir(), 'data');
    cpSync(GOOD, data, { recursive: true });
    const cork = [
      '{',
      '  "id": "6a1351f2-4afd-4a5d-96cc-b91631d3a389",',
      '  "name": "Kork 😀", "texture": "https://media.example.com/textures/cork.gif",',
      '  "categories": ["0c33de5e-721a-4c87-8ab3-6763ab932548"]',
      '}',
    ].join('\r\n');
    await writeFile(path.join(data, 'virtualbooth-texture/cork.json'), `\uFEFF${cork}`);
    const { status, stderr } = cli(['--check', '--data', data]);
    expect(status).toBe(1);
    // Column 32 counts 😀 as one: in UTF-16 units it would be 33, in bytes 35.
    expect(stderr[1]).toBe(
      `${data}/virtualbooth-texture/cork.json:3:32 #/texture (record id "6a1351f2-4afd-4a5d-96cc-b91631d3a389"): ` +
        'expected the URL of a jpg or png image, got "https://media.example.com/textures/cork.gif"',
    );
  });

  it('--check on good data exits 0 and writes nothing', async () => {
    const project = await projectCopy('project');
    const { status, stdout, stderr } = cli(
      ['--check', '--data', path.join(ROOT, GOOD), '--headers', SAMPLE_HEADERS],
      project,
    );
    expect(status).toBe(0);
    expect(stdout).toBe('');
    expect(stderr.at(-1)).toBe('checked 36 files for 22 routes from 8 records');
    expect((await readdir(project)).sort()).toEqual(['node_modules', 'package.json', 'scripts']);
  });

  // A project path that a file URL escapes (a space) must not stop the CLI from running.
  it('runs from a project folder whose path has a space', async () => {
    const project = await projectCopy('my project');
    const { status, stderr } = cli(['--check', '--data', path.join(ROOT, GOOD), '--headers', SAMPLE_HEADERS], project);
    expect(status).toBe(0);
    expect(stderr.at(-1)).toBe('checked 36 files for 22 routes from 8 records');
  });
});

describe('the output of the good fixture (page size 1)', () => {
  it('writes the planned files and nothing else', async () => {
    const { out } = await goodOutput();
    expect([...(await readTree(out)).keys()].sort()).toEqual([
      // What Cloudflare's uploads leave out (targets/cloudflare/assets.ts).
      '.assetsignore',
      '_errors/405/DELETE.json',
      '_errors/405/PATCH.json',
      '_errors/405/POST.json',
      '_errors/405/PUT.json',
      '_errors/405/TRACE.json',
      '_errors/invalid-page.json',
      '_errors/not-found.json',
      '_errors/unsupported-ordering.json',
      '_headers',
      '_options/company.json',
      '_options/event.json',
      '_options/virtualbooth-texture.json',
      '_options/virtualfair.json',
      'company/index.json',
      'event/index.json',
      'event/ordering=-end_date.json',
      'event/ordering=-id.json',
      'event/ordering=-logo.json',
      'event/ordering=-logo_bg_color.json',
      'event/ordering=-name.json',
      'event/ordering=-slug.json',
      'event/ordering=-start_date.json',
      'event/ordering=end_date.json',
      'event/ordering=logo.json',
      'event/ordering=logo_bg_color.json',
      'event/ordering=name.json',
      'event/ordering=slug.json',
      'event/ordering=start_date.json',
      'virtualbooth-texture/format=api.json',
      'virtualbooth-texture/format=api/page=2.json',
      'virtualbooth-texture/format=api/page=last.json',
      'virtualbooth-texture/format=json.json',
      'virtualbooth-texture/format=json/page=2.json',
      'virtualbooth-texture/format=json/page=last.json',
      'virtualbooth-texture/index.json',
      'virtualbooth-texture/page=2.json',
      'virtualbooth-texture/page=last.json',
      'virtualfair/index.json',
    ]);
  });

  it('writes the bodies DRF would send', async () => {
    const { out } = await goodOutput();
    const files = await readTreeText(out);
    const ids = (file: string) => (JSON.parse(files[file] as string) as Array<{ id: number }>).map((r) => r.id);
    expect(ids('company/index.json')).toEqual([7, 12]);
    expect(ids('event/index.json')).toEqual([5, 9, 11]);
    expect(ids('event/ordering=-id.json')).toEqual([11, 9, 5]);
    expect(ids('event/ordering=-start_date.json')).toEqual([11, 5, 9]);
    expect(ids('event/ordering=logo.json')).toEqual([5, 9, 11]);
    expect(ids('event/ordering=-logo.json')).toEqual([11, 9, 5]);
    expect(ids('event/ordering=logo_bg_color.json')).toEqual([5, 11, 9]);
    expect(files['event/index.json']).toBe(
      '[{"id":5,"name":"Expo","slug":"expo-2024","start_date":"2024-05-02","end_date":"2024-05-04","logo":"/media/events/expo-2024.png","logo_bg_color":"#2a9d8f"},' +
        '{"id":9,"name":"Fachmesse Öl & Gas","slug":"oel-gas-2018","start_date":"2018-03-06","end_date":"2018-03-06","logo":"/media/events/oel-gas-2018.png","logo_bg_color":null},' +
        '{"id":11,"name":"Future Days","slug":"2031","start_date":"2031-09-16","end_date":"2031-09-20","logo":null,"logo_bg_color":"#FFFFFF"}]',
    );
    expect(files['virtualfair/index.json']).toBe(
      '[{"id":3,"slug":"virtual-expo","name":"Virtual Expo","link":"https://catalogue.example.org/fairs/virtual-expo/",' +
        '"logo":"https://media.example.com/fairs/virtual-expo.png","has_catalog":true,"events":[' +
        '{"id":9,"slug":"oel-gas-2018","name":"Fachmesse Öl & Gas","short_code":null,"start_date":"2018-03-06","event_logo":"/media/events/oel-gas-2018.png"},' +
        '{"id":5,"slug":"expo-2024","name":"Expo","short_code":"EXPO","start_date":"2024-05-02","event_logo":"/media/events/expo-2024.png"}],' +
        '"url":"https://maps.example.net/fairs/virtual-expo/","tiles":{"tile_pattern":"{z}/{x}/{y}","tile_extension":"png","tile_size":256},' +
        '"size":{"width":16384,"height":8192},"zoom":{"min":1,"max":8,"default":3,"booth_zoom_level":6,"reverse":false,"booth_section_start":5,' +
        '"booth_detail_start":6,"translation_factor_7":2.0,"xs_width_max":40},"show":true}]',
    );
    const cork =
      '{"id":"6a1351f2-4afd-4a5d-96cc-b91631d3a389","name":"Cork","texture":"https://media.example.com/textures/cork.jpg","categories":["0c33de5e-721a-4c87-8ab3-6763ab932548"]}';
    const oak =
      '{"id":"10fc2ce5-0b1c-4d5e-8f9a-1b2c3d4e5f60","name":"Oak parquet","texture":"https://media.example.com/textures/oak.png",' +
      '"categories":["0c33de5e-721a-4c87-8ab3-6763ab932548","dc06f438-7b43-4c22-9f44-5b398d7c672b"]}';
    expect(files['virtualbooth-texture/index.json']).toBe(
      `{"count":2,"next":"http://localhost:3000/virtualbooth-texture/?page=2","previous":null,"results":[${cork}]}`,
    );
    expect(files['virtualbooth-texture/page=2.json']).toBe(
      `{"count":2,"next":null,"previous":"http://localhost:3000/virtualbooth-texture/","results":[${oak}]}`,
    );
    expect(files['virtualbooth-texture/page=last.json']).toBe(files['virtualbooth-texture/page=2.json']);
    expect(files['virtualbooth-texture/format=api/page=2.json']).toBe(
      `{"count":2,"next":null,"previous":"http://localhost:3000/virtualbooth-texture/?format=api","results":[${oak}]}`,
    );
    expect(files['virtualbooth-texture/format=json.json']).toBe(
      `{"count":2,"next":"http://localhost:3000/virtualbooth-texture/?format=json&page=2","previous":null,"results":[${cork}]}`,
    );
    expect(files['_options/virtualbooth-texture.json']).toBe(
      '{"name":"Virtual Booth Texture List","description":"","renders":["application/json","text/html"],"parses":["application/json","application/x-www-form-urlencoded","multipart/form-data"]}',
    );
    expect(files['_errors/not-found.json']).toBe('{"detail":"Not found."}');
    expect(files['_errors/invalid-page.json']).toBe('{"detail":"Invalid page."}');
    expect(files['_errors/405/DELETE.json']).toBe('{"detail":"Method \\"DELETE\\" not allowed."}');
    expect(files._headers).toBe(readFileSync(SAMPLE_HEADERS, 'utf8'));
  });

  it('writes an empty texture list as one page', async () => {
    const data = await tempDir();
    await mkdir(path.join(data, 'event'));
    await writeFile(path.join(data, 'event', 'events.json'), '[]');
    // No record at all: an empty API, which the build makes only when told it is meant.
    await expect(renderFiles(data)).rejects.toThrow('1 problem in the source data');
    const { files, routes } = await renderFiles(data, true);
    expect(routes.length).toBe(22);
    expect(files.get('virtualbooth-texture/index.json')).toBe('{"count":0,"next":null,"previous":null,"results":[]}');
    expect(files.get('virtualbooth-texture/page=last.json')).toBe(
      '{"count":0,"next":null,"previous":null,"results":[]}',
    );
    expect(files.get('company/index.json')).toBe('[]');
    expect(files.has('virtualbooth-texture/page=2.json')).toBe(false);
  });

  it("writes a company's and a texture's fields in the API's order, whatever the source's order", async () => {
    // Those lists are written from zod's output, which has the schema's key order.
    const data = await tempDir();
    const reversed = (file: string) => {
      const value = JSON.parse(readFileSync(path.join(GOOD, file), 'utf8')) as object | object[];
      const flip = (record: object) => Object.fromEntries(Object.entries(record).reverse());
      return JSON.stringify(Array.isArray(value) ? value.map(flip) : flip(value));
    };
    for (const file of ['company/companies.json', 'virtualbooth-texture/cork.json']) {
      await mkdir(path.join(data, path.dirname(file)), { recursive: true });
      await writeFile(path.join(data, file), reversed(file));
    }
    expect(reversed('company/companies.json')).toMatch(/^\[\{"vf_plus_status":true,"tags":/);
    const { files } = await renderFiles(data);
    expect(files.get('company/index.json')).toBe(
      '[{"id":7,"name":"acme Tools Ltd","street":"","zip_code":"-","city":"","country_name":"United Kingdom","phone":null,"fax":null,' +
        '"e_mail":"","platform_plus_status":true,"website":null,"logo":"https://media.example.com/logos/acme.png","tags":null,"vf_plus_status":false},' +
        '{"id":12,"name":"Zeta Werkzeuge GmbH","street":"Königsallee 23","zip_code":"42853","city":"Remscheid","country_name":"Germany",' +
        '"phone":"02191/77281","fax":null,"e_mail":"info@zeta.example.com","platform_plus_status":false,"website":"https://www.zeta.example.com/",' +
        '"logo":null,"tags":"Welding & Cutting,CAD/CAM Software","vf_plus_status":true}]',
    );
    expect(files.get('virtualbooth-texture/index.json')).toBe(
      '{"count":1,"next":null,"previous":null,"results":[{"id":"6a1351f2-4afd-4a5d-96cc-b91631d3a389","name":"Cork",' +
        '"texture":"https://media.example.com/textures/cork.jpg","categories":["0c33de5e-721a-4c87-8ab3-6763ab932548"]}]}',
    );
  });
});
