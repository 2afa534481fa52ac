// The parent's side of a measurement: starts child.ts in a fresh process (so each peak RSS is
// its own), relays its stage lines as progress, enforces a time limit, and reads its result.
// Also fingerprints output folders, to check that every run wrote the same bytes.

import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildResult, Job } from './child.ts';

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));
// `--import tsx` is resolved from the working directory, so the child runs in the project root.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface RunOptions {
  /** Where the job is written for the child to read (a baseline job lists ~1,300 paths). */
  jobFile: string;
  /** Prefix of the relayed progress lines. */
  label: string;
  timeoutMs: number;
}

/**
 * Runs one job as `node --import tsx child.ts job.json`: both kinds start the same way, the way
 * `npm run build` runs the build (tsx, no Node flags), without tsx's CLI wrapper process in between.
 */
export async function runChild(job: Job, options: RunOptions): Promise<ChildResult> {
  await writeFile(options.jobFile, JSON.stringify(job));
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, options.jobFile], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let pending = '';
  const relay = (text: string) => {
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) console.log(`  ${options.label} | ${line}`);
  };
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', relay);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c, s) => resolve([c, s]));
  }).finally(() => clearTimeout(timer));
  if (pending) relay('\n');

  const last = stdout.trim().split('\n').at(-1) ?? '';
  if (timedOut)
    throw new Error(`${options.label}: no result within ${options.timeoutMs / 1000} s; the child was killed`);
  if (!last.startsWith('{'))
    throw new Error(`${options.label}: the child ended (code ${code}, signal ${signal}) without a result`);
  const result = JSON.parse(last) as ChildResult;
  if (result.error) throw new Error(`${options.label} failed:\n${result.error}`);
  return result;
}

/**
 * Runs a round's two runs, the case first in odd rounds and its baseline first in even ones, so
 * that the machine's drift over the rounds hits both alike.
 */
export async function inAlternatingOrder(
  round: number,
  runCase: () => Promise<unknown>,
  runBaseline: () => Promise<unknown>,
): Promise<void> {
  for (const run of round % 2 === 1 ? [runCase, runBaseline] : [runBaseline, runCase]) await run();
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

export interface TreeSummary {
  files: number;
  bytes: number;
  /** sha256 over every relative path and its bytes, in path order. */
  digest: string;
  /** sha256 of each file, to name the files when two trees differ. */
  fileDigests: Map<string, string>;
}

export async function summariseTree(dir: string): Promise<TreeSummary> {
  const paths: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    for (const entry of await readdir(path.join(dir, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(child);
      else paths.push(child);
    }
  };
  await walk('');
  paths.sort();
  const hash = createHash('sha256');
  const fileDigests = new Map<string, string>();
  let bytes = 0;
  for (const relative of paths) {
    const content = await readFile(path.join(dir, relative));
    bytes += content.length;
    hash.update(`${relative}\0`).update(content).update('\0');
    fileDigests.set(relative, createHash('sha256').update(content).digest('hex'));
  }
  return { files: paths.length, bytes, digest: hash.digest('hex').slice(0, 16), fileDigests };
}

/** Paths that are in only one tree or differ in content, in path order. */
export function differingFiles(a: TreeSummary, b: TreeSummary): string[] {
  const all = new Set([...a.fileDigests.keys(), ...b.fileDigests.keys()]);
  return [...all].filter((file) => a.fileDigests.get(file) !== b.fileDigests.get(file)).sort();
}
