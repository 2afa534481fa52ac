// The declared API a command runs against (scripts/command.mjs): the module --api-module,
// API_MODULE or apiModule in the settings file names, compiled in with the commands, else the
// project's scripts/contract/resources/index.ts; a name that is no such module stops the command
// with the setting named.

import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../scripts/cli/settings.ts';
import { RESOURCES as PROJECT_RESOURCES } from '../../scripts/contract/resources/index.ts';
import { fileFor } from '../../scripts/contract/routes.ts';
import { CATALOGUE_DATA } from '../fixtures/sample.ts';
import { outputArgs, ROOT, runCommand } from '../unit/helpers/cli.ts';
import { tempDirs } from '../unit/helpers/tree.ts';

const temp = tempDirs('api-module-');
const TIMEOUT = { timeoutMs: 120_000 };

/** A declarations module in `dir`: the catalogue's lists, and the categories (test/fixtures/extra-list/) unless `lists` says otherwise. */
function writeModule(dir: string, lists = '[...CATALOGUE, category]'): string {
  const file = path.join(dir, 'api.ts');
  writeFileSync(
    file,
    [
      `import { CATALOGUE } from ${JSON.stringify(path.join(ROOT, 'test/fixtures/api.ts'))};`,
      `import { category } from ${JSON.stringify(path.join(ROOT, 'test/fixtures/extra-list/category.ts'))};`,
      `export const RESOURCES = ${lists};`,
      '',
    ].join('\n'),
  );
  return file;
}

/** The catalogue's data with two categories beside it, in `dir`. */
function dataWithCategories(dir: string): string {
  const data = path.join(dir, 'data');
  cpSync(CATALOGUE_DATA, data, { recursive: true });
  mkdirSync(path.join(data, 'category'));
  const categories = [
    { id: '00000000-0000-4000-8000-000000000001', name: 'Wood' },
    { id: '00000000-0000-4000-8000-000000000002', name: 'Stone' },
  ];
  writeFileSync(path.join(data, 'category', 'categories.json'), JSON.stringify(categories));
  return data;
}

const listFile = (dir: string, listPath: string) => path.join(dir, 'public', fileFor(listPath, {}));

describe('the declared API', () => {
  it('is the module API_MODULE names, compiled again after an edit of it', async () => {
    const dir = await temp();
    const module = writeModule(dir);
    const data = dataWithCategories(dir);
    const built = await runCommand('build', ['--data', data, ...outputArgs(dir), '--target', 'nginx'], {
      env: { API_MODULE: module },
      ...TIMEOUT,
    });
    expect(built.code, built.stderr).toBe(0);
    const page = JSON.parse(readFileSync(listFile(dir, '/category/'), 'utf8'));
    expect(page.results.map((record: { name: string }) => record.name)).toEqual(['Stone', 'Wood']);

    // Without the categories in the module, their folder is a folder of no list.
    writeModule(dir, '[...CATALOGUE]');
    const edited = await runCommand('build', ['--check', '--data', data], { env: { API_MODULE: module }, ...TIMEOUT });
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain('category');
    const sample = await runCommand('build', ['--data', CATALOGUE_DATA, ...outputArgs(path.join(dir, 'again'))], {
      env: { API_MODULE: module },
      ...TIMEOUT,
    });
    expect(sample.code, sample.stderr).toBe(0);
    expect(existsSync(listFile(path.join(dir, 'again'), '/category/'))).toBe(false);
  }, 300_000);

  it('is named by --api-module over API_MODULE, and by apiModule in the settings file under both', async () => {
    const dir = await temp();
    const module = writeModule(dir);
    const data = dataWithCategories(dir);
    mkdirSync(path.join(dir, 'settings'));
    const config = path.join(dir, 'settings', 'static-api.config.json');
    const check = (args: string[], env: Record<string, string>) =>
      runCommand('build', ['--check', '--data', data, ...args], { env, ...TIMEOUT });

    const flag = await check(['--api-module', module], { API_MODULE: path.join(dir, 'missing.ts') });
    expect(flag.code, flag.stderr).toBe(0);
    writeFileSync(config, JSON.stringify({ apiModule: 'missing.ts' }));
    const variable = await check(['--config', config], { API_MODULE: module });
    expect(variable.code, variable.stderr).toBe(0);
    // The settings file names the module from its own folder.
    writeFileSync(config, JSON.stringify({ apiModule: '../api.ts' }));
    const file = await runCommand('build', ['--check', '--data', data, '--config', config], {
      api: 'project',
      ...TIMEOUT,
    });
    expect(file.code, file.stderr).toBe(0);
  }, 300_000);

  it("is the project's declarations when nothing names a module", async () => {
    const dir = await temp();
    const built = await runCommand('build', ['--data', CATALOGUE_DATA, ...outputArgs(dir), '--target', 'nginx'], {
      api: 'project',
      ...TIMEOUT,
    });
    expect(built.code, built.stderr).toBe(0);
    for (const resource of PROJECT_RESOURCES)
      expect(existsSync(listFile(dir, resource.path)), resource.path).toBe(true);
    expect(existsSync(listFile(dir, '/category/'))).toBe(false);
  }, 300_000);

  it('stops with the setting named when it names no module, or one that does not compile', async () => {
    const dir = await temp();
    const config = path.join(dir, 'static-api.config.json');
    // With API_MODULE only where it is given: the settings file is read under it.
    const stopped = async (args: string[], env: Record<string, string> = {}) => {
      const result = await runCommand('build', ['--check', ...args], { env, api: 'project', ...TIMEOUT });
      expect(result.code, result.stderr).toBe(2);
      return result.stderr.trimEnd();
    };
    const contract =
      "must be a TypeScript or JavaScript module that exports RESOURCES, the list of the API's declarations";

    expect(await stopped([], { API_MODULE: 'apis/nope.ts' })).toBe(
      `API_MODULE names apis/nope.ts, which is not a file: the declarations module ${contract} (docs/architecture.md, "The declared API")`,
    );
    expect(await stopped(['--api-module', dir])).toContain(`--api-module names ${dir}, which is not a file`);
    expect(await stopped(['--api-module='])).toBe(
      `--api-module must name the declarations module, such as ${DEFAULTS.apiModule}, got ""`,
    );
    writeFileSync(config, JSON.stringify({ apiModule: 3 }));
    expect(await stopped(['--config', config])).toBe(
      `apiModule in ${config} must name the declarations module, such as ${DEFAULTS.apiModule}, got 3`,
    );
    writeFileSync(config, JSON.stringify({ apiModule: 'nope.ts' }));
    expect(await stopped(['--config', config])).toContain(`apiModule in ${config} names nope.ts, which is not a file`);

    const noList = path.join(dir, 'no-list.ts');
    writeFileSync(noList, 'export const API = [];\n');
    const said = await stopped(['--api-module', noList]);
    expect(said).toMatch(/^No matching export in ".*no-list\.ts" for import "RESOURCES"\n/);
    expect(said).toContain(
      `--api-module names ${noList}, which cannot be compiled: the declarations module ${contract}`,
    );
    const broken = path.join(dir, 'broken.ts');
    writeFileSync(broken, 'export const RESOURCES = [\n');
    expect(await stopped([], { API_MODULE: broken })).toMatch(
      new RegExp(`^${broken}:2:1: Unexpected end of file\nAPI_MODULE names ${broken}, which cannot be compiled`),
    );
  }, 300_000);
});
