// `npm run test:node` (test/node-line.mjs), offline: a registry that refuses every connection and
// a cache of stand-in binaries, each of which says its version and how it was started. The real
// download is the registry's package, which .ci/run installs on every run.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../unit/helpers/cli.ts';

const COMMAND = path.join(ROOT, 'test/node-line.mjs');
const PACKAGE = `node-${process.platform}-${process.arch}`;
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A cache holding a stand-in `node` for each version: `--version` prints it, anything else exits 3. */
function cacheWith(versions: readonly string[]): string {
  const cache = mkdtempSync(path.join(os.tmpdir(), 'node-line-'));
  scratch.push(cache);
  for (const version of versions) {
    const bin = path.join(cache, 'static-drf-api/node', version, 'node_modules', PACKAGE, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      path.join(bin, 'node'),
      `#!/bin/sh\nif [ "$1" = --version ]; then echo v${version}; exit 0; fi\necho "stand-in ${version}: $*"\nexit 3\n`,
    );
    chmodSync(path.join(bin, 'node'), 0o755);
  }
  return cache;
}

function run(cache: string, args: readonly string[]) {
  const result = spawnSync(process.execPath, [COMMAND, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      ...process.env,
      XDG_CACHE_HOME: cache,
      // No registry: nothing listens on port 9, and npm is told not to try again.
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_fetch_retries: '0',
      npm_config_cache: path.join(cache, 'npm'),
    },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm run test:node', { timeout: 90_000 }, () => {
  it('runs the command with the newest cached version of the line first on the PATH', () => {
    const cache = cacheWith(['24.9.0', '24.10.0', '22.23.3', '26.1.0']);
    const ran = run(cache, ['24', 'node', '--version']);
    expect(ran.stdout).toBe('v24.10.0\n');
    expect(ran.stderr).toContain(`test:node: Node v24.10.0 (${path.join(cache, 'static-drf-api/node/24.10.0')}`);
    expect(ran.status).toBe(0);
    // npm, run by the command, reports the same node to the scripts it starts.
    const npmNode = run(cache, ['22', 'sh', '-c', 'echo "$npm_node_execpath"; node --version']);
    expect(npmNode.stdout).toBe(
      `${path.join(cache, 'static-drf-api/node/22.23.3/node_modules', PACKAGE, 'bin/node')}\nv22.23.3\n`,
    );
  });

  it("passes the command's exit status on", () => {
    const ran = run(cacheWith(['24.21.0']), ['24', 'node', 'x.js']);
    expect(ran.stdout).toBe('stand-in 24.21.0: x.js\n');
    expect(ran.status).toBe(3);
  });

  it('takes a whole version, and fails when no version of the line is to be had', () => {
    const cache = cacheWith(['24.21.0', '24.20.0']);
    expect(run(cache, ['24.20.0', 'node', '--version']).stdout).toBe('v24.20.0\n');
    const none = run(cache, ['26', 'node', '--version']);
    expect(none.stderr).toContain(`cannot ask the registry for ${PACKAGE}@26, and no version of it is cached`);
    expect(none.status).toBe(2);
  });

  it('refuses a binary that is not the version it is filed under', () => {
    const cache = cacheWith(['24.21.0']);
    const bin = path.join(cache, 'static-drf-api/node/24.21.0/node_modules', PACKAGE, 'bin/node');
    writeFileSync(bin, '#!/bin/sh\necho v20.20.2\n');
    const ran = run(cache, ['24', 'node', '--version']);
    expect(ran.stderr).toContain('says it is v20.20.2, not v24.21.0');
    expect(ran.status).toBe(2);
  });

  it('says how to use it when the line is missing or not a number', () => {
    for (const args of [[], ['latest'], ['v24']]) {
      const ran = run(cacheWith([]), args);
      expect(ran.stderr).toContain('usage: npm run test:node -- <line');
      expect(ran.status).toBe(2);
    }
  });
});
