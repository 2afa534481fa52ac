// No stack trace reaches a user: `npm run build`, `check`, `serve` and `start`, run as real
// processes, end each input or environment problem with one line and exit status 1; every
// command's usage error and refused input end through the same mapping (cli/fail.ts); an
// unexpected internal error asks for a bug report in one line, with the stack only under
// DEBUG=1 or --debug.

import { spawnSync } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataErrors } from '../../scripts/builder/pipeline/errors.ts';
import { failureOf, userMessage } from '../../scripts/cli/fail.ts';
import { UsageError } from '../../scripts/cli/settings.ts';
import { RefusedInput } from '../../scripts/shared/errors.ts';
import { OutputError } from '../../scripts/shared/write.ts';
import { LimitsError } from '../../scripts/targets/limits.ts';
import { cleanEnv, GOOD_DATA, hasStackTrace, outputArgs, ROOT, runCommand, startCommand } from '../unit/helpers/cli.ts';
import { builtSample } from '../unit/helpers/sample-output.ts';
import { tempDirs } from '../unit/helpers/tree.ts';

const tempDir = tempDirs('cli-errors-');

/** Checks the one-line failure with exit status 1 and returns that line. */
function oneLine(result: { code: number | null; stderr: string; stdout: string }): string {
  expect(result.code, result.stderr).toBe(1);
  expect(hasStackTrace(result.stderr), result.stderr).toBe(false);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  return lines[lines.length - 1] as string;
}

let busy: http.Server;
let busyPort: number;

beforeAll(async () => {
  busy = http.createServer((_req, res) => res.end());
  await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done));
  busyPort = (busy.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((done) => busy.close(done));
});

describe('npm run build and check', () => {
  it.each(['build', 'check'])('%s: a missing data folder', async (command) => {
    const dir = await tempDir();
    const args = [
      '--data',
      path.join(dir, 'nope'),
      ...(command === 'check' ? ['--check'] : ['--out', path.join(dir, 'public')]),
    ];
    const result = await runCommand('build', args);
    expect(oneLine(result)).toMatch(/problem.* in the source data; (nothing was written|.* was left as it was)\.$/);
    expect(result.stderr).toContain(`${path.join(dir, 'nope')}: the data folder does not exist\n`);
  });

  it('a data folder that is a file', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'data'), '');
    const result = await runCommand('build', ['--data', path.join(dir, 'data'), '--check']);
    expect(result.stderr).toContain(`${path.join(dir, 'data')}: a file, expected a folder holding the source data\n`);
  });

  it('a missing _headers file', async () => {
    const dir = await tempDir();
    const result = await runCommand('build', ['--data', GOOD_DATA, '--check', '--headers', path.join(dir, 'nope')]);
    expect(oneLine(result)).toMatch(
      new RegExp(`${path.join(dir, 'nope')}.*(no such file|not found|does not exist)`, 'i'),
    );
  });

  it('an unreadable _headers file (a folder)', async () => {
    const dir = await tempDir();
    const result = await runCommand('build', ['--data', GOOD_DATA, '--check', '--headers', dir]);
    expect(oneLine(result)).toContain(dir);
  });

  it('an output folder that cannot be written (a file in the way)', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'out'), '');
    const result = await runCommand('build', ['--data', GOOD_DATA, '--out', path.join(dir, 'out/public')]);
    expect(oneLine(result)).toMatch(/^cannot write .*out: a file is in the way of the folder \(EEXIST\)/);
  });
});

