// Hostile source data through the whole build (scripts/cli/run-build.ts build(), and the CLI for
// the cases that used to hang or crash): each problem is one line naming the file (or link) and
// the place, nothing is published, the previous output stays byte for byte as it was; a file the
// system or an editor makes is skipped with a warning and the build succeeds. The data sets are
// made at run time, since git and editors mangle their bytes (invalid UTF-8, UTF-16) or cannot
// hold them (FIFOs, symbolic links that leave the folder).

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BuildOptions, build } from '../../scripts/builder/build.ts';
import { readCatalogue } from '../../scripts/builder/pipeline/catalogue.ts';
import { DataErrors, formatDataError } from '../../scripts/builder/pipeline/errors.ts';
import { DEFAULTS } from '../../scripts/cli/settings.ts';
import { API, SAMPLE_DIR, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { cleanEnv, commandLine, outputArgs } from '../unit/helpers/cli.ts';
import { readTree, tempDirs } from '../unit/helpers/tree.ts';

const GOOD = 'test/fixtures/good/data';
const tempDir = tempDirs('hostile-sources-');

const options = (dataDir: string, parent: string): BuildOptions => ({
  resources: API,
  dataDir,
  headersPath: SAMPLE_HEADERS,
  baseUrl: DEFAULTS.baseUrl,
  pageSize: 1,
  outDir: path.join(parent, 'public'),
  targetsDir: path.join(parent, 'targets'),
  targets: ['nginx'],
});

/** A copy of the good fixture in a temp folder, changed by `change`; and a parent with a good build. */
async function setUp(change: (data: string) => void): Promise<{ data: string; parent: string }> {
  const data = path.join(await tempDir(), 'data');
  cpSync(GOOD, data, { recursive: true });
  change(data);
  const parent = await tempDir();
  await build(options(GOOD, parent));
  return { data, parent };
}

/** Builds `data` over the good output in `parent`: the problem lines, with the folder written as `data`. */
async function failingBuild(data: string, parent: string): Promise<string[]> {
  const before = await readTree(parent);
  const error = await build(options(data, parent)).then(
    () => new Error('the build succeeded'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DataErrors);
  const after = await readTree(parent);
  expect([...after.keys()]).toEqual([...before.keys()]);
  for (const [file, bytes] of before) expect(after.get(file)?.equals(bytes), file).toBe(true);
  expect((await readdir(parent)).sort()).toEqual(['public', 'targets']);
  return (error as DataErrors).errors.map(formatDataError).map((line) => line.replaceAll(data, 'data'));
}

const EVENT =
  '{"id": 1, "name": "Expo", "slug": "expo", "short_code": null, "start_date": "2024-05-02", "end_date": "2024-05-02", "logo": null, "logo_bg_color": null}';

describe('hostile source bytes stop the build with one line, and publish nothing', () => {
  it.each<[string, string | Buffer, string]>([
    [
      'invalid UTF-8',
      Buffer.concat([Buffer.from(EVENT.replace('Expo', 'K')), Buffer.from([0xf6])]),
      `data/event/new.json: invalid UTF-8 at line 1, column ${EVENT.length - 2} (byte ${EVENT.length - 3}, 0xF6): save the file as UTF-8`,
    ],
    [
      'a UTF-16 file',
      Buffer.from(EVENT, 'utf16le'),
      'data/event/new.json: the file is encoded as UTF-16 (little-endian): save it as UTF-8',
    ],
    [
      'a duplicate key',
      EVENT.replace('"slug"', '"name": "Other", "slug"'),
      'data/event/new.json#/name: duplicate key "name" at line 1, column 27, first at line 1, column 11: JSON keeps only one of them; remove the other',
    ],
    [
      'a number outside the range of a double',
      EVENT.replace('"id": 1', '"id": 1e400'),
      'data/event/new.json#/id: the number 1e400 at line 1, column 8 is outside the range of a double (about ±1.8e308): write a smaller number',
    ],
    [
      'an integer beyond 2^53',
      EVENT.replace('"id": 1', '"id": 9007199254740993'),
      'data/event/new.json#/id: the integer 9007199254740993 at line 1, column 8 is beyond 2^53 - 1 and would be rounded: write an integer between -9007199254740991 and 9007199254740991',
    ],
    [
      'arrays nested 100,000 deep',
      EVENT.replace('"logo": null', `"logo": ${'['.repeat(100_000)}${']'.repeat(100_000)}`),
      // The record is level 1, so the 64th bracket is the 65th level.
      `data/event/new.json:1:${EVENT.indexOf('"logo": ') + 8 + 64}: nesting deeper than 64 levels: the records are only a few levels deep; remove the extra brackets`,
    ],
  ])('%s', async (_label, content, line) => {
    const { data, parent } = await setUp((dir) => writeFileSync(path.join(dir, 'event/new.json'), content));
    expect(await failingBuild(data, parent)).toEqual([line]);
  });
});

describe('records that are not objects', () => {
  // Found by the fuzz test: a fair replaced by null crashed the rule across fairs with a TypeError.
  it('a fair that is null is one line, not a TypeError', async () => {
    const { data, parent } = await setUp((dir) => {
      const file = path.join(dir, 'virtualfair/fairs.json');
      const fairs = JSON.parse(readFileSync(file, 'utf8'));
      writeFileSync(file, JSON.stringify([null, ...fairs.slice(1)]));
    });
    expect(await failingBuild(data, parent)).toEqual([
      'data/virtualfair/fairs.json#/0: expected a record object, got null',
    ]);
  });
});

describe('the data folder read strictly', () => {
  it('a symbolic link out of the data folder is one line naming it, and is not read', async () => {
    const outside = await tempDir();
    writeFileSync(path.join(outside, 'secret.json'), EVENT);
    const { data, parent } = await setUp((dir) =>
      symlinkSync(path.join(outside, 'secret.json'), path.join(dir, 'event/secret.json')),
    );
    expect((await failingBuild(data, parent)).map((line) => line.replaceAll(outside, 'OUTSIDE'))).toEqual([
      'data/event/secret.json: a symbolic link to OUTSIDE/secret.json, outside the data folder: copy the file into the data folder instead',
    ]);
  });

  it('a symbolic link loop is one line naming the link, not one per duplicate id', async () => {
    const { data, parent } = await setUp((dir) => symlinkSync('..', path.join(dir, 'event/loop')));
    expect(await failingBuild(data, parent)).toEqual([
      'data/event/loop: a symbolic link loop (the link leads to a folder above it): remove the link',
    ]);
  });

  it('a FIFO named *.json is refused without being opened', async () => {
    const { data, parent } = await setUp((dir) => spawnSync('/usr/bin/mkfifo', [path.join(dir, 'event/pipe.json')]));
    expect(await failingBuild(data, parent)).toEqual([
      'data/event/pipe.json: a FIFO (named pipe) is not source data: remove it',
    ]);
  }, 10_000);

  it('--data one level too high names the folder meant', async () => {
    const parentOfData = await tempDir();
    const { parent } = await setUp(() => {});
    cpSync(GOOD, path.join(parentOfData, 'data'), { recursive: true });
    expect(await failingBuild(parentOfData, parent)).toEqual([
      'data: expected the folders company/, virtualfair/, event/, virtualbooth-texture/ here, but they are in data/data: use --data data/data',
    ]);
  });

  it('files the system or an editor makes are skipped with a warning each, and the build succeeds', async () => {
    const { data, parent } = await setUp((dir) => {
      for (const name of [
        '.DS_Store',
        'event/Thumbs.db',
        'event/events.json~',
        'event/.events.json.swp',
        'company/#c.json#',
      ]) {
        writeFileSync(path.join(dir, name), 'junk');
      }
    });
    const warnings: string[] = [];
    const settings = { ...options(data, parent), dataDir: data };
    const checked = await readCatalogue(
      settings,
      () => {},
      (line) => warnings.push(line.replaceAll(data, 'data')),
    );
    expect(checked.records).toBe(8);
    const reason = 'skipped: a file the system or an editor makes, not source data';
    expect(warnings).toEqual([
      `data/.DS_Store: ${reason}`,
      `data/company/#c.json#: ${reason}`,
      `data/event/.events.json.swp: ${reason}`,
      `data/event/Thumbs.db: ${reason}`,
      `data/event/events.json~: ${reason}`,
    ]);
    await build(options(data, parent));
    // npm run build says them as the preview does: `warning: ` first.
    const built = cli(data, parent);
    expect(built.status).toBe(0);
    expect(built.lines.filter((line) => line.includes(reason))).toEqual(warnings.map((line) => `warning: ${line}`));
  });
});

/** The CLI on `data`, bounded in time: it must neither hang nor print a stack trace. */
function cli(data: string, parent: string) {
  const args = commandLine('build', ['--data', data, ...outputArgs(parent), '--target', 'nginx']);
  const result = spawnSync(process.execPath, args, {
    cwd: SAMPLE_DIR,
    encoding: 'utf8',
    env: cleanEnv(),
    timeout: 20_000,
  });
  expect(result.signal, 'the build hung and was killed').toBeNull();
  expect(result.stderr).not.toMatch(/^\s+at /m);
  return { status: result.status, lines: result.stderr.split('\n').map((line) => line.replaceAll(data, 'data')) };
}

describe('the CLI on hostile data: exit status 1, no hang, no stack trace', () => {
  it('a FIFO, a link loop and 100,000 nested arrays, each one line', async () => {
    const { data, parent } = await setUp((dir) => {
      spawnSync('/usr/bin/mkfifo', [path.join(dir, 'event/pipe.json')]);
      symlinkSync('..', path.join(dir, 'company/loop'));
      mkdirSync(path.join(dir, 'virtualfair/deep'));
      writeFileSync(path.join(dir, 'virtualfair/deep/deep.json'), `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    });
    const before = await readTree(parent);
    const { status, lines } = cli(data, parent);
    expect(status).toBe(1);
    expect(lines.filter((line) => line.startsWith('data/'))).toEqual([
      'data/company/loop: a symbolic link loop (the link leads to a folder above it): remove the link',
      'data/event/pipe.json: a FIFO (named pipe) is not source data: remove it',
      'data/virtualfair/deep/deep.json:1:65: nesting deeper than 64 levels: the records are only a few levels deep; remove the extra brackets',
    ]);
    const after = await readTree(parent);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [file, bytes] of before) expect(after.get(file)?.equals(bytes), file).toBe(true);
  }, 30_000);
});
