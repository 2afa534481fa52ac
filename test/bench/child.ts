// Runs inside a fresh child process, started by measure.ts as `node --import tsx child.ts` with the
// job on stdin: a case (the build, the diff, the import) or its baseline, which does the same I/O
// and JSON.parse and nothing else. Each times only its work: modules are loaded and inputs read
// before the clock starts. Stage lines go to stderr as they happen; the one JSON result to stdout.

import { readFile as readFileWithCallback, writeFile as writeFileWithCallback } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { promisify } from 'node:util';
import type { BuildOptions } from '../../scripts/builder/build.ts';
import type { DataError } from '../../scripts/builder/pipeline/errors.ts';

export type Job =
  /** The build of the API's resources (not sent: the child loads them). */
  | { kind: 'build'; options: Omit<BuildOptions, 'log' | 'check' | 'resources'> }
  /** The build's baseline: reads and parses `sourceFiles` (the build's, in its order), then writes `referenceDir`'s files. */
  | { kind: 'baseline'; sourceFiles: string[]; referenceDir: string; outDir: string }
  /** `npm run diff` between two built output folders: reading both sides and comparing them. */
  | { kind: 'diff'; before: string; after: string }
  /** The diff's baseline: reading and JSON.parse-ing every JSON file of both folders. */
  | { kind: 'diff-baseline'; before: string; after: string }
  /** `npm run import` from a served build into a fresh data folder. */
  | { kind: 'import'; from: string; dataDir: string; configPath: string }
  /** The import's baseline: GET each of `urls` (relative to `from`) as the import asks them, and JSON.parse it. */
  | { kind: 'import-baseline'; from: string; urls: string[]; concurrency: number }
  /** What the live preview does with one saved company file: read it, parse it, check each record. */
  | { kind: 'reload'; file: string };

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
   * parsing it calls, its share of garbage collection). Other threads' work (file system calls,
   * a server in another process) can overlap it; nothing on one thread brings a run below it.
   */
  mainThreadMs: number;
  /** process.resourceUsage().maxRSS, in bytes: the peak, start-up included. */
  maxRssBytes: number;
  /** RSS once modules are loaded, just before the clock starts. */
  startRssBytes: number;
  stages: Stage[];
  /** The build's routes. */
  routes?: number;
}

// Same bounds and the same calls as the build's load and write (scripts/builder/pipeline/load.ts, shared/write.ts),
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

/** Every file under `dir`, relative to it, in path order. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * Starts the clocks of a run. `record` ends a stage the work timed itself (the build's lines),
 * `step` one timed here, printed in the build's format; each stage's CPU and main thread time
 * count from the end of the stage before.
 */
function startClocks() {
  const startRssBytes = process.memoryUsage().rss;
  const cpu = process.cpuUsage();
  const loop = performance.eventLoopUtilization();
  const started = performance.now();
  const stages: Stage[] = [];
  let lap = { cpu, loop, at: started };
  const record = (stage: Pick<Stage, 'name' | 'ms' | 'line'>) => {
    const now = { cpu: process.cpuUsage(), loop: performance.eventLoopUtilization(), at: performance.now() };
    const cpuMs = (now.cpu.user + now.cpu.system - lap.cpu.user - lap.cpu.system) / 1000;
    const mainThreadMs = performance.eventLoopUtilization(now.loop, lap.loop).active;
    stages.push({ ...stage, cpuMs: Math.round(cpuMs), mainThreadMs: Math.round(mainThreadMs) });
    lap = now;
  };
  return {
    record,
    step(name: string, detail: string) {
      const ms = Math.round(performance.now() - lap.at);
      const line = `${name}: ${detail} (${ms} ms)`;
      process.stderr.write(`${line}\n`);
      record({ name, ms, line });
    },
    result(): ChildResult {
      const now = process.cpuUsage();
      return {
        ms: performance.now() - started,
        cpuMs: (now.user + now.system - cpu.user - cpu.system) / 1000,
        systemMs: (now.system - cpu.system) / 1000,
        mainThreadMs: performance.eventLoopUtilization(loop).active,
        maxRssBytes: process.resourceUsage().maxRSS * 1024,
        startRssBytes,
        stages,
      };
    },
  };
}