describe('npm run build on a data folder without a record', () => {
  /** A data folder whose resource folders hold `kept` of the good fixture's files, and nothing else. */
  async function dataWith(dir: string, kept: string[]): Promise<string> {
    const data = path.join(dir, 'data');
    for (const folder of ['company', 'virtualfair', 'event', 'virtualbooth-texture'])
      await mkdir(path.join(data, folder), { recursive: true });
    for (const file of kept) await cp(path.join(GOOD_DATA, file), path.join(data, file));
    return data;
  }

  it('stops, leaving public/ as it was, unless told an empty API is meant (a flag or the settings file)', async () => {
    const dir = await tempDir();
    const config = path.join(dir, 'config.json');
    const build = (more: string[] = []) =>
      runCommand('build', ['--data', path.join(dir, 'data'), '--config', config, ...outputArgs(dir), ...more]);
    await cp(GOOD_DATA, path.join(dir, 'data'), { recursive: true });
    expect((await build()).code).toBe(0);
    const before = await readFile(path.join(dir, 'public', 'company', 'index.json'), 'utf8');
    await rm(path.join(dir, 'data'), { recursive: true });
    const data = await dataWith(dir, []);

    const stopped = await build();
    expect(oneLine(stopped)).toBe(`1 problem in the source data; ${path.join(dir, 'public')}/ was left as it was.`);
    expect(stopped.stderr).toContain(
      `${data}: no record in any of the folders company/, virtualfair/, event/, virtualbooth-texture/, which would build an API of empty lists; add records, or give --allow-empty (or "allowEmpty": true in the settings file) if that is what is meant\n`,
    );
    expect(await readFile(path.join(dir, 'public', 'company', 'index.json'), 'utf8')).toBe(before);
    expect((await runCommand('build', ['--data', data, '--config', config, '--check'])).code).toBe(1);

    const flagged = await build(['--allow-empty']);
    expect(flagged.code, flagged.stderr).toBe(0);
    expect(await readFile(path.join(dir, 'public', 'company', 'index.json'), 'utf8')).toBe('[]');
    await writeFile(config, JSON.stringify({ allowEmpty: true }));
    expect((await runCommand('build', ['--data', data, '--config', config, '--check'])).code).toBe(0);
    await writeFile(config, JSON.stringify({ allowEmpty: 'yes' }));
    expect((await build()).stderr).toContain(`allowEmpty in ${config} must be true or false, got "yes"`);
  });

  it('builds a list without a record among others, as DRF answers one', async () => {
    const dir = await tempDir();
    const data = await dataWith(dir, ['company/companies.json']);
    const run = await runCommand('build', ['--data', data, '--check', '--config', path.join(dir, 'none.json')]);
    expect(run.code, run.stderr).toBe(0);
  });
});

describe('npm run serve and npm start', () => {
  it('serve: a missing output folder', async () => {
    const dir = await tempDir();
    const result = await runCommand('serve', ['--out', path.join(dir, 'public'), '--port', '0']);
    expect(oneLine(result)).toBe(`${path.join(dir, 'public')}/ does not exist: build it first with \`npm run build\``);
  });

  it('serve: a folder that is not a build output (no _headers)', async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, 'public'));
    const result = await runCommand('serve', ['--out', path.join(dir, 'public'), '--port', '0']);
    expect(oneLine(result)).toMatch(/has no _headers file, so it is not a build output/);
  });

  it('serve: an unreadable _headers (a folder)', async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, 'public/_headers'), { recursive: true });
    const result = await runCommand('serve', ['--out', path.join(dir, 'public'), '--port', '0']);
    expect(oneLine(result)).toMatch(/^cannot read .*_headers: .*\(EISDIR\)$/);
  });

  it('serve: the port is in use (EADDRINUSE)', async () => {
    const result = await runCommand('serve', ['--out', await builtSample(await tempDir()), '--port', String(busyPort)]);
    expect(oneLine(result)).toBe(
      `cannot listen on 127.0.0.1 port ${busyPort}: it is in use; stop the other server or choose another --port`,
    );
  });

  it('serve: an address this machine does not have (EADDRNOTAVAIL)', async () => {
    const result = await runCommand('serve', [
      '--out',
      await builtSample(await tempDir()),
      '--host',
      '192.0.2.1',
      '--port',
      '0',
    ]);
    expect(oneLine(result)).toMatch(
      /^cannot listen on 192\.0\.2\.1( port 0)?: this machine has no such address; check --host$/,
    );
  });

  it('start: the port is in use, said before any build', async () => {
    const result = await runCommand('start', ['--data', GOOD_DATA, '--port', String(busyPort)]);
    expect(oneLine(result)).toMatch(/^cannot listen on 127\.0\.0\.1 port \d+: it is in use/);
  });

  it('a permission denied on a port (EACCES), as the message of a listen error (a test double: root may bind any port)', () => {
    const error = Object.assign(new Error('listen EACCES: permission denied 127.0.0.1:80'), {
      code: 'EACCES',
      syscall: 'listen',
      address: '127.0.0.1',
      port: 80,
    });
    expect(userMessage(error)).toBe(
      'cannot listen on 127.0.0.1 port 80: permission denied (ports below 1024 need privileges); choose another --port',
    );
  });
});

