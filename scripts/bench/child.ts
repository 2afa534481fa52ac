// Runs inside a fresh child process, started by measure.ts as `node --import tsx child.ts <job.json>`:
// either the BUILD (build() of scripts/cli/run-build.ts) or the BASELINE (the same file I/O and
// JSON.parse, nothing else). Each times only its work: modules are loaded and inputs read before the clock starts.
// Stage lines go to stderr as they happen; the one JSON result goes to stdout.

import { readFile as readFileWithCallback, writeFile as writeFileWithCallback } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BuildOptions } from '../cli/run-build.ts';

export type Job =
  | { kind: 'build'; options: Omit<BuildOptions, 'log' | 'check'> }
  | {
      kind: 'baseline';
      /** The files the build reads, in the order it reads them. */
      sourceFiles: string[];
      /** A finished build's output (public/ and targets/): its files are what the baseline writes. */
      referenceDir: string;
      outDir: string;
    }
  /** `npm run diff` between two built output folders: reading both sides and comparing them. */
  | { kind: 'diff'; before: string; after: string }
  /** The diff's baseline: reading and JSON.parse-ing every JSON file of both folders. */
  | { kind: 'diff-baseline'; before: string; after: string }
  /** `npm run import` from a served build into a fresh data folder. */
  | { kind: 'import'; from: string; dataDir: string; configPath: string }
  /** The import's baseline: GET each of `targets` (relative to `from`) as the import asks them, and JSON.parse it. */
  | { kind: 'import-baseline'; from: string; targets: string[]; concurrency: number };

export interface Stage {
  name: string;
  /** Wall time, as the stage's own line reports it. */
  ms: number;
  /** CPU time of the whole process (every thread, user + system) during the stage. */
  cpuMs: number;
  /** Time the main thread was busy during the stage (ChildResult.mainThreadMs). */
  mainThreadMs: number;
  line: string;
}

export interface ChildResult {
  ms: number;
  /**
   * CPU time of the work, user + system, all threads. Other tenants of a shared machine stretch
   * wall time far more than this, so it shows what the code costs when the wall clock is noisy.
   */
  cpuMs: number;
  /** The kernel's part of cpuMs: file system calls, page faults. */
  systemMs: number;
  /**
   * Time the main thread was busy (the event loop's active time: JavaScript, the encoding and
   * parsing it calls, its share of garbage collection). The work of the other threads (file
   * system calls, a server's other process) can overlap it, but nothing on one thread can bring
   * the run's time below it.
   */
  mainThreadMs: number;
  /** process.resourceUsage().maxRSS, in bytes: the peak, start-up included. */
  maxRssBytes: number;
  /** RSS once modules are loaded, just before the clock starts. */
  startRssBytes: number;
  stages: Stage[];
  sourceFiles: number;
  sourceBytes: number;
  routes?: number;
  records?: number;
  /** Set when the work failed (bad data, an exception); the figures are then meaningless. */
  error?: string;
}

// Same bounds and the same calls as the build's load and write (scripts/build/load.ts, write.ts),
// so the baseline is neither handicapped by its I/O pattern nor favoured by an unbounded one.
const READ_CONCURRENCY = 64;
const WRITE_CONCURRENCY = 32;
const readSource = promisify(readFileWithCallback);
const writeOutputFile = promisify(writeFileWithCallback);

// A copy of the build's helper, so that changing the build never changes the baseline.
async function mapLimited<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const runTasks = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runTasks));
  return results;
}

