// `npm run setup:targets`: installs what some tests run that `npm install` does not bring (see
// installed.ts), and is the only command that installs anything on the system; `npm test` skips
// a target whose program is missing. Run by .ci/run before `npm test`.
//
// - netlify-cli, from the lockfile in .ci/netlify-cli/, into node_modules/.cache/netlify-cli/
//   (ignored by git, and emptied by `npm ci`, so run this after it). It is kept out of the
//   project's own dependencies: its peer dependencies (@opentelemetry/api) conflict with the
//   project's, and it is 420 MB that only one target needs. Needs no root.
// - The web servers of the self-hosted targets (with nginx's brotli_static module), and gunicorn
//   with Django, Django REST framework and django-filter for the DRF service tests, PostgreSQL and
//   psycopg2 for the service's database in the filters' differential test, and Chromium for the
//   reference page's browser test, from Debian's packages through apt-get, as root or with sudo. Elsewhere
//   it says what to install and fails, as it does when apt-get cannot be used.
//
// Each is installed only when missing, so a second run changes nothing.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPostgres, findProgram } from './installed.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const NETLIFY_SOURCE = path.join(ROOT, '.ci/netlify-cli');
const NETLIFY_DEST = path.join(ROOT, 'node_modules/.cache/netlify-cli');

interface SystemNeed {
  what: string;
  installed: () => boolean;
  /** Debian's package; the first that apt-cache knows is installed. */
  debian: readonly string[];
  /** Elsewhere, for the message: Homebrew's formula, or the package for python3's pip. */
  elsewhere: { brew: string } | { pip: string };
  /** Installed on Debian only: elsewhere the tests do without it (nginx then sends gzip, not br). */
  debianOnly?: true;
}

/** Whether nginx has the dynamic module `file` in the modules folder it was built with. */
function nginxModule(file: string): () => boolean {
  return () => {
    const nginx = findProgram(['nginx']);
    if (!nginx) return false;
    const built = spawnSync(nginx, ['-V'], { encoding: 'utf8' });
    const modules = /--modules-path=(\S+)/.exec(`${built.stderr}${built.stdout}`)?.[1];
    return modules !== undefined && existsSync(path.join(modules, file));
  };
}

/**
 * The Python that gunicorn runs, from its first line (`#!/usr/bin/python3` from Debian's package):
 * Django must be importable there, which another python3 first on the PATH (pyenv's) may not see.
 */
function gunicornPython(): string {
  const gunicorn = findProgram(['gunicorn']);
  const shebang = gunicorn && /^#!\s*(\S+)(?:[ \t]+(\S+))?/.exec(readFileSync(gunicorn, 'latin1').slice(0, 200));
  if (!shebang?.[1]) return 'python3';
  return path.basename(shebang[1]) === 'env' && shebang[2] ? shebang[2] : shebang[1];
}

function pythonImports(module: string): () => boolean {
  return () => spawnSync(gunicornPython(), ['-c', `import ${module}`], { stdio: 'ignore' }).status === 0;
}

const SYSTEM: readonly SystemNeed[] = [
  // nginx-light is enough (core, rewrite, headers); releases without that flavour have nginx.
  {
    what: 'nginx',
    installed: () => !!findProgram(['nginx']),
    debian: ['nginx-light', 'nginx'],
    elsewhere: { brew: 'nginx' },
  },
  // nginx's br answers (targets/nginx/brotli.conf); test/e2e/targets/nginx.ts loads it when present.
  {
    what: "nginx's brotli_static module",
    installed: nginxModule('ngx_http_brotli_static_module.so'),
    debian: ['libnginx-mod-http-brotli-static'],
    elsewhere: { brew: 'nginx' },
    debianOnly: true,
  },
  { what: 'Caddy', installed: () => !!findProgram(['caddy']), debian: ['caddy'], elsewhere: { brew: 'caddy' } },
  // The API reference page's browser test (test/browser/); Playwright cannot download its own here.
  {
    what: 'Chromium',
    installed: () => !!findProgram(['chromium']),
    debian: ['chromium'],
    elsewhere: { brew: 'chromium' },
  },
  {
    what: 'Apache httpd',
    installed: () => !!findProgram(['apache2', 'httpd']),
    debian: ['apache2'],
    elsewhere: { brew: 'httpd' },
  },
  {
    what: 'gunicorn',
    installed: () => !!findProgram(['gunicorn']),
    debian: ['gunicorn'],
    elsewhere: { pip: 'gunicorn' },
  },
  { what: 'Django', installed: pythonImports('django'), debian: ['python3-django'], elsewhere: { pip: 'django' } },
  {
    what: 'Django REST framework',
    installed: pythonImports('rest_framework'),
    debian: ['python3-djangorestframework'],
    elsewhere: { pip: 'djangorestframework' },
  },
  {
    what: 'django-filter',
    installed: pythonImports('django_filters'),
    debian: ['python3-django-filters'],
    elsewhere: { pip: 'django-filter' },
  },
  // The service's database in the filters' differential test: the server's programs (initdb,
  // pg_ctl), which Debian keeps out of the PATH, and Django's driver for it.
  {
    what: 'PostgreSQL',
    installed: () => findPostgres() !== undefined,
    debian: ['postgresql'],
    elsewhere: { brew: 'postgresql@15' },
  },
  {
    what: 'psycopg2',
    installed: pythonImports('psycopg2'),
    debian: ['python3-psycopg2'],
    elsewhere: { pip: 'psycopg2' },
  },
];