describe('an unexpected internal error', () => {
  /** A real process whose command body throws a plain error, through the commands' wrapper. */
  function crash(env: Record<string, string>, args: string[] = []) {
    const script = `import { runCommand } from ${JSON.stringify(path.join(ROOT, 'scripts/cli/fail.ts'))};
await runCommand(async () => { throw new TypeError('cannot read properties of undefined'); });`;
    return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, ...args], {
      cwd: ROOT,
      env: cleanEnv(env),
      encoding: 'utf8',
    });
  }

  it('prints one line asking for a bug report, without the stack', () => {
    const result = crash({});
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe(
      'internal error: cannot read properties of undefined. This is a bug: please report it with the command you ran (DEBUG=1 or --debug shows the stack).',
    );
  });

  it.each([['false'], ['0'], ['']])('prints no stack with DEBUG=%j', (value) => {
    const result = crash({ DEBUG: value });
    expect(result.stderr).toMatch(/^internal error: /);
    expect(hasStackTrace(result.stderr)).toBe(false);
  });

  it.each([
    ['DEBUG=1', { DEBUG: '1' }, []],
    ['--debug', {}, ['--', '--debug']],
  ])('prints the stack with %s', (_label, env, args) => {
    const result = crash(env, args);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^internal error: cannot read properties of undefined\. This is a bug/);
    expect(hasStackTrace(result.stderr)).toBe(true);
  });
});

