// Git and GitHub: .gitattributes with `npm run setup-git` (git diff one value per line, in the
// clone only), and the commands of .github/workflows/api-diff.yml, run on a temporary project.

import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { prettyJson } from '../../scripts/review/pretty.ts';
import { cleanEnv } from '../unit/helpers/cli.ts';

const run = promisify(execFile);
const scratch = await mkdtemp(path.join(os.tmpdir(), 'diff-git-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));
/** A HOME of its own, so that a global git configuration written by mistake shows. */
const HOME = path.join(scratch, 'home');
await mkdir(HOME);
// Without the settings' variables (vitest sets BASE_URL to "/"): the builds use the defaults, as in the workflow.
const ENV = cleanEnv({ HOME, XDG_CONFIG_HOME: HOME, GIT_CONFIG_NOSYSTEM: '1' });

async function git(repo: string, ...args: string[]): Promise<string> {
  const identity = ['-c', 'user.name=t', '-c', 'user.email=t@example.com'];
  return (await run('git', [...identity, ...args], { cwd: repo, env: ENV })).stdout;
}

describe('the JSON diff driver', () => {
  it('prettyJson: one value per line, tokens kept', () => {
    expect(prettyJson('{"a":[1,2.0,{"b":"x,y:{z}\\"q"}],"c":{},"d":[]}')).toBe(
      '{\n  "a": [\n    1,\n    2.0,\n    {\n      "b": "x,y:{z}\\"q"\n    }\n  ],\n  "c": {},\n  "d": []\n}\n',
    );
  });

  it('npm run setup-git: git diff and git log -p show the field that changed; no global config', async () => {
    const repo = path.join(scratch, 'driver');
    await mkdir(path.join(repo, 'public/company'), { recursive: true });
    await cp('.gitattributes', path.join(repo, '.gitattributes'));
    const file = path.join(repo, 'public/company/index.json');
    await writeFile(file, '[{"id":1,"name":"Acme","city":"Oslo","zoom":2.0}]');
    await git(repo, 'init', '-q');
    await git(repo, 'add', '.');
    await git(repo, 'commit', '-q', '-m', 'one');
    await writeFile(file, '[{"id":1,"name":"Acme","city":"Bergen","zoom":2.0}]');
    await run('npm', ['run', '--silent', 'setup-git', '--', '--repo', repo], { env: ENV });
    const shown = await git(repo, 'diff');
    expect(shown).toContain('-    "city": "Oslo",\n+    "city": "Bergen",\n');
    await git(repo, 'commit', '-q', '-am', 'two');
    expect(await git(repo, 'log', '-p', '-1')).toContain('+    "city": "Bergen",');
    expect(await git(repo, 'config', '--local', 'diff.api-json.cachetextconv')).toBe('true\n');
    await expect(readFile(path.join(HOME, '.gitconfig'))).rejects.toThrow();
  }, 30_000);

  it('.gitattributes: public/ and targets/ are generated, the answers use the driver', async () => {
    const text = await readFile('.gitattributes', 'utf8');
    expect(text).toMatch(/^public\/\*\* linguist-generated=true$/m);
    expect(text).toMatch(/^targets\/\*\* linguist-generated=true$/m);
    expect(text).toMatch(/^public\/\*\*\/\*\.json diff=api-json$/m);
  });
});

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}

const workflow = parse(await readFile('.github/workflows/api-diff.yml', 'utf8')) as {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: Record<string, { 'runs-on': string; steps: Step[] }>;
};
const steps = Object.values(workflow.jobs)[0]?.steps ?? [];

describe('.github/workflows/api-diff.yml', () => {
  it('runs on pull requests, may write one comment, and posts the diff it made', () => {
    expect(Object.keys(workflow.on)).toEqual(['pull_request']);
    expect(workflow.permissions['pull-requests']).toBe('write');
    expect(steps.map((step) => step.uses ?? step.run)).toEqual([
      'actions/checkout@v4',
      'actions/setup-node@v4',
      'npm ci',
      'npm run check',
      'npm run --silent diff -- "$BASE_SHA" --format markdown > "$RUNNER_TEMP/api-diff.md"',
      'actions/github-script@v7',
    ]);
    expect(steps[0]?.with?.['fetch-depth']).toBe(0);
    expect(steps[5]?.with?.script).toContain("'<!-- api-diff -->'");
    expect(steps[5]?.with?.script).toContain('/api-diff.md`');
  });

  it('its commands, run in a project with a base commit and a changed pull request', async () => {
    const project = path.join(scratch, 'project');
    await mkdir(project);
    for (const name of ['package.json', '_headers', '.gitattributes']) await cp(name, path.join(project, name));
    await cp('test/fixtures/diff/before/data', path.join(project, 'data'), { recursive: true });
    await symlink(path.resolve('node_modules'), path.join(project, 'node_modules'));
    await symlink(path.resolve('scripts'), path.join(project, 'scripts'));
    await writeFile(path.join(project, '.gitignore'), 'node_modules\nscripts\ntargets\n');
    await run('npm', ['run', '--silent', 'build'], { cwd: project, env: ENV });
    await git(project, 'init', '-q');
    await git(project, 'add', '.');
    await git(project, 'commit', '-q', '-m', 'base');
    const base = (await git(project, 'rev-parse', 'HEAD')).trim();
    await rm(path.join(project, 'data'), { recursive: true });
    await cp('test/fixtures/diff/after/data', path.join(project, 'data'), { recursive: true });
    await git(project, 'add', '.');
    await git(project, 'commit', '-q', '-m', 'pull request');

    const env = { ...ENV, BASE_SHA: base, RUNNER_TEMP: project };
    for (const step of steps.slice(3, 5)) await run('bash', ['-c', step.run as string], { cwd: project, env });
    const comment = await readFile(path.join(project, 'api-diff.md'), 'utf8');
    expect(comment).toMatch(new RegExp(`^<!-- api-diff -->\\n### API changes from \`${base}\` to the working tree`));
    expect(comment).toContain('| company | 1 added, 2 changed |');
    expect(comment.length).toBeLessThan(65_000);
  }, 60_000);
});
