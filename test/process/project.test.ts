// The one test of the project's own files: the committed public/, targets/, schemas/ and the
// editor's mapping to the schemas are what `npm run build` writes from this data/, this _headers
// and this settings file, with the declarations the commands read. Every other test runs on the
// sample project under test/fixtures/, so a user's catalogue, settings and lists change no test
// but this one, and `npm run build` makes this one pass again.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EDITOR_SETTINGS } from '../../scripts/builder/build.ts';
import { editorSettingsText } from '../../scripts/builder/documents/json-schemas.ts';
import { RESOURCES } from '../../scripts/contract/resources/index.ts';
import { outputArgs, ROOT, runCommand } from '../unit/helpers/cli.ts';
import { readTree } from '../unit/helpers/tree.ts';

const RUN = 'run `npm run build` and commit public/, targets/, schemas/ and .vscode/settings.json';
const SOURCES = 'data/, _headers and static-api.config.json';

let built: string;
let buildFailure: string | undefined;

beforeAll(async () => {
  built = await mkdtemp(path.join(tmpdir(), 'project-'));
  // The build command itself, run where the project is: its own settings file, data and _headers.
  const result = await runCommand('build', outputArgs(built), { cwd: ROOT, api: 'project', timeoutMs: 120_000 });
  if (result.code !== 0) buildFailure = result.stderr;
}, 150_000);

afterAll(() => rm(built, { recursive: true, force: true }));

/** The paths git would commit under `folder` of the project (tracked, or new and not ignored). */
function committable(folder: string): Set<string> {
  const { stdout } = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', folder], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return new Set(
    stdout
      .split('\0')
      .filter((file) => file !== '' && existsSync(path.join(ROOT, file)))
      .map((file) => path.relative(folder, file)),
  );
}

/** The files of a built folder that git would commit, were it the project's `folder`. */
function notIgnored(tree: Map<string, Buffer>, folder: string): Map<string, Buffer> {
  const paths = [...tree.keys()].map((file) => `${folder}/${file}`);
  // Exit status 1 when none is ignored; the ignored paths, one a line, otherwise.
  const { stdout } = spawnSync('git', ['check-ignore', '--no-index', '--stdin'], {
    cwd: ROOT,
    input: paths.join('\n'),
    encoding: 'utf8',
  });
  const ignored = new Set(stdout.split('\n').filter((line) => line !== ''));
  return new Map([...tree].filter(([file]) => !ignored.has(`${folder}/${file}`)));
}

/** Each difference between the project's `folder` and the same folder of the build, one line each. */
async function differences(folder: string): Promise<string[]> {
  const made = existsSync(path.join(built, folder))
    ? notIgnored(await readTree(path.join(built, folder)), folder)
    : new Map<string, Buffer>();
  const kept = committable(folder);
  const lines: string[] = [];
  for (const [file, bytes] of made) {
    if (!kept.has(file)) lines.push(`${folder}/${file} is not in the project`);
    else if (!readFileSync(path.join(ROOT, folder, file)).equals(bytes)) lines.push(`${folder}/${file} differs`);
  }
  for (const file of kept) if (!made.has(file)) lines.push(`${folder}/${file} is no longer written`);
  return lines.sort();
}

describe("the project's own files", () => {
  it(`build: ${SOURCES} are valid`, () => {
    expect(buildFailure, `npm run build fails on the project's own files:\n${buildFailure}`).toBeUndefined();
  });

  it.each(['public', 'targets', 'schemas'])(`%s/ is what npm run build writes from ${SOURCES}`, async (folder) => {
    expect(buildFailure).toBeUndefined();
    const lines = await differences(folder);
    expect(lines, `${folder}/ is not what npm run build writes from ${SOURCES}: ${RUN}`).toEqual([]);
  });

  it(`${EDITOR_SETTINGS} maps each list's source files to its schema`, () => {
    const file = path.join(ROOT, EDITOR_SETTINGS);
    const kept = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    expect(kept, `${EDITOR_SETTINGS} is not what npm run build writes: ${RUN}`).toBe(
      editorSettingsText(kept, RESOURCES),
    );
  });
});