/** Every file under `dir`, as relative path → text. */
async function readTree(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (relative: string): Promise<void> => {
    for (const entry of await readdir(path.join(dir, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(child);
      else files.set(child, await readFile(path.join(dir, child), 'utf8'));
    }
  };
  await walk('');
  return files;
}

const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Starts the clocks of a run; the function returned reads what the run has taken so far. */
function startClocks(): () => Pick<
  ChildResult,
  'ms' | 'cpuMs' | 'systemMs' | 'mainThreadMs' | 'maxRssBytes' | 'startRssBytes'
> {
  const startRssBytes = process.memoryUsage().rss;
  const { user, system } = process.cpuUsage();
  const loop = performance.eventLoopUtilization();
  const started = performance.now();
  return () => {
    const now = process.cpuUsage();
    return {
      ms: performance.now() - started,
      cpuMs: (now.user + now.system - user - system) / 1000,
      systemMs: (now.system - system) / 1000,
      mainThreadMs: performance.eventLoopUtilization(loop).active,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
      startRssBytes,
    };
  };
}

/** CPU and main thread ms since the previous call (the first call: since this was made). */
function lapClocks(): () => Pick<Stage, 'cpuMs' | 'mainThreadMs'> {
  let cpu = cpuNow();
  let loop = performance.eventLoopUtilization();
  return () => {
    const cpuThen = cpu;
    const loopThen = loop;
    cpu = cpuNow();
    loop = performance.eventLoopUtilization();
    return {
      cpuMs: Math.round(cpu - cpuThen),
      mainThreadMs: Math.round(performance.eventLoopUtilization(loop, loopThen).active),
    };
  };
}

/** The baseline's stage lines, in the build's format. */
function stageTimer(stages: Stage[]) {
  let started = performance.now();
  const lap = lapClocks();
  return (name: string, detail: string) => {
    const now = performance.now();
    const ms = Math.round(now - started);
    const line = `${name}: ${detail} (${ms} ms)`;
    stages.push({ name, ms, ...lap(), line });
    process.stderr.write(`${line}\n`);
    started = now;
  };
}

/** The build's stage lines end in `(N ms)`; the stage is the word before the colon. */
export function parseStage(line: string): Omit<Stage, 'cpuMs' | 'mainThreadMs'> | null {
  const match = /^([\w+-]+):.*\((\d+) ms\)$/.exec(line);
  return match ? { name: match[1] as string, ms: Number(match[2]), line } : null;
}

async function runBuild(job: Extract<Job, { kind: 'build' }>): Promise<ChildResult> {
  const { build } = await import('../cli/run-build.ts');
  const { DataErrors, formatDataError } = await import('../build/errors.ts');
  const stages: Stage[] = [];
  const taken = startClocks();
  const lap = lapClocks();
  // build() calls log as each stage ends, so the time used since the last call is that stage's.
  const log = (line: string) => {
    process.stderr.write(`${line}\n`);
    const stage = parseStage(line);
    if (stage) stages.push({ ...stage, ...lap() });
  };
  try {
    const result = await build({ ...job.options, log });
    return {
      ...taken(),
      stages,
      sourceFiles: result.sourceFiles,
      sourceBytes: result.sourceBytes,
      routes: result.routes.length,
      records: result.records,
    };
  } catch (error) {
    const message =
      error instanceof DataErrors
        ? [error.message, ...error.errors.slice(0, 20).map(formatDataError)].join('\n')
        : String((error as Error).stack ?? error);
    return {
      ms: 0,
      cpuMs: 0,
      systemMs: 0,
      mainThreadMs: 0,
      maxRssBytes: 0,
      startRssBytes: taken().startRssBytes,
      stages,
      sourceFiles: 0,
      sourceBytes: 0,
      error: message,
    };
  }
}

async function runBaseline(job: Extract<Job, { kind: 'baseline' }>): Promise<ChildResult> {
  // Loaded before the clock: the baseline writes bytes it already holds, as the build does
  // once it has rendered them.
  const outputs = await readTree(job.referenceDir);
  let outputBytes = 0;
  for (const text of outputs.values()) outputBytes += Buffer.byteLength(text);
  const stages: Stage[] = [];
  const step = stageTimer(stages);
  const taken = startClocks();

  let sourceBytes = 0;
  const parsed = await mapLimited(job.sourceFiles, READ_CONCURRENCY, async (file) => {
    const data = await readSource(file);
    sourceBytes += data.length;
    return JSON.parse(data.toString('utf8')) as unknown;
  });
  step('read+parse', `${parsed.length} files, ${sourceBytes} bytes`);

  const dirs = new Set([...outputs.keys()].map((file) => path.dirname(path.join(job.outDir, file))));
  for (const dir of [...dirs].sort()) await mkdir(dir, { recursive: true });
  await mapLimited([...outputs], WRITE_CONCURRENCY, ([file, text]) =>
    writeOutputFile(path.join(job.outDir, file), text),
  );
  step('write', `${outputs.size} files, ${outputBytes} bytes`);

  return {
    ...taken(),
    stages,
    // The parsed values stay alive until here, as the build's records do until it has rendered.
    sourceFiles: parsed.length,
    sourceBytes,
  };
}

async function runDiff(job: Extract<Job, { kind: 'diff' }>): Promise<ChildResult> {
  const { readSide } = await import('../review/side.ts');
  const { compareSides } = await import('../review/compare.ts');
  const stages: Stage[] = [];
  const step = stageTimer(stages);
  const taken = startClocks();
  const [before, after] = [await readSide(job.before, job.before), await readSide(job.after, job.after)];
  step('read', `${before.files.size} + ${after.files.size} files`);
  const report = compareSides(before, after);
  const changed = report.resources.reduce(
    (sum, diff) => sum + diff.added.length + diff.removed.length + diff.changed.length,
    0,
  );
  step('compare', `${changed} records differ`);
  return { ...taken(), stages, sourceFiles: before.files.size + after.files.size, sourceBytes: 0 };
}

async function runDiffBaseline(job: Extract<Job, { kind: 'diff-baseline' }>): Promise<ChildResult> {
  const stages: Stage[] = [];
  const step = stageTimer(stages);
  const taken = startClocks();
  let files = 0;
  let bytes = 0;
  const parsed: unknown[] = [];
  for (const dir of [job.before, job.after]) {
    // Read as the diff reads a folder (scripts/review/side.ts): every file at once.
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    const names = entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
    const texts = await Promise.all(names.map((name) => readFile(name, 'utf8')));
    names.forEach((name, index) => {
      const text = texts[index] as string;
      files++;
      bytes += text.length;
      if (name.endsWith('.json')) parsed.push(JSON.parse(text));
    });
  }
  step('read+parse', `${files} files, ${parsed.length} parsed`);
  return { ...taken(), stages, sourceFiles: files, sourceBytes: bytes };
}

async function runImport(job: Extract<Job, { kind: 'import' }>): Promise<ChildResult> {
  const { importService } = await import('../migrate/import.ts');
  const { settingsFileText } = await import('../cli/settings-file.ts');
  const stages: Stage[] = [];
  const step = stageTimer(stages);
  // Each of the import's lines ends a stage: reading the lists, then the conversion and the
  // build's own check of it, then the writes.
  const STAGES: Array<[RegExp, string]> = [
    [/^import: read /, 'read'],
    [/^import: npm run build answers /, 'check'],
    [/^import: wrote /, 'write'],
  ];
  const taken = startClocks();
  const result = await importService({
    from: job.from,
    dataDir: job.dataDir,
    configPath: job.configPath,
    force: false,
    settingsText: settingsFileText,
    log: (line) => {
      const stage = STAGES.find(([pattern]) => pattern.test(line));
      if (stage) step(stage[1], line.replace(/^import: /, ''));
    },
  });
  if (result.problems.length > 0) throw new Error(`the import found ${result.problems.length} problems`);
  return { ...taken(), stages, sourceFiles: result.files, sourceBytes: 0 };
}

/** A GET of the whole body, as the import's client asks (node:http, its default keep-alive agent). */
function fetchBody(url: string): Promise<Buffer> {
  return new Promise((done, fail) => {
    const request = http.get(url, { headers: { Accept: 'application/json' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => done(Buffer.concat(chunks)));
      response.once('error', fail);
    });
    request.once('error', fail);
  });
}

async function runImportBaseline(job: Extract<Job, { kind: 'import-baseline' }>): Promise<ChildResult> {
  const stages: Stage[] = [];
  const step = stageTimer(stages);
  const taken = startClocks();
  let bytes = 0;
  const parsed = await mapLimited(job.targets, job.concurrency, async (target) => {
    const body = await fetchBody(new URL(target, job.from).href);
    bytes += body.length;
    return JSON.parse(body.toString('utf8')) as unknown;
  });
  step('fetch+parse', `${parsed.length} answers, ${bytes} bytes`);
  // The parsed values stay alive until here, as the import's records do until it has written them.
  return { ...taken(), stages, sourceFiles: parsed.length, sourceBytes: bytes };
}

const RUNS = {
  build: runBuild,
  baseline: runBaseline,
  diff: runDiff,
  'diff-baseline': runDiffBaseline,
  import: runImport,
  'import-baseline': runImportBaseline,
} as const;

async function main(): Promise<void> {
  const jobFile = process.argv[2];
  if (!jobFile) throw new Error('usage: child.ts <job.json>');
  const job = JSON.parse(await readFile(jobFile, 'utf8')) as Job;
  const run = RUNS[job.kind] as (job: Job) => Promise<ChildResult>;
  const result = await run(job);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exitCode = result.error ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
