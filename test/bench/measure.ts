// The parent's side of a measurement: child runs (each in a fresh process, so that each peak RSS
// is its own), rounds of a case against its baseline, the commands a case starts, and the
// fingerprints that show every run wrote the same bytes.

import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULTS } from '../../scripts/cli/settings.ts';
import { SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { type ChildResult, filesUnder, type Job } from './child.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));
/** What the npm scripts run a command with: `node scripts/command.mjs <name>`. */
export const LAUNCHER = path.join(ROOT, 'scripts/command.mjs');
// Generous for a run of a few seconds to a minute, yet keeps a hung run from holding the machine.
const CHILD_TIMEOUT_MS = 5 * 60_000;
/** For a command to start, a server to answer, a line to be printed. */
const TIMEOUT_MS = 60_000;
const POLL_MS = 10;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
export const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** A build of `dataDir` into `outDir`'s public/ and targets/, as `npm run build` does with no flags. */
export function buildJob(
  dataDir: string,
  outDir: string,
  options: Partial<Extract<Job, { kind: 'build' }>['options']> = {},
): Job {
  const files = { outDir: path.join(outDir, 'public'), targetsDir: path.join(outDir, 'targets') };
  const { baseUrl, pageSize } = DEFAULTS;
  return {
    kind: 'build',
    options: { dataDir, ...files, headersPath: SAMPLE_HEADERS, baseUrl, pageSize, ...options },
  };
}

/**
 * Runs one job as `node --import tsx child.ts`, the job on its stdin, with no Node flags (the npm
 * scripts use none) and no wrapper process; tsx compiles the modules before the clock starts. The
 * child's stderr is relayed line by line under `label`.
 */
export async function runChild(job: Job, label: string): Promise<ChildResult> {
  // `--import tsx` is resolved from the working directory.
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(JSON.stringify(job));
  let stdout = '';
  let pending = '';
  const tail: string[] = [];
  const relay = (text: string) => {
    const lines = (pending + text).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) console.log(`  ${label} | ${line}`);
    tail.push(...lines);
    tail.splice(0, tail.length - 20);
  };
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', relay);
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c, s) => resolve([c, s]));
  }).finally(() => clearTimeout(timer));
  if (pending) relay('\n');
  const last = stdout.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !last.startsWith('{'))
    throw new Error(`${label}: the child ended (code ${code}, signal ${signal}) without a result:\n${tail.join('\n')}`);
  const result = JSON.parse(last) as ChildResult;
  console.log(`${label}: ${seconds(result.ms)}, peak RSS ${mb(result.maxRssBytes)}`);
  return result;
}

/** A command run to its end, as a user runs it: its wall time, CPU time and peak RSS. */
export interface CommandRun {
  ms: number;
  /** User + system CPU time of the process, all its threads. */
  cpuMs: number;
  /** The largest RSS the process (or one it waited for) reached, in bytes. */
  maxRssBytes: number;
}

/** GNU time: Node cannot read another process's resource usage, and wait4() gives it whole. */
const GNU_TIME = '/usr/bin/time';

/**
 * Runs `command args` to its end under GNU time, its output discarded; it must succeed. The wall
 * time is from its spawn to its exit, Node's start included, as a user waits for it.
 */