/** The build's stage lines end in `(N ms)`; the stage is the word before the colon. */
export function parseStage(line: string): Omit<Stage, 'cpuMs' | 'mainThreadMs'> | null {
  const match = /^([\w+-]+):.*\((\d+) ms\)$/.exec(line);
  return match ? { name: match[1] as string, ms: Number(match[2]), line } : null;
}

async function runBuild(job: Extract<Job, { kind: 'build' }>): Promise<ChildResult> {
  const { build } = await import('../../scripts/builder/build.ts');
  const { RESOURCES } = await import('../../scripts/contract/resources/index.ts');
  const { DataErrors, formatDataError } = await import('../../scripts/builder/pipeline/errors.ts');
  const clocks = startClocks();
  // build() logs as each stage ends, so the time used since the last line is that stage's.
  const log = (line: string) => {
    process.stderr.write(`${line}\n`);
    const stage = parseStage(line);
    if (stage) clocks.record(stage);
  };
  try {
    const result = await build({ ...job.options, resources: RESOURCES }, { log });
    return { ...clocks.result(), routes: result.routes.length };
  } catch (error) {
    if (error instanceof DataErrors)
      process.stderr.write(`${error.errors.slice(0, 20).map(formatDataError).join('\n')}\n`);
    throw error;
  }
}

async function runBaseline(job: Extract<Job, { kind: 'baseline' }>): Promise<ChildResult> {
  // Loaded before the clock: the baseline writes bytes it already holds, as the build does once it
  // has rendered them.
  const outputs = new Map<string, string>();
  for (const file of await filesUnder(job.referenceDir))
    outputs.set(file, await readFile(path.join(job.referenceDir, file), 'utf8'));
  let outputBytes = 0;
  for (const text of outputs.values()) outputBytes += Buffer.byteLength(text);
  const clocks = startClocks();
  let sourceBytes = 0;
  const parsed = await mapLimited(job.sourceFiles, READ_CONCURRENCY, async (file) => {
    const data = await readSource(file);
    sourceBytes += data.length;
    return JSON.parse(data.toString('utf8')) as unknown;
  });
  clocks.step('read+parse', `${parsed.length} files, ${sourceBytes} bytes`);
  const dirs = new Set([...outputs.keys()].map((file) => path.dirname(path.join(job.outDir, file))));
  for (const dir of [...dirs].sort()) await mkdir(dir, { recursive: true });
  await mapLimited([...outputs], WRITE_CONCURRENCY, ([file, text]) =>
    writeOutputFile(path.join(job.outDir, file), text),
  );
  // Naming the parsed values keeps them alive until here, as the build holds its records.
  clocks.step('write', `${outputs.size} files, ${outputBytes} bytes, ${parsed.length} parsed files held`);
  return clocks.result();
}

async function runDiff(job: Extract<Job, { kind: 'diff' }>): Promise<ChildResult> {
  const { readSide } = await import('../../scripts/review/side.ts');
  const { compareSides } = await import('../../scripts/review/compare.ts');
  const { RESOURCES } = await import('../../scripts/contract/resources/index.ts');
  const clocks = startClocks();
  const [before, after] = [await readSide(job.before, job.before), await readSide(job.after, job.after)];
  clocks.step('read', `${before.files.size} + ${after.files.size} files`);
  const { resources } = compareSides(before, after, RESOURCES);
  const changed = resources.reduce(
    (sum, diff) => sum + diff.added.length + diff.removed.length + diff.changed.length,
    0,
  );
  clocks.step('compare', `${changed} records differ`);
  return clocks.result();
}

