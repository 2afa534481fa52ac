// The swap of scripts/shared/write.ts and swap.ts under kill -9: a real build process
// (build-command.ts on the good fixture) is killed at each step of writing public/ and
// targets/nginx/ (a test-only pause, STATIC_API_PAUSE_AT, prints a marker and waits there) and at
// random moments of its writes. The invariant checked each time:
//   - each output folder is byte for byte the complete previous output or the complete new one;
//     on Linux, where the swap is one atomic exchange (exchange.ts), at every step;
//   - where the swap is three renames (other systems; STATIC_API_SWAP=renames forces it here),
//     it may be missing only between the last two, and then a complete copy of the new output
//     sits beside it (`<out>.new-*`);
//   - the next build restores or replaces it and leaves no `.tmp-`, `.new-` or `.old-` folder.
// Then the local server answers while builds swap its output again and again: never a 5xx.

import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { API, SAMPLE_DIR, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { commandLine, outputArgs } from '../unit/helpers/cli.ts';
import { readTree } from '../unit/helpers/tree.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DATA = path.join(ROOT, 'test/fixtures/good/data');
// Two builds of the same data with different page sizes: different bytes and different files.
const PAGES_A = '10';
const PAGES_B = '1';
// Linux exchanges folders atomically (exchange.ts); the fallback is tested on every system.
const EXCHANGES = process.platform === 'linux';
const RENAMES = { STATIC_API_SWAP: 'renames' };

let scratch: string;
/** The complete outputs of a build with each base URL: public/ and targets/nginx/. */
const outputs = {} as Record<'a' | 'b', { public: Map<string, Buffer>; nginx: Map<string, Buffer> }>;

/** The environment without the settings' variables (vitest sets BASE_URL to "/"). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['BASE_URL', 'PAGE_SIZE', 'HOST', 'PORT', 'DEBUG', 'STATIC_API_PAUSE_AT', 'STATIC_API_SWAP'])
    delete env[name];
  return env;
}

/** Starts a build of the fixture into `dir` (one node process to kill, as npm run build runs it). */
function startBuild(
  dir: string,
  pageSize: string,
  env: Record<string, string> = {},
  extra: readonly string[] = [],
): ChildProcess {
  return spawn(
    process.execPath,
    commandLine('build', ['--data', DATA, ...outputArgs(dir), '--target', 'nginx', '--page-size', pageSize, ...extra]),
    { cwd: SAMPLE_DIR, env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
}

function finished(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done(child.exitCode);
    else child.once('exit', (code) => done(code));
  });
}

async function build(dir: string, pageSize: string): Promise<void> {
  const child = startBuild(dir, pageSize);
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  expect(await finished(child), stderr).toBe(0);
}

/** Resolves when the build's stderr shows `marker`; rejects if it exits first. */
function waitFor(child: ChildProcess, marker: string | RegExp): Promise<void> {
  return new Promise((done, fail) => {
    let seen = '';
    child.stderr?.on('data', (chunk) => {
      seen += chunk;
      if (typeof marker === 'string' ? seen.includes(marker) : marker.test(seen)) done();
    });
    child.once('exit', () => fail(new Error(`the build ended before ${marker}:\n${seen}`)));
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await finished(child);
}

async function treeOrNull(dir: string): Promise<Map<string, Buffer> | null> {
  return readTree(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

function same(a: Map<string, Buffer>, b: Map<string, Buffer>): boolean {
  return a.size === b.size && [...a].every(([file, bytes]) => b.get(file)?.equals(bytes) === true);
}

/** A folder holding the complete output A, as a previous build left it. */
async function previousBuild(): Promise<string> {
  const dir = await mkdtemp(path.join(scratch, 'case-'));
  await cp(path.join(scratch, 'a'), dir, { recursive: true });
  return dir;
}

/**
 * Checks the invariant on `name` (public or targets/nginx) after a kill; `mayBeMissing` when the
 * kill was between the two renames of that folder.
 */
async function checkAfterKill(dir: string, name: 'public' | 'nginx', mayBeMissing: boolean): Promise<void> {
  const folder = name === 'public' ? path.join(dir, 'public') : path.join(dir, 'targets', 'nginx');
  const expected = { a: outputs.a[name], b: outputs.b[name] };
  const tree = await treeOrNull(folder);
  if (tree !== null) {
    expect(same(tree, expected.a) || same(tree, expected.b), `${name} is neither the old nor the new output`).toBe(
      true,
    );
    return;
  }
  expect(mayBeMissing, `${name} is missing`).toBe(true);
  const parent = path.dirname(folder);
  const siblings = (await readdir(parent)).filter((entry) => entry.startsWith(`${path.basename(folder)}.new-`));
  expect(siblings).toHaveLength(1);
  expect(same((await readTree(path.join(parent, siblings[0] as string))) ?? new Map(), expected.b)).toBe(true);
}

/** The next build completes the new output and leaves nothing beside it. */
async function checkNextBuild(dir: string): Promise<void> {
  await build(dir, PAGES_B);
  expect(same(await readTree(path.join(dir, 'public')), outputs.b.public)).toBe(true);
  expect(same(await readTree(path.join(dir, 'targets/nginx')), outputs.b.nginx)).toBe(true);
  expect((await readdir(dir)).sort()).toEqual(['public', 'schemas', 'targets']);
  expect(await readdir(path.join(dir, 'targets'))).toEqual(['nginx']);
}

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'swap-kill-'));
  for (const [key, pageSize] of [
    ['a', PAGES_A],
    ['b', PAGES_B],
  ] as const) {
    const dir = path.join(scratch, key);
    await build(dir, pageSize);
    outputs[key] = {
      public: await readTree(path.join(dir, 'public')),
      nginx: await readTree(path.join(dir, 'targets/nginx')),
    };
  }
  expect(same(outputs.a.public, outputs.b.public)).toBe(false);
}, 30_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

type Step = 'recovered' | 'partial' | 'written' | 'marked-new' | 'moved-old' | 'swapped';

// Every step of public/; for targets/nginx/, which runs the same code just after, the steps of
// the swap. First with the swap as this system does it, then with the three renames.
const CASES: (readonly [Step, 'public' | 'nginx', 'exchange' | 'renames'])[] = [
  ...(['recovered', 'partial', 'written', 'swapped'] as const).map((step) => [step, 'public', 'exchange'] as const),
  ...(['written', 'swapped'] as const).map((step) => [step, 'nginx', 'exchange'] as const),
  ...(['marked-new', 'moved-old', 'swapped'] as const).map((step) => [step, 'public', 'renames'] as const),
  ...(['marked-new', 'moved-old'] as const).map((step) => [step, 'nginx', 'renames'] as const),
].filter(([, , swap]) => EXCHANGES || swap === 'renames');

describe('a build killed with SIGKILL', () => {
  it.runIf(EXCHANGES)('never reaches the moment of the renames where the output is missing', async () => {
    const dir = await previousBuild();
    // A build asked to pause there finishes without pausing: its swap took the one atomic step.
    const child = startBuild(dir, PAGES_B, { STATIC_API_PAUSE_AT: 'moved-old' });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    try {
      await Promise.race([finished(child), waitFor(child, 'paused at ')]);
    } finally {
      await kill(child);
    }
    expect(stderr).not.toContain('paused at');
    expect(child.exitCode, stderr).toBe(0);
    expect(same(await readTree(path.join(dir, 'public')), outputs.b.public)).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(['public', 'schemas', 'targets']);
  });

  it.concurrent.each(CASES)(
    'at %s of %s (%s): each output is complete, old or new, and the next build cleans up',
    async (step, name, swap) => {
      const dir = await previousBuild();
      const env = { STATIC_API_PAUSE_AT: `${step}:${name}`, ...(swap === 'renames' ? RENAMES : {}) };
      const child = startBuild(dir, PAGES_B, env);
      try {
        await waitFor(child, `paused at ${step} `);
      } finally {
        await kill(child);
      }
      const betweenRenames = swap === 'renames' && step === 'moved-old';
      await checkAfterKill(dir, 'public', betweenRenames && name === 'public');
      await checkAfterKill(dir, 'nginx', betweenRenames && name === 'nginx');
      await checkNextBuild(dir);
    },
  );

  it.concurrent('between the renames of public/, then a build that stops on bad data still restores it', async () => {
    const dir = await previousBuild();
    const child = startBuild(dir, PAGES_B, { STATIC_API_PAUSE_AT: 'moved-old:public', ...RENAMES });
    try {
      await waitFor(child, 'paused at moved-old ');
    } finally {
      await kill(child);
    }
    expect(await treeOrNull(path.join(dir, 'public'))).toBeNull();
    const failed = startBuild(dir, PAGES_B, {}, ['--data', path.join(dir, 'no-data')]);
    expect(await finished(failed)).toBe(1);
    expect(same(await readTree(path.join(dir, 'public')), outputs.b.public)).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(['public', 'schemas', 'targets']);
  });

  it.concurrent.each([0, 3, 8])('at a random moment of its writes (%i ms after rendering)', async (delay) => {
    const dir = await previousBuild();
    const child = startBuild(dir, PAGES_B);
    try {
      await waitFor(child, /render: /);
      await new Promise((done) => setTimeout(done, delay + Math.random() * 3));
    } finally {
      await kill(child);
    }
    // With the fallback, a random kill may land between the two renames of either folder.
    await checkAfterKill(dir, 'public', !EXCHANGES);
    await checkAfterKill(dir, 'nginx', !EXCHANGES);
    await checkNextBuild(dir);
  });
});

describe('the local server while builds swap its output', () => {
  let server: http.Server;
  let url: string;
  let dir: string;

  beforeAll(async () => {
    dir = await previousBuild();
    server = createApiServer(path.join(dir, 'public'), API);
    url = await listen(server, '127.0.0.1', 0);
  });

  afterAll(async () => {
    await new Promise((done) => server.close(done));
  });

  const PATHS = ['/event/', '/company/', '/event/?ordering=-id', '/event/?ordering=name,-id', '/virtualbooth-texture/'];

  /** Requests the paths in a loop until `stop` resolves; returns every status seen. */
  async function hammer(stop: Promise<unknown>): Promise<Map<number, number>> {
    const statuses = new Map<number, number>();
    const eventBodies = [outputs.a, outputs.b].map((output) => output.public.get('event/index.json')?.toString());
    let stopped = false;
    stop.finally(() => {
      stopped = true;
    });
    const worker = async () => {
      for (let i = 0; !stopped && i < 5000; i += 1) {
        const response = await fetch(`${url}${PATHS[i % PATHS.length]}`);
        const body = await response.text();
        if (i % PATHS.length === 0 && response.status === 200 && !eventBodies.includes(body)) {
          throw new Error(`/event/ answered a body of neither output: ${body.slice(0, 80)}`);
        }
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    return statuses;
  }

  it('answers every request with the old or the new output, never a 5xx, and serves the new output after', async () => {
    const builds = (async () => {
      for (let round = 0; round < 4; round += 1) await build(dir, round % 2 === 0 ? PAGES_B : PAGES_A);
    })();
    const statuses = await hammer(builds);
    await builds;
    expect([...statuses.keys()].filter((status) => status >= 500)).toEqual([]);
    expect(statuses.get(200)).toBeGreaterThan(0);
    const body = await (await fetch(`${url}/event/`)).text();
    expect(body).toBe(outputs.a.public.get('event/index.json')?.toString('utf8'));
  });

  it('answers from the complete new folder while the output is missing between the renames', async () => {
    const child = startBuild(dir, PAGES_B, { STATIC_API_PAUSE_AT: 'moved-old:public', ...RENAMES });
    try {
      await waitFor(child, 'paused at moved-old ');
      expect(await treeOrNull(path.join(dir, 'public'))).toBeNull();
      const response = await fetch(`${url}/event/`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(outputs.b.public.get('event/index.json')?.toString('utf8'));
      expect((await fetch(`${url}/event/?ordering=name,-id`)).status).toBe(200);
    } finally {
      await kill(child);
    }
    await checkNextBuild(dir);
    expect((await fetch(`${url}/event/`)).status).toBe(200);
  });

  it('reads the new _headers after a swap', async () => {
    const headers = path.join(dir, 'custom_headers');
    await writeFile(headers, `${await readFile(SAMPLE_HEADERS, 'utf8')}  X-Swap-Test: yes\n`);
    const child = startBuild(dir, PAGES_A, {}, ['--headers', headers]);
    expect(await finished(child)).toBe(0);
    expect((await fetch(`${url}/event/`)).headers.get('x-swap-test')).toBe('yes');
  });
});
