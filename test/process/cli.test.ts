// scripts/cli/settings.ts and the commands as users run them: --help on every command, wrong
// values in plain words with exit status 2, and flags a command does not take refused.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, type CommandName, DEFAULTS, OPTIONS, UsageError, usage } from '../../scripts/cli/settings.ts';
import { SAMPLE_DIR } from '../fixtures/sample.ts';
import { cleanEnv, commandLine, outputArgs, readSampleSettings as readSettings } from '../unit/helpers/cli.ts';
import { builtSample } from '../unit/helpers/sample-output.ts';

/** Each command as its npm script runs it: `npm run check` is the build command with --check. */
const SCRIPTS: Record<CommandName, string[]> = {
  build: commandLine('build'),
  check: commandLine('build', ['--check']),
  serve: commandLine('serve'),
  start: commandLine('start'),
  dev: commandLine('dev'),
  import: commandLine('import'),
  verify: commandLine('verify'),
  diff: commandLine('diff'),
  'setup-git': commandLine('setup-git'),
};

/** The environment without the commands' variables: vitest sets BASE_URL (to "/") for Vite's sake. */
const ENV = cleanEnv();

function run(command: CommandName, args: string[]) {
  const result = spawnSync(process.execPath, [...SCRIPTS[command], ...args], {
    cwd: SAMPLE_DIR,
    encoding: 'utf8',
    timeout: 20_000,
    env: ENV,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('readSettings', () => {
  it('uses the defaults when nothing is given', () => {
    expect(readSettings([], {})).toMatchObject({
      dataDir: 'data',
      outDir: 'public',
      targetsDir: 'targets',
      baseUrl: DEFAULTS.baseUrl,
      baseUrlGiven: false,
      pageSize: 10,
      targets: undefined,
      check: false,
    });
    expect(readSettings([], {}, 'serve')).toMatchObject({ outDir: 'public', host: '127.0.0.1', port: 3000 });
  });

  it("gives each command its options' settings alone, and reads no other variable", () => {
    expect(Object.keys(readSettings([], {}, 'serve')).sort()).toEqual([
      'apiModule',
      'help',
      'host',
      'outDir',
      'port',
      'resources',
    ]);
    expect(Object.keys(readSettings([], {}, 'setup-git')).sort()).toEqual(['help', 'repo', 'resources']);
    expect(Object.keys(readSettings(['--check'], {}, 'check')).sort()).toEqual([
      'allowEmpty',
      'apiModule',
      'baseUrl',
      'baseUrlGiven',
      'check',
      'cloudflarePlan',
      'configPath',
      'cpuMs',
      'dataDir',
      'headersPath',
      'help',
      'pageSize',
      'resourceSettings',
      'resources',
    ]);
    // The build serves nothing: a port for another program in its environment is none of its business.
    expect(readSettings([], { PORT: 'x', HOST: '' }, 'build')).not.toHaveProperty('port');
    expect(readSettings([], { PAGE_SIZE: 'x' }, 'serve')).not.toHaveProperty('pageSize');
  });

  it('takes the environment, and flags over it', () => {
    const env = { BASE_URL: 'https://api.example.com/', PAGE_SIZE: '25', PORT: '8080', HOST: '0.0.0.0' };
    expect(readSettings([], env, 'start')).toMatchObject({
      baseUrl: 'https://api.example.com',
      baseUrlGiven: true,
      pageSize: 25,
      port: 8080,
      host: '0.0.0.0',
    });
    expect(readSettings(['--page-size', '3', '--base-url', 'http://x.example:81/api'], env)).toMatchObject({
      pageSize: 3,
      baseUrl: 'http://x.example:81/api',
    });
  });

  it('takes the settings file under the environment and the flags', () => {
    const config = path.join(mkdtempSync(path.join(os.tmpdir(), 'settings-')), 'static-api.config.json');
    writeFileSync(config, JSON.stringify({ baseUrl: 'https://service.example.com/api', pageSize: 25 }));
    expect(readSettings(['--config', config], {})).toMatchObject({
      configPath: config,
      baseUrl: 'https://service.example.com/api',
      baseUrlGiven: false,
      pageSize: 25,
    });
    expect(readSettings(['--config', config], { PAGE_SIZE: '7' }).pageSize).toBe(7);
    expect(readSettings(['--config', config, '--page-size', '3'], { PAGE_SIZE: '7' }).pageSize).toBe(3);
    // npm start and dev link to the origin they serve unless a flag or variable says otherwise.
    expect(readSettings(['--config', config], {}, 'start').baseUrlGiven).toBe(false);
    expect(readSettings(['--config', path.join(path.dirname(config), 'absent.json')], {}).pageSize).toBe(10);
  });

  it.each([
    [{ pageSize: 'ten' }, 'pageSize in CONFIG must be a whole number of at least 1, got "ten"'],
    [{ pageSize: 0 }, 'pageSize in CONFIG must be a whole number of at least 1, got "0"'],
    [{ baseUrl: 'example.com' }, 'baseUrl in CONFIG must be an absolute http(s) URL'],
    [
      { page_size: 5 },
      'CONFIG:1:2 #/page_size: unexpected setting "page_size"; did you mean "pageSize"? (expected baseUrl, pageSize, targets, cloudflarePlan, cpuMs, reference, precompress, allowEmpty, apiModule or resources)',
    ],
    [[1], 'CONFIG: expected an object'],
  ])('refuses the settings file %j', (contents, message) => {
    const config = path.join(mkdtempSync(path.join(os.tmpdir(), 'settings-')), 'static-api.config.json');
    writeFileSync(config, JSON.stringify(contents));
    expect(() => readSettings(['--config', config], {})).toThrow(message.replace('CONFIG', config));
  });

  it("places a problem of the settings file at its line and column, as a data file's, with the fix", () => {
    const config = path.join(mkdtempSync(path.join(os.tmpdir(), 'settings-')), 'static-api.config.json');
    const refused = (text: string) => {
      writeFileSync(config, text);
      try {
        readSettings(['--config', config], {});
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused('{\n  "baseUrl": "https://api.example.com",\n  "page_size": 5\n}\n')).toBe(
      `${config}:3:3 #/page_size: unexpected setting "page_size"; did you mean "pageSize"? (expected baseUrl, pageSize, targets, cloudflarePlan, cpuMs, reference, precompress, allowEmpty, apiModule or resources)`,
    );
    // A missing comma: on the line of the value that lacks it, right after that value.
    expect(refused('{\n  "baseUrl": "https://api.example.com"\n  "pageSize": 5\n}\n')).toBe(
      `${config}:2:39: malformed JSON: a comma is missing here, after the value before it`,
    );
    expect(refused('{"pageSize": 5,}')).toBe(`${config}:1:16: malformed JSON: property name expected`);
    expect(refused('{"pageSize": 5, "pageSize": 6}')).toMatch(
      /#\/pageSize: duplicate key "pageSize" at line 1, column 17, first at line 1, column 2/,
    );
  });

  it('needs --from for import and --against for verify, as absolute URLs', () => {
    expect(() => readSettings([], {}, 'import')).toThrow('--from is required');
    expect(() => readSettings([], {}, 'verify')).toThrow('--against is required');
    expect(readSettings(['--from', 'http://127.0.0.1:8000/api'], {}, 'import').from).toBe('http://127.0.0.1:8000/api/');
    expect(() => readSettings(['--against', 'example.com'], {}, 'verify')).toThrow(
      '--against must be an absolute http(s) URL',
    );
    expect(() => readSettings(['--from', 'http://x.example/'], {}, 'build')).toThrow(
      '--from does not apply to npm run build',
    );
  });

  it('reads --target as a comma-separated list, "all" as every target', () => {
    expect(readSettings(['--target', 'nginx,caddy'], {}).targets).toEqual(['nginx', 'caddy']);
    expect(readSettings(['--target', 'all'], {}).targets).toBeUndefined();
  });

  it('is in check mode for npm run check', () => {
    expect(readSettings(['--check'], {}, 'check').check).toBe(true);
  });

  it.each([
    [['--page-size', 'abc'], {}, '--page-size must be a whole number of at least 1, got "abc"'],
    [['--page-size', '0'], {}, '--page-size must be a whole number of at least 1, got "0"'],
    [['--page-size', '2.5'], {}, '--page-size must be a whole number of at least 1, got "2.5"'],
    [[], { PAGE_SIZE: '' }, 'PAGE_SIZE must be a whole number of at least 1, got ""'],
    [['--port', '70000'], {}, '--port must be a whole number from 0 to 65535, got "70000"', 'serve'],
    [[], { PORT: 'x' }, 'PORT must be a whole number from 0 to 65535, got "x"', 'serve'],
    [
      ['--base-url', 'ftp://example.com'],
      {},
      '--base-url must be an absolute http(s) URL without query or fragment, such as https://api.example.com, got "ftp://example.com"',
    ],
    [
      [],
      { BASE_URL: 'https://example.com/?x=1' },
      'BASE_URL must be an absolute http(s) URL without query or fragment, such as https://api.example.com, got "https://example.com/?x=1"',
    ],
    [['--target', 'foo'], {}, '--target must name deploy targets among cloudflare-workers, '],
    [
      ['--target', 'github-pages'],
      {},
      '--target github-pages is refused: GitHub Pages cannot route on the query string',
    ],
    [
      ['--target', 's3-website'],
      {},
      '--target s3-website is refused: an S3 website endpoint cannot route on the query',
    ],
    [['--data', ''], {}, '--data must not be empty'],
    [['--out'], {}, '--out needs a value: --out <dir>'],
    [['--out', '--check'], {}, '--out needs a value: --out <dir>'],
    [['--target', 'ngnix'], {}, '--target must name deploy targets among cloudflare-workers, '],
    [['--target', 'caddy,ngnix'], {}, 'got "ngnix"; did you mean nginx?'],
    [['--nope'], {}, 'npm run build has no option --nope'],
    [['--page-sise', '5'], {}, 'npm run build has no option --page-sise; did you mean --page-size?'],
    [['--prot', '8080'], {}, 'npm start has no option --prot; did you mean --port?', 'start'],
    [['--prot', '8080'], {}, 'npm run build has no option --prot', 'build'],
    [['--port', '3001'], {}, '--port does not apply to npm run build'],
    [['--out', 'x'], {}, '--out does not apply to npm run check', 'check'],
    [['--check'], {}, '--check does not apply to npm run serve', 'serve'],
    [['--target', 'nginx'], {}, '--target does not apply to npm run serve', 'serve'],
  ] as Array<[string[], NodeJS.ProcessEnv, string, CommandName?]>)('refuses %j %j', (argv, env, message, command) => {
    expect(() => readSettings(argv, env, command)).toThrow(UsageError);
    expect(() => readSettings(argv, env, command)).toThrow(message);
  });
});

describe('flags npm took as its own config (no -- before them)', () => {
  it.each([
    // `npm run build --page-size=5`: npm keeps the flag and its value in its environment.
    [[], { npm_config_page_size: '5' }, 'build', 'npm run build -- --page-size 5'],
    // `npm run build --page-size 5`: the flag alone, its value passed on as an argument.
    [['5'], { npm_config_page_size: 'true' }, 'build', 'npm run build -- --page-size 5'],
    [['--out', 'x'], { npm_config_check: 'true' }, 'build', 'npm run build -- --check --out x'],
    [
      [],
      { npm_config_base_url: 'https://api.example.com/a b' },
      'start',
      "npm start -- --base-url 'https://api.example.com/a b'",
    ],
    [
      ['nginx', 'x'],
      { npm_config_target: 'true', npm_config_out: 'true' },
      'build',
      'npm run build -- --out <dir> --target <names>',
    ],
    [['main', 'markdown'], { npm_config_format: 'true' }, 'diff', 'npm run diff -- --format <format>'],
    [[], { npm_config_data: 'd' }, 'check', 'npm run check -- --data d'],
  ] as Array<[string[], NodeJS.ProcessEnv, CommandName, string]>)(
    '%j %j: %s stops with the line that works',
    (argv, env, command, line) => {
      expect(() => readSettings(argv, env, command)).toThrow(UsageError);
      expect(() => readSettings(argv, env, command)).toThrow(
        /^npm took --[\w-]+( and --[\w-]+)? as its own (setting|settings), so the command never got (it|them): put the command's flags after --, as in: /,
      );
      expect(() => readSettings(argv, env, command)).toThrow(
        new RegExp(`: ${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
      );
    },
  );

  it("ignores npm's own config and the options of other commands", () => {
    expect(readSettings([], { npm_config_cache: '/tmp/npm', npm_config_port: '1' }, 'build').pageSize).toBe(10);
  });

  it('as npm runs it: npm run build --page-size=5 stops, exit 2, with the line that works', () => {
    const result = spawnSync('npm', ['run', '--silent', 'build', '--page-size=5', '--', '--check'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: ENV,
    });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      "npm took --page-size as its own setting, so the command never got it: put the command's flags after --, as in: npm run build -- --page-size 5 --check\n",
    );
  });
});

describe('usage', () => {
  it('leaves at least two spaces between every flag and its meaning', () => {
    for (const name of Object.keys(COMMANDS) as CommandName[]) {
      for (const line of usage(name)
        .split('\n')
        .filter((row) => row.startsWith('  -'))) {
        expect(line).toMatch(/^ {2}(?:-h, --help|--[\w-]+(?: <[^>]+>)?) {2,}\S/);
      }
    }
  });

  it.each(Object.keys(COMMANDS) as CommandName[])(
    'names what %s does, its options with defaults and an example',
    (name) => {
      const text = usage(name);
      expect(text).toContain(COMMANDS[name].summary);
      expect(text).toContain(`Example: ${COMMANDS[name].example}`);
      for (const option of COMMANDS[name].options)
        expect(text).toMatch(new RegExp(`^  --${option}\\b.*default: `, 'm'));
    },
  );
});

describe('the commands', () => {
  it.each(Object.keys(COMMANDS) as CommandName[])('%s: --help and -h print the usage and exit 0', (name) => {
    for (const flag of ['--help', '-h']) {
      const { status, stdout } = run(name, [flag]);
      expect(status).toBe(0);
      expect(stdout.trim()).toBe(usage(name));
    }
  });

  it('a wrong value: one plain line and a pointer to --help, exit 2', () => {
    const { status, stderr } = run('build', ['--page-size', 'abc']);
    expect(status).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([
      '--page-size must be a whole number of at least 1, got "abc"',
      'See `npm run build -- --help`.',
    ]);
  });

  it('a problem of the settings file: its place and the fix, and no pointer to --help, which describes the flags', () => {
    const config = path.join(mkdtempSync(path.join(os.tmpdir(), 'settings-')), 'static-api.config.json');
    writeFileSync(config, '{\n  "pagesize": 5\n}\n');
    const { status, stderr } = run('build', ['--config', config, '--check']);
    expect(status).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([
      `${config}:2:3 #/pagesize: unexpected setting "pagesize"; did you mean "pageSize"? (expected baseUrl, pageSize, targets, cloudflarePlan, cpuMs, reference, precompress, allowEmpty, apiModule or resources)`,
    ]);
  });

  it('a flag that does not apply is refused, not ignored', () => {
    const serve = run('serve', ['--check']);
    expect(serve.status).toBe(2);
    expect(serve.stderr).toContain('--check does not apply to npm run serve');
    const check = run('check', ['--target', 'nginx']);
    expect(check.status).toBe(2);
    expect(check.stderr).toContain('--target does not apply to npm run check');
  });
});

/** A port nothing listens on now (the kernel's pick, released at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describe('npm run serve', () => {
  /** The sample's build, public/ in this folder: what serve serves by default when run there. */
  let sampleProject: string;
  beforeAll(async () => {
    sampleProject = path.dirname(await builtSample());
  });

  /** Starts the server on a free port; resolves with its banner once it listens, and a stop function. */
  function serve(args: string[]): Promise<{ banner: string; stderr: string; stop: () => void }> {
    const child = spawn(process.execPath, [...SCRIPTS.serve, '--port', '0', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      cwd: sampleProject,
      env: ENV,
    });
    const stop = () => child.kill();
    return new Promise((resolve, reject) => {
      let stderr = '';
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`no banner in 15 s: ${stderr}`));
      }, 15_000);
      child.stderr.setEncoding('utf8').on('data', (text: string) => {
        stderr += text;
        const banner = /^Serving .*$/m.exec(stderr)?.[0];
        if (banner) {
          clearTimeout(timer);
          resolve({ banner, stderr, stop });
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`exited with ${code}: ${stderr}`));
      });
    });
  }

  it.each([['127.0.0.1'], ['::1']])('names the address it really listens on (%s), and answers there', async (host) => {
    const { banner, stop } = await serve(['--host', host]);
    try {
      const url = /^Serving public\/ at (http:\/\/\S+)$/.exec(banner)?.[1];
      expect(url, banner).toMatch(host === '::1' ? /^http:\/\/\[::1\]:\d+$/ : /^http:\/\/127\.0\.0\.1:\d+$/);
      const answer = await fetch(`${url}/company/`);
      expect(answer.status).toBe(200);
    } finally {
      stop();
    }
  });

  it('says when the page links name another origin than the one it serves', async () => {
    const { stderr, stop } = await serve([]);
    stop();
    expect(stderr).toMatch(
      /^Serving public\/ at http:\/\/127\.0\.0\.1:\d+\nIts page links name http:\/\/localhost:3000, the base URL it was built with; npm start builds and serves one for this address\.$/m,
    );
    // Built for the address it is served at: nothing to say.
    const port = await freePort();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'serve-links-'));
    const build = spawnSync(
      process.execPath,
      [...SCRIPTS.build, ...outputArgs(dir), '--target', 'nginx', '--base-url', `http://127.0.0.1:${port}`],
      { cwd: SAMPLE_DIR, encoding: 'utf8', env: ENV, timeout: 60_000 },
    );
    expect(build.status, build.stderr).toBe(0);
    const own = await serve(['--out', path.join(dir, 'public'), '--port', String(port)]);
    own.stop();
    expect(own.stderr).toContain(`Serving ${path.join(dir, 'public')}/ at http://127.0.0.1:${port}`);
    expect(own.stderr).not.toContain('Its page links');
  });
});