export async function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; label: string },
): Promise<CommandRun> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'bench-time-'));
  const usageFile = path.join(scratch, 'usage');
  try {
    const started = performance.now();
    const child = spawn(GNU_TIME, ['-o', usageFile, '-f', '%U %S %M', command, ...args], {
      cwd: options.cwd,
      env: options.env ?? commandEnv(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const code = await new Promise((resolve, reject) => child.once('error', reject).once('close', resolve));
    const ms = performance.now() - started;
    if (code !== 0) throw new Error(`${options.label}: ended with code ${code}:\n${stderr.slice(-2000)}`);
    const [user, system, rssKiB] = (await readFile(usageFile, 'utf8')).trim().split(/\s+/).slice(-3).map(Number);
    const run = { ms, cpuMs: ((user as number) + (system as number)) * 1000, maxRssBytes: (rssKiB as number) * 1024 };
    console.log(`${options.label}: ${seconds(ms)}, CPU ${seconds(run.cpuMs)}, peak RSS ${mb(run.maxRssBytes)}`);
    return run;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Runs a round's two runs, the case first in odd rounds and its baseline first in even ones, so
 * that the machine's drift over the rounds hits both alike.
 */
async function inAlternatingOrder(
  round: number,
  runCase: () => Promise<unknown>,
  runBaseline: () => Promise<unknown>,
): Promise<void> {
  for (const run of round % 2 === 1 ? [runCase, runBaseline] : [runBaseline, runCase]) await run();
}

export interface Rounds<T> {
  runs: T[];
  baselines: T[];
}

/** Rounds of a case and its baseline in alternating order, while `more` (given the rounds so far) says so. */
export async function alternatingRounds<T>(
  runCase: (round: number) => Promise<T>,
  runBaseline: (round: number) => Promise<T>,
  more: number | ((done: Rounds<T>) => boolean),
): Promise<Rounds<T>> {
  const done: Rounds<T> = { runs: [], baselines: [] };
  const again = typeof more === 'number' ? () => done.runs.length < more : more;
  for (let round = 1; again(done); round++) {
    await inAlternatingOrder(
      round,
      async () => done.runs.push(await runCase(round)),
      async () => done.baselines.push(await runBaseline(round)),
    );
  }
  return done;
}

/**
 * Flushes dirty pages before a run. Otherwise a run pays for writing back the previous run's
 * files (or the generator's), and the order of the runs would decide the winner.
 */
export function settleDisk(): void {
  try {
    execFileSync('sync', { stdio: 'ignore', timeout: 60_000 });
  } catch {
    // No `sync` (or it hung): the runs are just noisier.
  }
}

/** A port nothing listens on now: the site's links must name the server's origin before it starts. */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((listening) => probe.listen(0, '127.0.0.1', listening));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((closed) => probe.close(closed));
  return port;
}

/** The environment without the settings' variables, which would change what a command builds or where it listens. */
export function commandEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['BASE_URL', 'PAGE_SIZE', 'PRECOMPRESS', 'HOST', 'PORT']) delete env[name];
  return env;
}

export interface Started {
  /** Its process id: with `group`, its process group's too. */
  pid: number;
  /** Its stderr so far. */
  stderr: () => string;
  /** SIGTERM (to its whole process group when it has one), then its exit; SIGKILL if it lingers. */
  stop: () => Promise<void>;
}

/**
 * Starts a long-running command and resolves once `ready` (polled) holds. With `group`, it leads a
 * process group of its own, so that stop() reaches what it started (npm's shell and Node).
 */
export async function startCommand(
  command: string,
  args: readonly string[],
  options: {
    cwd: string;
    ready: (stderr: string) => boolean | Promise<boolean>;
    echo?: string;
    group?: boolean;
    /** commandEnv() unless given. */
    env?: NodeJS.ProcessEnv;
    /** How long it may take to be ready; a minute unless given. */
    timeoutMs?: number;
  },
): Promise<Started> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? commandEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: options.group === true,
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
    if (options.echo) for (const line of text.trimEnd().split('\n')) console.log(`  ${options.echo} | ${line}`);
  });
  const signal = (name: NodeJS.Signals | 0) => {
    try {
      if (options.group) process.kill(-(child.pid as number), name);
      else child.kill(name);
      return true;
    } catch {
      return false; // Nothing left to signal.
    }
  };
  const stop = async () => {
    const exited = child.exitCode === null ? new Promise((done) => child.once('exit', done)) : undefined;
    signal('SIGTERM');
    await exited;
    // The group outlives its leader while npm's children close; signal 0 only asks whether any is left.
    for (let waited = 0; options.group && signal(0) && waited < 10_000; waited += POLL_MS) {
      if (waited >= 5_000) signal('SIGKILL');
      await sleep(POLL_MS);
    }
  };
  try {
    await until(
      `${command} ${args.join(' ')}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`ended with code ${child.exitCode}`);
        return (await options.ready(stderr)) || undefined;
      },
      options.timeoutMs,
    );
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}; it did not start:\n${stderr}`);
  }
  return { pid: child.pid as number, stderr: () => stderr, stop };
}

/** The largest RSS a running process has reached so far (Linux's VmHWM), in bytes; undefined where unknown. */
export async function peakRss(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kiB = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  return kiB === undefined ? undefined : Number(kiB) * 1024;
}

/** Polls `check` until it gives a value, for at most `timeoutMs` (a minute); `what` names it in the error. */
export async function until<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = TIMEOUT_MS,
): Promise<T> {
  const started = performance.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(POLL_MS);
  }
}

/** One GET of `url`, its body read whole (so that the connection is free again); undefined when refused. */
export async function ask(url: string): Promise<{ status: number; body: string } | undefined> {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    return { status: answer.status, body: await answer.text() };
  } catch {
    return undefined;
  }
}

export interface TreeSummary {
  files: number;
  bytes: number;
  /** sha256 over every relative path and its bytes, in path order. */
  digest: string;
  /** sha256 of each file, to name the files when two trees differ. */
  fileDigests: Map<string, string>;
}

export async function summariseTree(dir: string): Promise<TreeSummary> {
  const hash = createHash('sha256');
  const fileDigests = new Map<string, string>();
  let bytes = 0;
  for (const relative of await filesUnder(dir)) {
    const content = await readFile(path.join(dir, relative));
    bytes += content.length;
    hash.update(`${relative}\0`).update(content).update('\0');
    fileDigests.set(relative, createHash('sha256').update(content).digest('hex'));
  }
  return { files: fileDigests.size, bytes, digest: hash.digest('hex').slice(0, 16), fileDigests };
}

/** Paths that are in only one tree or differ in content, in path order. */
export function differingFiles(a: TreeSummary, b: TreeSummary): string[] {
  const all = new Set([...a.fileDigests.keys(), ...b.fileDigests.keys()]);
  return [...all].filter((file) => a.fileDigests.get(file) !== b.fileDigests.get(file)).sort();
}