function say(line: string): void {
  console.log(`setup:targets: ${line}`);
}

function run(command: string, args: readonly string[], cwd = ROOT): void {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${[command, ...args].join(' ')} exited with ${result.status}`);
}

function installedNetlifyVersion(): string | undefined {
  if (!findProgram([path.join(NETLIFY_DEST, 'node_modules/.bin/netlify')])) return undefined;
  try {
    const manifest = path.join(NETLIFY_DEST, 'node_modules/netlify-cli/package.json');
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  } catch {
    return undefined;
  }
}

function setUpNetlifyCli(): void {
  const manifest = JSON.parse(readFileSync(path.join(NETLIFY_SOURCE, 'package.json'), 'utf8'));
  const version = manifest.dependencies['netlify-cli'] as string;
  if (installedNetlifyVersion() === version) {
    say(`netlify-cli ${version} is already installed`);
    return;
  }
  rmSync(NETLIFY_DEST, { recursive: true, force: true });
  mkdirSync(NETLIFY_DEST, { recursive: true });
  for (const file of ['package.json', 'package-lock.json'])
    copyFileSync(path.join(NETLIFY_SOURCE, file), path.join(NETLIFY_DEST, file));
  say(`installing netlify-cli ${version} into ${path.relative(ROOT, NETLIFY_DEST)}`);
  // --legacy-peer-deps: the lockfile was resolved with it (netlify-cli's own peer ranges
  // overlap). --ignore-scripts: netlify dev runs on the packages' JavaScript and the prebuilt
  // esbuild binaries of their optional dependencies.
  run(
    'npm',
    ['ci', '--legacy-peer-deps', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
    NETLIFY_DEST,
  );
  if (installedNetlifyVersion() !== version) throw new Error(`netlify-cli ${version} is still not installed`);
  say(`netlify-cli ${version} installed`);
}

/** apt-get as root: directly, or through sudo; undefined when neither is possible. */
function asRoot(): string[] | undefined {
  if (process.getuid?.() === 0) return [];
  return findProgram(['sudo']) ? ['sudo'] : undefined;
}

function rootRun(prefix: readonly string[], command: string, args: readonly string[]): void {
  const [first, ...rest] = [...prefix, command, ...args] as [string, ...string[]];
  run(first, rest);
}

/**
 * Debian's packages start and enable their service on install; the tests start their own
 * servers on loopback ports instead. A policy-rc.d that answers 101 ("action forbidden") makes
 * invoke-rc.d start none; it is removed afterwards when it was put there for this install.
 */
function withoutServiceStarts(prefix: readonly string[], install: () => void): void {
  const policy = '/usr/sbin/policy-rc.d';
  const placed = !existsSync(policy);
  if (placed) rootRun(prefix, 'sh', ['-c', `printf '#!/bin/sh\\nexit 101\\n' > ${policy} && chmod 755 ${policy}`]);
  try {
    install();
  } finally {
    if (placed) rootRun(prefix, 'rm', ['-f', policy]);
  }
}

function setUpSystem(): boolean {
  const debian = existsSync('/etc/debian_version') && findProgram(['apt-get']) !== undefined;
  const needs = SYSTEM.filter((need) => debian || !need.debianOnly);
  const missing = needs.filter((need) => !need.installed());
  if (missing.length === 0) {
    say(`${needs.map((need) => need.what).join(', ')} are already installed`);
    return true;
  }
  const names = missing.map((need) => need.what).join(', ');
  const prefix = asRoot();
  if (!debian) {
    const brew = missing.flatMap(({ elsewhere }) => ('brew' in elsewhere ? [elsewhere.brew] : []));
    const pip = missing.flatMap(({ elsewhere }) => ('pip' in elsewhere ? [elsewhere.pip] : []));
    console.error(`setup:targets: ${names} missing, and this is not a Debian or Ubuntu system: install them yourself,`);
    console.error('  with its package manager, or on macOS with Homebrew:');
    if (brew.length) console.error(`  brew install ${brew.join(' ')}`);
    if (pip.length) console.error(`  python3 -m pip install ${pip.join(' ')}`);
    return false;
  }
  if (prefix === undefined) {
    console.error(`setup:targets: ${names} missing, and neither root nor sudo can run apt-get here.`);
    console.error(`  As root: apt-get install ${missing.map((need) => need.debian[0]).join(' ')}`);
    return false;
  }
  // sudo drops the environment; env passes the one variable apt-get needs through it.
  const aptGet = (...args: string[]) => rootRun(prefix, 'env', ['DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args]);
  withoutServiceStarts(prefix, () => {
    aptGet('update');
    const packages = missing.map(
      (need) =>
        need.debian.find((name) => spawnSync('apt-cache', ['show', name], { stdio: 'ignore' }).status === 0) ??
        (need.debian.at(-1) as string),
    );
    say(`installing ${packages.join(' ')}`);
    aptGet('install', '-y', '--no-install-recommends', ...packages);
  });
  const still = needs.filter((need) => !need.installed());
  if (still.length) {
    console.error(`setup:targets: still missing after apt-get: ${still.map((need) => need.what).join(', ')}`);
    return false;
  }
  say(`installed ${names}`);
  return true;
}

try {
  setUpNetlifyCli();
  if (!setUpSystem()) process.exitCode = 1;
} catch (error) {
  console.error(`setup:targets: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