describe("the README's settings table", () => {
  it('lists every option as --help does: flag, variable, default and meaning', () => {
    const readme = readFileSync('README.md', 'utf8');
    const section = readme.slice(
      readme.indexOf('## Settings'),
      readme.indexOf('\n## ', readme.indexOf('## Settings') + 1),
    );
    const rows = section
      .split('\n')
      .filter((line) => line.startsWith('| `--'))
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim().replaceAll('`', '')),
      );
    const expected = Object.values(OPTIONS).map((option) => [
      'value' in option ? `${option.flag} ${option.value}` : option.flag,
      'variable' in option ? option.variable : '',
      option.default,
      option.description,
    ]);
    expect(rows).toEqual(expected);
  });
});

describe("the README's problem report", () => {
  it('is what the build prints for the fixture it names (test/fixtures/broken/*/expected.txt, checked against the build)', () => {
    const readme = readFileSync('README.md', 'utf8');
    const block = readme.slice(
      readme.indexOf('$ npm run check'),
      readme.indexOf('```', readme.indexOf('$ npm run check')),
    );
    const shown = block.split('\n').filter((line) => line.startsWith('data/'));
    const expected = readFileSync('test/fixtures/broken/several-errors-in-several-files/expected.txt', 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('data/'));
    expect(shown.length).toBeGreaterThan(3);
    expect(shown).toEqual(expected);
  });
});

describe("the README's dependency table", () => {
  it('names in its first column only packages package.json holds, and says where the others come from', () => {
    const readme = readFileSync('README.md', 'utf8');
    const start = readme.indexOf('## Dependencies');
    const end = readme.indexOf('\n## ', start + 1);
    const section = readme.slice(start, end === -1 ? undefined : end);
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, Record<string, string>>;
    const held = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})]);
    const rows = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| package'));
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) {
      const first = row.split('|')[1]?.trim() ?? '';
      // A system program is said to be one.
      if (first.includes("the system's")) continue;
      const names = first
        .split(/,\s*|\s+and\s+/)
        .map((name) => name.replace(/\s*\(.*\)$/, '').trim())
        .filter((name) => /^@?[a-z0-9][\w./-]*$/.test(name));
      for (const name of names) expect(held, `${name} is not in package.json`).toContain(name);
    }
    // The test tools package.json does not hold, with the command that installs them.
    expect(section).toMatch(/`npm run setup:targets` installs: netlify-cli/);
  });
});