describe('a request the local server fails to answer', () => {
  /** Serves an output missing its company list; returns what the server printed on the 500. */
  async function failedRequest(env: Record<string, string>): Promise<string> {
    const dir = await tempDir();
    const built = await runCommand('build', ['--data', GOOD_DATA, ...outputArgs(dir), '--target', 'nginx']);
    expect(built.code, built.stderr).toBe(0);
    await rm(path.join(dir, 'public/company/index.json'));
    const child = startCommand('serve', ['--out', path.join(dir, 'public'), '--port', '0'], { env });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    try {
      const deadline = Date.now() + 15_000;
      while (!/ at (http:\S+)/.test(stderr) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const url = / at (http:\S+)/.exec(stderr)?.[1];
      expect(url, stderr).toBeDefined();
      expect((await fetch(`${url}/company/`)).status).toBe(500);
      while (!stderr.includes('internal error') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      // A stack, when printed, follows the line at once.
      await new Promise((r) => setTimeout(r, 100));
      return stderr;
    } finally {
      child.kill();
    }
  }

  it('prints one line, and the stack only when DEBUG asks for it (DEBUG=false does not)', async () => {
    const quiet = await failedRequest({ DEBUG: 'false' });
    expect(quiet).toMatch(/^internal error answering .*\(please report it\)$/m);
    expect(hasStackTrace(quiet)).toBe(false);
    expect(hasStackTrace(await failedRequest({ DEBUG: '1' }))).toBe(true);
  }, 60_000);
});

describe('every command through the one mapping of an error (cli/fail.ts)', () => {
  it.each([
    ['build', 'npm run build'],
    ['serve', 'npm run serve'],
    ['start', 'npm start'],
    ['dev', 'npm run dev'],
    ['import', 'npm run import'],
    ['verify', 'npm run verify'],
    ['setup-git', 'npm run setup-git'],
  ] as const)(
    '%s: a flag it does not take is exit status 2, the message and where the help is',
    async (command, name) => {
      const result = await runCommand(command, ['--no-such-flag']);
      expect(result.code, result.stderr).toBe(2);
      expect(hasStackTrace(result.stderr)).toBe(false);
      expect(result.stderr.trim().split('\n').at(-1)).toBe(`See \`${name} -- --help\`.`);
    },
  );

  it('diff: a flag it does not take is exit status 2 and one line named after it', async () => {
    const result = await runCommand('diff', ['--no-such-flag']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^diff: .*no-such-flag.* \(see --help\)\n$/);
  });

  it('diff: the working tree with data problems is exit status 2, the problems, then what was not done', async () => {
    const repo = await tempDir();
    spawnSync('git', ['init', '-q', repo]);
    await mkdir(path.join(repo, 'data', 'company'), { recursive: true });
    await writeFile(path.join(repo, 'data', 'company', 'broken.json'), '[{"id": 1}');
    await writeFile(path.join(repo, '_headers'), '/*\n  Content-Type: application/json\n');
    const result = await runCommand('diff', [await builtSample(await tempDir()), '--repo', repo]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`${path.join('data', 'company', 'broken.json')}`);
    expect(result.stderr).toMatch(/\ndiff: \d+ problems? in the source data; nothing was compared\.\n$/);
  });

  it('setup-git: a folder that is no git work tree is exit status 2 and git’s own words, named after it', async () => {
    const dir = await tempDir();
    const result = await runCommand('setup-git', ['--repo', dir], {
      env: { GIT_CEILING_DIRECTORIES: path.dirname(dir) },
    });
    expect(result.code, result.stderr).toBe(2);
    expect(hasStackTrace(result.stderr)).toBe(false);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^setup-git: fatal: .*git repository\n$/);
  });

  it('maps each kind of error to its lines and status, for a command that ends and for one that goes on', () => {
    const usage = Object.assign(new UsageError('--port must be a whole number'), { command: 'start' as const });
    expect(failureOf(usage)).toEqual({
      lines: ['--port must be a whole number', 'See `npm start -- --help`.'],
      status: 2,
      kind: 'usage',
    });
    expect(failureOf(new UsageError('--format must be one of text'), { command: 'diff' })).toMatchObject({
      lines: ['diff: --format must be one of text (see --help)'],
      status: 2,
    });
    expect(failureOf(new RefusedInput('"x" is no side'), { command: 'diff' }).lines).toEqual(['diff: "x" is no side']);
    const problems = new DataErrors([{ file: 'data/company/a.json', message: 'not JSON' } as never]);
    const data = failureOf(problems, { command: 'verify', left: 'nothing was verified' });
    expect(data.status).toBe(1);
    expect(data.lines.slice(-2)).toEqual(['', `${problems.message}; nothing was verified.`]);
    expect(failureOf(problems, { command: 'diff', left: 'nothing was compared' }).status).toBe(2);
    expect(failureOf(new LimitsError(['netlify: too big']))).toMatchObject({
      lines: ['netlify: too big', '', 'The chosen targets cannot take this build; nothing was written.'],
      status: 1,
    });
    const output = new OutputError('public', 'public/a.json', 'EACCES');
    expect(failureOf(output).lines).toEqual([`${output.message}; public/ was left as it was.`]);
    const goesOn = { command: 'dev' as const, left: 'the last good build is still served', goesOn: true };
    expect(failureOf(output, goesOn).lines).toEqual([`${output.message}; the last good build is still served.`]);
    expect(failureOf(new UsageError('bad settings'), goesOn).lines).toEqual([
      'bad settings; the last good build is still served.',
    ]);
    const missing = Object.assign(new Error('ENOENT'), { code: 'ENOENT', path: '_headers' });
    expect(failureOf(missing)).toEqual({
      lines: ['_headers: no such file or folder (ENOENT)'],
      status: 1,
      kind: 'environment',
    });
    expect(failureOf(new TypeError('x is undefined'), { command: 'diff' })).toMatchObject({
      lines: [expect.stringMatching(/^diff: internal error: x is undefined\. This is a bug/)],
      status: 2,
      kind: 'bug',
    });
  });
});
