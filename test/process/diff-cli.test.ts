// `npm run diff`: its arguments, exit status, colour, and a real run through npm on two
// revisions of a temporary git repository.

import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { type DiffIo, runDiff } from '../../scripts/cli/diff-command.ts';
import type { Report } from '../../scripts/review/compare.ts';
import { API, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { cleanEnv, runCommand } from '../unit/helpers/cli.ts';

const run = promisify(execFile);
const FIXTURES = path.resolve('test/fixtures/diff');
const scratch = await mkdtemp(path.join(os.tmpdir(), 'diff-cli-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

async function buildInto(
  from: string,
  outDir: string,
  settings = { baseUrl: 'http://localhost:3000', pageSize: 10 },
): Promise<void> {
  await build({
    resources: API,
    dataDir: path.join(FIXTURES, from, 'data'),
    headersPath: SAMPLE_HEADERS,
    outDir,
    targetsDir: path.join(scratch, 'targets'),
    targets: [],
    ...settings,
  });
}

const BEFORE = path.join(scratch, 'before');
const BEFORE_AGAIN = path.join(scratch, 'before-again');
const AFTER = path.join(scratch, 'after');
await buildInto('before', BEFORE);
await buildInto('before', BEFORE_AGAIN);
await buildInto('after', AFTER);

/** The command as the user runs it, from `scratch`, on the sample's declarations (compiled in by the launcher). */
async function diff(
  args: string[],
  { env = {} }: { env?: Record<string, string> } = {},
): Promise<{ status: number | null; out: string; err: string }> {
  const { code, stdout, stderr } = await runCommand('diff', args, { cwd: scratch, env });
  return { status: code, out: stdout, err: stderr };
}

/** The command in-process, for what only a terminal gets: colour. */
async function diffOnTerminal(args: string[], io: Partial<DiffIo> = {}): Promise<string> {
  let out = '';
  await runDiff(args, {
    cwd: scratch,
    env: {},
    isTty: true,
    out: (text) => {
      out += text;
    },
    err: () => {},
    ...io,
  });
  return out;
}

describe('npm run diff', () => {
  it('identical sides: no change, exit 0 with --exit-code', async () => {
    const { status, out } = await diff([BEFORE, BEFORE_AGAIN, '--exit-code']);
    expect(status).toBe(0);
    expect(out).toBe(`No change in the API between ${BEFORE} and ${BEFORE_AGAIN}.\n`);
  });

  it('different sides: exit 1 with --exit-code, 0 without', async () => {
    expect((await diff([BEFORE, AFTER, '--exit-code'])).status).toBe(1);
    const { status, out } = await diff(['before', 'after']);
    expect(status).toBe(0);
    expect(out).toMatch(/^API changes from before to after\n/);
  });

  it('a side that is neither a folder nor a revision: exit 2 and one line', async () => {
    const { status, out, err } = await diff([BEFORE, 'no-such-side', '--repo', scratch]);
    expect(status).toBe(2);
    expect(out).toBe('');
    expect(err).toBe(`diff: "no-such-side" is neither a folder nor a git revision of ${scratch}\n`);
  });

  it('usage errors: exit 2 and one line', async () => {
    for (const args of [['--format', 'html'], ['a', 'b', 'c'], ['--nope']]) {
      const { status, err } = await diff(args);
      expect(status).toBe(2);
      expect(err.trimEnd().split('\n')).toHaveLength(1);
      expect(err).toMatch(/^diff: .*\(see --help\)\n$/);
    }
  });

  it('--help', async () => {
    const { status, out } = await diff(['--help']);
    expect(status).toBe(0);
    expect(out).toMatch(/^Usage: npm run diff -- \[options\] \[<before> \[<after>\]\]/);
  });

  it('colour on a terminal only, and never with NO_COLOR', async () => {
    expect(await diffOnTerminal([BEFORE, AFTER])).toContain('\x1b[');
    expect(await diffOnTerminal([BEFORE, AFTER], { env: { NO_COLOR: '1' } })).not.toContain('\x1b[');
    // The real command, piped.
    const piped = (await diff([BEFORE, AFTER])).out;
    expect(piped).toContain('+ id 30 "Borealis Metall AS"');
    expect(piped).not.toContain('\x1b[');
  });

  it('json and markdown formats', async () => {
    const report = JSON.parse((await diff([BEFORE, AFTER, '--format', 'json'])).out) as Report;
    expect(report).toMatchObject({ version: 1, before: BEFORE, after: AFTER, identical: false });
    expect(report.resources.map((entry) => entry.resource)).toEqual([
      'company',
      'virtualfair',
      'event',
      'virtualbooth-texture',
    ]);
    expect((await diff([BEFORE, AFTER, '--format', 'markdown'])).out).toMatch(/^<!-- api-diff -->\n### API changes/);
  });

  it('through npm run diff, on revisions of a temporary git repository and on its working tree', async () => {
    const repo = path.join(scratch, 'repo');
    const git = (...args: string[]) =>
      run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
    await cp(path.join(FIXTURES, 'before', 'data'), path.join(repo, 'data'), { recursive: true });
    await cp(SAMPLE_HEADERS, path.join(repo, '_headers'));
    await buildInto('before', path.join(repo, 'public'));
    await git('init', '-q');
    await git('add', '.');
    await git('commit', '-q', '-m', 'before');
    await rm(path.join(repo, 'data'), { recursive: true });
    await cp(path.join(FIXTURES, 'after', 'data'), path.join(repo, 'data'), { recursive: true });
    await buildInto('after', path.join(repo, 'public'));
    await git('add', '.');
    await git('commit', '-q', '-m', 'after');

    const npm = (...args: string[]) =>
      run('npm', ['run', '--silent', 'diff', '--', '--repo', repo, ...args], { env: cleanEnv() }).then(
        ({ stdout }) => ({ status: 0, stdout }),
        (error: { code: number; stdout: string }) => ({ status: error.code, stdout: error.stdout }),
      );
    const between = await npm('HEAD~1', 'HEAD', '--format', 'json', '--exit-code');
    expect(between.status).toBe(1);
    const report = JSON.parse(between.stdout) as Report;
    expect(report.resources[0]?.added.map((entry) => entry.id)).toEqual(['30']);
    expect(report.answers.pages.count).toEqual({ before: 10, after: 11 });

    // No side: HEAD against the working tree's build, which matches it; then an edit shows.
    expect((await npm('--exit-code')).status).toBe(0);
    await writeFile(path.join(repo, 'data/virtualfair/fairs.json'), '[]\n');
    const edited = await npm('--exit-code');
    expect(edited.status).toBe(1);
    expect(edited.stdout).toContain('virtualfair: 1 removed\n  - id 3 "Virtual Expo"');
    expect(edited.stdout).toContain('API changes from HEAD to the working tree');
  }, 60_000);

  it("builds the working tree with the settings file's base URL and page size, as npm run build does", async () => {
    const repo = path.join(scratch, 'repo-with-settings');
    const settings = { baseUrl: 'https://api.example.com/v1', pageSize: 3 };
    const git = (...args: string[]) =>
      run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
    await cp(path.join(FIXTURES, 'before', 'data'), path.join(repo, 'data'), { recursive: true });
    await cp(SAMPLE_HEADERS, path.join(repo, '_headers'));
    await writeFile(path.join(repo, 'static-api.config.json'), `${JSON.stringify(settings)}\n`);
    await buildInto('before', path.join(repo, 'public'), settings);
    await git('init', '-q');
    await git('add', '.');
    await git('commit', '-q', '-m', 'before');

    // Run from another folder: the settings file is the one of --repo.
    expect(await diff(['HEAD', '--exit-code', '--repo', repo])).toEqual({
      status: 0,
      out: 'No change in the API between HEAD and the working tree.\n',
      err: '',
    });
    const companies = path.join(repo, 'data/company/companies.json');
    await writeFile(companies, (await readFile(companies, 'utf8')).replace('"Remscheid"', '"Solingen"'));
    const edited = await diff(['HEAD', '--repo', repo]);
    expect(edited.out).toContain('"Remscheid" → "Solingen"');
    expect(edited.out).not.toContain('base URL');
    expect(edited.out).not.toContain('page');
    // A flag and a variable still win over the file.
    expect((await diff(['HEAD', '--repo', repo, '--page-size', '10'])).out).toContain('page');
    expect((await diff(['HEAD', '--repo', repo], { env: { BASE_URL: 'http://localhost:3000' } })).out).toContain(
      'base URL https://api.example.com/v1 → http://localhost:3000',
    );
  });

  it('a changed setting is a change of the API: the settings committed at the revision against the working tree', async () => {
    const repo = path.join(scratch, 'repo-settings-changed');
    const settings = { baseUrl: 'https://api.example.com', pageSize: 3 };
    const git = (...args: string[]) =>
      run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
    const config = path.join(repo, 'static-api.config.json');
    await cp(path.join(FIXTURES, 'before', 'data'), path.join(repo, 'data'), { recursive: true });
    await cp(SAMPLE_HEADERS, path.join(repo, '_headers'));
    await writeFile(config, `${JSON.stringify(settings)}\n`);
    await buildInto('before', path.join(repo, 'public'), settings);
    await git('init', '-q');
    await git('add', '.');
    await git('commit', '-q', '-m', 'before');

    // A setting that leaves every answer's bytes as they were still differs, with --exit-code too.
    await writeFile(config, `${JSON.stringify({ ...settings, targets: ['nginx'] })}\n`);
    const targetsOnly = await diff(['HEAD', '--repo', repo, '--exit-code', '--format', 'json']);
    expect(targetsOnly.status).toBe(1);
    const onlySettings = JSON.parse(targetsOnly.out) as Report;
    expect(onlySettings.identical).toBe(false);
    expect(onlySettings.settings).toEqual([{ path: 'targets', after: ['nginx'] }]);

    // A filter given to a list, and the page size: each said in the three formats.
    const changed = { ...settings, pageSize: 4, resources: { company: { filterset_fields: ['city'] } } };
    await writeFile(config, `${JSON.stringify(changed)}\n`);
    const report = JSON.parse((await diff(['HEAD', '--repo', repo, '--format', 'json'])).out) as Report;
    expect(report.settings).toEqual([
      { path: 'pageSize', before: 3, after: 4 },
      { path: 'resources', after: { company: { filterset_fields: ['city'] } } },
    ]);
    const text = (await diff(['HEAD', '--repo', repo])).out;
    expect(text).toContain(
      'settings: 2 changes\n  ~ pageSize: 3 → 4\n  + resources: {"company":{"filterset_fields":["city"]}}\n',
    );
    const markdown = (await diff(['HEAD', '--repo', repo, '--format', 'markdown'])).out;
    expect(markdown).toContain('| settings | 2 changes |');
    expect(markdown).toContain('! pageSize: 3 → 4\n+ resources: {"company":{"filterset_fields":["city"]}}\n');

    // Committed, then changed again: a value added to the list is one line.
    await git('commit', '-q', '-am', 'filters');
    await writeFile(
      config,
      `${JSON.stringify({ ...changed, resources: { company: { filterset_fields: ['city', 'country_name'] } } })}\n`,
    );
    const again = JSON.parse((await diff(['HEAD', '--repo', repo, '--format', 'json'])).out) as Report;
    expect(again.settings).toEqual([{ path: 'resources.company.filterset_fields[]', after: 'country_name' }]);
    // Two folders of built output have no settings to compare.
    expect((await diff([BEFORE, BEFORE_AGAIN, '--format', 'json'])).out).toContain('"settings": []');
  }, 60_000);
});
