// docs/architecture.md's "Adding a resource", followed step by step on a copy of the repository:
// a declaration module, its line in the list of declarations, its data, `npm run build`; then the
// lint, the type check and the check of the project's own files pass with nothing else edited.
// The steps are read from the page, so the recipe cannot change without this test.

import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT } from '../unit/helpers/cli.ts';

const run = promisify(execFile);

/** The numbered steps of the section, as written. */
function recipeSteps(): string[] {
  const page = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = page.split('\n## Adding a resource\n')[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\d+\. (.+)$/gm)].map((match) => match[1] as string);
}

const DECLARATION = `import { declare, UNIQUE_IDS } from './resource.ts';

export const recipeExample = declare({
  name: 'recipe-example',
  path: '/recipe-example/',
  title: 'Recipe Example List',
  one: 'a recipe example',
  many: 'recipe examples',
  record: (field) => field.z.strictObject({ id: field.uuid(), name: field.nonEmpty() }),
  order: [{ field: 'name', descending: false }],
  orderingFields: [],
  paginated: false,
  buildOnlyRules: [UNIQUE_IDS],
  component: 'RecipeExample',
  componentDescription: 'A list added by the recipe.',
});
`;

const RECORDS = ['Wood', 'Metal', 'Stone', 'Fabric', 'Glass'].map((name, index) => ({
  id: `0b7e2c1a-5d4f-4e3a-9c2b-00000000000${index}`,
  name,
}));

let copy: string;
const sh = (command: string, args: string[], timeout = 180_000) =>
  run(command, args, { cwd: copy, timeout, env: cleanEnv({}, 'project') });

beforeAll(async () => {
  copy = await mkdtemp(path.join(tmpdir(), 'recipe-'));
  // The repository's files as a clone has them, with its installed packages.
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT });
  // As the work tree has them: a file deleted there is not copied.
  const files = stdout.split('\0').filter((name) => name !== 'node_modules' && existsSync(path.join(ROOT, name)));
  for (const file of files.filter((name) => name !== '')) {
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(copy, file));
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  await sh('git', ['init', '-q']);
}, 120_000);

afterAll(() => rm(copy, { recursive: true, force: true }));

describe('Adding a resource, as docs/architecture.md says', () => {
  it('has four steps: the declaration, its line in the list, its data, the build', () => {
    expect(recipeSteps()).toEqual([
      'Write its declaration: a module of `scripts/contract/resources/` that calls `declare({...})`.',
      'List it in `scripts/contract/resources/index.ts`.',
      'Put its data under `data/<name>/`.',
      'Run `npm run build`.',
    ]);
  });

  it('needs nothing else: the build, the lint, the type check and the check of the project pass', async () => {
    writeFileSync(path.join(copy, 'scripts/contract/resources/recipe-example.ts'), DECLARATION);
    const index = path.join(copy, 'scripts/contract/resources/index.ts');
    const listed = readFileSync(index, 'utf8')
      .replace(/^(import { company } .*\n)/m, "$1import { recipeExample } from './recipe-example.ts';\n")
      .replace(/^(const API = \[.*)\] as const;$/m, '$1, recipeExample] as const;');
    expect(listed).toContain(', recipeExample] as const;');
    writeFileSync(index, listed);
    mkdirSync(path.join(copy, 'data/recipe-example'), { recursive: true });
    writeFileSync(path.join(copy, 'data/recipe-example/examples.json'), `${JSON.stringify(RECORDS, null, 2)}\n`);

    await sh(process.execPath, ['scripts/command.mjs', 'build']);
    const list = JSON.parse(readFileSync(path.join(copy, 'public/recipe-example/index.json'), 'utf8'));
    expect(list.map((record: { name: string }) => record.name)).toEqual(['Fabric', 'Glass', 'Metal', 'Stone', 'Wood']);
    const editor = readFileSync(path.join(copy, '.vscode/settings.json'), 'utf8');
    expect(editor).toContain('./schemas/recipe-example.schema.json');

    await sh(process.execPath, [
      path.join(copy, 'node_modules/@biomejs/biome/bin/biome'),
      'ci',
      '--error-on-warnings',
      '.',
    ]);
    await sh(process.execPath, [path.join(copy, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', '.']);
    const vitest = path.join(copy, 'node_modules/vitest/vitest.mjs');
    // A failing test would make the command exit non-zero, which rejects; this says it ran them.
    const { stdout } = await sh(process.execPath, [vitest, 'run', '--reporter=dot', 'test/process/project.test.ts']);
    expect(stripVTControlCharacters(stdout)).toMatch(/Tests +\d+ passed \(\d+\)/);
  }, 600_000);
});
