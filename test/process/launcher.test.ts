// scripts/command.mjs, which every npm script runs: its kept compilation is never stale. A copy
// of scripts/ with a node_modules/ of its own (links to the project's packages) keeps its own
// compilation, so this test never touches the project's; its declared API is its copy of the
// sample's declarations module.

import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_API_MODULE, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { cleanEnv, GOOD_DATA, ROOT } from '../unit/helpers/cli.ts';

let project: string;
/** The copy's own declarations modules: the sample's, which check() runs against, and the project's. */
let sampleModule: string;
let projectModule: string;

beforeAll(async () => {
  project = await mkdtemp(path.join(os.tmpdir(), 'launcher-'));
  await cp(path.join(ROOT, 'scripts'), path.join(project, 'scripts'), { recursive: true });
  await cp(SAMPLE_HEADERS, path.join(project, '_headers'));
  sampleModule = path.join(project, path.relative(ROOT, SAMPLE_API_MODULE));
  projectModule = path.join(project, 'scripts/contract/resources/index.ts');
  // The module and the declarations it imports beside the catalogue's.
  await cp(SAMPLE_API_MODULE, sampleModule);
  const extraList = path.join(path.dirname(SAMPLE_API_MODULE), 'extra-list');
  await cp(extraList, path.join(path.dirname(sampleModule), 'extra-list'), {
    recursive: true,
    filter: (source) => !source.endsWith('.json'),
  });
  await mkdir(path.join(project, 'node_modules'));
  for (const entry of await readdir(path.join(ROOT, 'node_modules'))) {
    if (entry !== '.cache')
      await symlink(path.join(ROOT, 'node_modules', entry), path.join(project, 'node_modules', entry));
  }
});

afterAll(() => rm(project, { recursive: true, force: true }));

function check(apiModule = sampleModule) {
  const result = spawnSync(
    process.execPath,
    [path.join(project, 'scripts/command.mjs'), 'build', '--check', '--data', GOOD_DATA],
    {
      cwd: project,
      encoding: 'utf8',
      env: cleanEnv({ API_MODULE: apiModule }),
      timeout: 30_000,
    },
  );
  return { status: result.status, last: result.stderr.trimEnd().split('\n').at(-1) };
}

/** The folder of the current compilation of each declarations module, by the module's path. */
async function compilations(): Promise<Record<string, string>> {
  const cache = path.join(project, 'node_modules/.cache/static-drf-api');
  const pointers = (await readdir(cache)).filter((entry) => /^current-\w+\.json$/.test(entry));
  const read = pointers.map(
    async (entry) => JSON.parse(await readFile(path.join(cache, entry), 'utf8')) as { module: string; folder: string },
  );
  return Object.fromEntries((await Promise.all(read)).map(({ module, folder }) => [module, folder]));
}

/** The folder of the current compilation with the sample's declarations. */
const current = async () => (await compilations())[sampleModule] as string;

describe('scripts/command.mjs', () => {
  it('compiles once, runs from the kept compilation while nothing changed, and compiles again after an edit', async () => {
    expect(check()).toMatchObject({ status: 0, last: expect.stringMatching(/^checked \d+ files/) });
    const first = await current();
    expect(check().status).toBe(0);
    expect(await current()).toBe(first);

    // A contributor's edit of one module takes effect on the next command, with no step of its own.
    const runBuild = path.join(project, 'scripts/cli/run-build.ts');
    await writeFile(runBuild, (await readFile(runBuild, 'utf8')).replace("'checked'", "'validated'"));
    expect(check()).toMatchObject({ status: 0, last: expect.stringMatching(/^validated \d+ files/) });
    expect(await current()).not.toBe(first);
  }, 60_000);

  it("compiles in, of zod's messages, only the English ones", async () => {
    expect(check().status).toBe(0);
    const cache = path.join(project, 'node_modules/.cache/static-drf-api');
    // Every module compiled in is named by a source map; the commands use zod's English messages.
    const sources = new Set<string>();
    for (const file of await readdir(path.join(cache, await current()))) {
      if (!file.endsWith('.map')) continue;
      const map = JSON.parse(await readFile(path.join(cache, await current(), file), 'utf8')) as { sources: string[] };
      for (const source of map.sources) sources.add(source.replace(/^.*node_modules\//, ''));
    }
    expect([...sources].filter((source) => source.startsWith('zod/')).length).toBeGreaterThan(10);
    expect([...sources].filter((source) => source.startsWith('zod/v4/locales/'))).toEqual(['zod/v4/locales/en.js']);
  }, 60_000);

  it('keeps a compilation per declarations module: another module compiles its own, and leaves the first current', async () => {
    expect(check().status).toBe(0);
    const sample = await current();
    expect(check(projectModule).status).toBe(0);
    const both = await compilations();
    expect(Object.keys(both).sort()).toEqual([projectModule, sampleModule].sort());
    expect(both[projectModule]).not.toBe(sample);
    expect(check().status).toBe(0);
    expect(await current()).toBe(sample);
  }, 60_000);

  it('refuses a command that does not exist, with the list of those that do', () => {
    const result = spawnSync(process.execPath, [path.join(project, 'scripts/command.mjs'), 'nope'], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^usage: node scripts\/command\.mjs <build\|.*\|verify> \[options\]/);
  });
});