async function runDiffBaseline(job: Extract<Job, { kind: 'diff-baseline' }>): Promise<ChildResult> {
  const clocks = startClocks();
  let files = 0;
  const parsed: unknown[] = [];
  for (const dir of [job.before, job.after]) {
    // Read as the diff reads a folder (scripts/review/side.ts): every file at once.
    const names = (await filesUnder(dir)).map((name) => path.join(dir, name));
    const texts = await Promise.all(names.map((name) => readFile(name, 'utf8')));
    files += names.length;
    names.forEach((name, index) => {
      if (name.endsWith('.json')) parsed.push(JSON.parse(texts[index] as string));
    });
  }
  clocks.step('read+parse', `${files} files, ${parsed.length} parsed`);
  return clocks.result();
}

async function runImport(job: Extract<Job, { kind: 'import' }>): Promise<ChildResult> {
  const { importService } = await import('../../scripts/migrate/import.ts');
  const { settingsFileText } = await import('../../scripts/cli/settings-file.ts');
  const { RESOURCES } = await import('../../scripts/contract/resources/index.ts');
  // Each of these lines of the import ends a stage: reading the lists, then the conversion and the
  // build's own check of it, then the writes.
  const STAGES: Array<[RegExp, string]> = [
    [/^import: read /, 'read'],
    [/^import: npm run build answers /, 'check'],
    [/^import: wrote /, 'write'],
  ];
  const clocks = startClocks();
  const result = await importService({
    from: job.from,
    dataDir: job.dataDir,
    configPath: job.configPath,
    force: false,
    resources: RESOURCES,
    settingsText: settingsFileText,
    log: (line) => {
      const stage = STAGES.find(([pattern]) => pattern.test(line));
      if (stage) clocks.step(stage[1], line.replace(/^import: /, ''));
    },
  });
  if (result.problems.length > 0) throw new Error(`the import found ${result.problems.length} problems`);
  return clocks.result();
}

/**
 * A GET of the whole body, as the import's client asks (node:http, its default keep-alive agent),
 * asked again once when the connection was closed without an answer, as the client does: a
 * server under load closes a kept-alive connection just as it is reused.
 */
async function fetchBody(url: string): Promise<Buffer> {
  try {
    return await fetchBodyOnce(url);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') throw error;
    return fetchBodyOnce(url);
  }
}

function fetchBodyOnce(url: string): Promise<Buffer> {
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
  const clocks = startClocks();
  let bytes = 0;
  const parsed = await mapLimited(job.urls, job.concurrency, async (url) => {
    const body = await fetchBody(new URL(url, job.from).href);
    bytes += body.length;
    return JSON.parse(body.toString('utf8')) as unknown;
  });
  clocks.step('fetch+parse', `${parsed.length} answers, ${bytes} bytes`);
  return clocks.result();
}

async function runReload(job: Extract<Job, { kind: 'reload' }>): Promise<ChildResult> {
  const { loadFile } = await import('../../scripts/builder/pipeline/load.ts');
  const { checkRecord } = await import('../../scripts/builder/pipeline/validate.ts');
  const { RESOURCES } = await import('../../scripts/contract/resources/index.ts');
  const clocks = startClocks();
  const bytes = await readFile(job.file);
  clocks.step('read', `${bytes.length} bytes`);
  const parsed = JSON.parse(bytes.toString('utf8')) as unknown[];
  clocks.step('JSON.parse', `${parsed.length} records, for comparison`);
  // The preview's own reading: the file read again, decoded and parsed strictly, with each record's place.
  const loaded = await loadFile({ resource: 'company', file: job.file });
  clocks.step('load', `${loaded.records.length} records read and parsed as the preview does`);
  const errors: DataError[] = [];
  for (const record of loaded.records) checkRecord(record, errors, RESOURCES);
  clocks.step('check', `${loaded.records.length} records, ${errors.length} problems`);
  return clocks.result();
}

const RUNS = {
  build: runBuild,
  baseline: runBaseline,
  diff: runDiff,
  'diff-baseline': runDiffBaseline,
  import: runImport,
  'import-baseline': runImportBaseline,
  reload: runReload,
} as const;

if (import.meta.url === `file://${process.argv[1]}`) {
  const job = JSON.parse(await text(process.stdin)) as Job;
  const result = await (RUNS[job.kind] as (job: Job) => Promise<ChildResult>)(job);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
