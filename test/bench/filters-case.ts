// The filters case: what the settings file's filters, search and ordering cost on the benchmark
// catalogue. `npm run build` with a `resources` section for the company list against the same build
// without it, in alternating rounds (the time and the bytes the records' parts add), then the
// answers of `npm run serve` on that build: a filter, a narrow search, a search that matches most
// companies and an ordering, each against the plain company list, the baseline a client would
// otherwise download whole. Then the same requests to the Cloudflare worker of that build under
// `wrangler dev`, with the peak RSS of the workerd that runs it: Workers give an isolate 128 MB,
// so an answer must never parse the whole list.

import { mkdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { DEFAULTS } from '../../scripts/cli/settings.ts';
import {
  alternatingRounds,
  type CommandRun,
  freePort,
  LAUNCHER,
  ROOT,
  runCommand,
  settleDisk,
  startCommand,
  summariseTree,
} from './measure.ts';
import { buildCommand } from './peer-case.ts';
import { startWorker, WRANGLER, workerdPeakRss, wranglerCpuMs, wranglerInstalled } from './wrangler.ts';

const BUILD_ROUNDS = 2;
/** Asks of each request to the local server, and to the worker, whose answers take seconds through wrangler's proxy. */
const ASKS = 5;
const WORKER_ASKS = 3;

/** The company list's filters, search and ordering, as a user would set them. */
const RESOURCE_SETTINGS = {
  company: {
    filterset_fields: ['country_name', 'city', 'platform_plus_status'],
    search_fields: ['name', '^city'],
    ordering_fields: ['name', 'city'],
  },
};

/** Each request timed, and the plain list it is held against. */
export const FILTER_REQUESTS = [
  '/company/?country_name=Italy',
  '/company/?search=laser',
  '/company/?search=a',
  '/company/?ordering=-city',
] as const;
export const PLAIN_REQUEST = '/company/';
/**
 * The requests held to the plain list's time besides the second: a filter answers a part of the
 * list, so it must cost no more than the whole. A search or an ordering may answer most of it.
 */
export const HELD_TO_PLAIN: ReadonlySet<string> = new Set(['/company/?country_name=Italy']);
/**
 * The requests held to the second under `wrangler dev` too: a filter and a narrow search. The
 * others answer most of the list through wrangler's local proxy, which Cloudflare does not run;
 * their time and the worker's memory are reported.
 */
export const TIMED_ON_WORKER: ReadonlySet<string> = new Set(['/company/?country_name=Italy', '/company/?search=laser']);

/** A request's answers: each ask's time (ms), and the last one's status and bytes. */
export interface Answers {
  request: string;
  ms: number[];
  status: number;
  bytes: number;
}

/** The same requests to the Cloudflare worker under `wrangler dev`, with the memory of its workerd. */
export interface WorkerAnswers {
  /** Peak RSS (bytes) of the workerd that runs the worker once it answered its first request. */
  rssBefore: number;
  /**
   * Each request's answers, that peak once they were all read, and the CPU time (ms) per ask, mean
   * over the asks, of that workerd and of the rest of wrangler dev (its Node process and its proxy).
   */
  answers: Array<Answers & { rssAfter: number; workerCpuMs: number; wranglerCpuMs: number }>;
}

export interface FiltersResult {
  /** The build with the settings, and without, round by round. */
  withSettings: CommandRun[];
  without: CommandRun[];
  /** The output's bytes with the settings and without. */
  bytesWith: number;
  bytesWithout: number;
  /** Each request's answers from `npm run serve`, the plain list's first. */
  answers: Answers[];
  /** The same from the worker, in the same order; why not, when wrangler is missing. */
  worker: WorkerAnswers | { skipped: string };
}

/** Long enough for an ordering of the whole list through wrangler's proxy on a loaded machine. */
const ASK_TIMEOUT_MS = 5 * 60_000;

/** One GET of `url` on a connection of its own, the body read whole (counted, not kept). */
function timedAsk(url: string): Promise<{ ms: number; status: number; bytes: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    // A connection per ask: on a loaded machine a kept-alive one was closed by the server's
    // keep-alive timeout just as the next ask went out on it ("other side closed").
    const call = http.get(url, { agent: false }, (answer) => {
      let bytes = 0;
      answer.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      answer.on('end', () => resolve({ ms: performance.now() - started, status: answer.statusCode ?? 0, bytes }));
      answer.on('error', reject);
    });
    call.setTimeout(ASK_TIMEOUT_MS, () => call.destroy(new Error(`${url}: no answer in ${ASK_TIMEOUT_MS / 1000} s`)));
    call.on('error', reject);
  });
}

/** `asks` GETs of `request` from `origin`, one after the other. */
async function timedAsks(origin: string, request: string, asks: number): Promise<Answers> {
  const ms: number[] = [];
  let status = 0;
  let bytes = 0;
  for (let ask = 0; ask < asks; ask++) {
    const answer = await timedAsk(`${origin}${request}`);
    ms.push(answer.ms);
    status = answer.status;
    bytes = answer.bytes;
  }
  return { request, ms, status, bytes };
}

/** `npm run build` with the settings and without, alternating; the bytes each wrote to public/. */
async function buildBoth(
  dataDir: string,
  settingsFiles: { with: string; without: string },
  outOf: (kind: string, round: number) => string,
) {
  await runCommand(process.execPath, [LAUNCHER, 'build', '--help'], { cwd: ROOT, label: 'filters: launcher ready' });
  const timedBuild = (outDir: string, more: string[], label: string) => {
    settleDisk();
    return runCommand(process.execPath, [...buildCommand(dataDir, outDir), ...more], { cwd: ROOT, label });
  };
  const rounds = await alternatingRounds(
    (round) => timedBuild(outOf('with', round), ['--config', settingsFiles.with], `build with settings r${round}`),
    (round) => timedBuild(outOf('without', round), ['--config', settingsFiles.without], `build without r${round}`),
    BUILD_ROUNDS,
  );
  const bytesWith = (await summariseTree(path.join(outOf('with', BUILD_ROUNDS - 1), 'public'))).bytes;
  const bytesWithout = (await summariseTree(path.join(outOf('without', BUILD_ROUNDS - 1), 'public'))).bytes;
  return { withSettings: rounds.runs, without: rounds.baselines, bytesWith, bytesWithout };
}

/** `npm run serve` of the build in `outDir`, asked every request. */
async function askLocalServer(outDir: string): Promise<Answers[]> {
  const port = await freePort();
  const server = await startCommand(
    process.execPath,
    [LAUNCHER, 'serve', '--out', path.join(outDir, 'public'), '--port', String(port), '--host', '127.0.0.1'],
    { cwd: ROOT, ready: (stderr) => stderr.includes('Serving') },
  );
  const answers: Answers[] = [];
  try {
    for (const request of [PLAIN_REQUEST, ...FILTER_REQUESTS])
      answers.push(await timedAsks(`http://127.0.0.1:${port}`, request, ASKS));
  } finally {
    await server.stop();
  }
  return answers;
}

/**
 * `wrangler dev` of the build's targets/cloudflare-workers in `outDir` (the worker, with the
 * records' parts in public/ beside it), asked every request, the peak RSS of its workerd read
 * before the first and after each, and the CPU time of the worker's workerd and of the rest
 * around each: wrangler's proxy costs more than the worker for a large answer.
 */
async function askWorker(outDir: string, workDir: string): Promise<FiltersResult['worker']> {
  if (!wranglerInstalled()) return { skipped: `wrangler is not installed (${WRANGLER}; npm ci installs it)` };
  console.log('filters: wrangler dev of the same build, the worker asked the same requests ...');
  await mkdir(workDir, { recursive: true });
  const worker = await startWorker(path.join(outDir, 'targets'), workDir);
  try {
    const rssBefore = await workerdPeakRss(workDir);
    const answers: WorkerAnswers['answers'] = [];
    for (const request of [PLAIN_REQUEST, ...FILTER_REQUESTS]) {
      const cpuBefore = await wranglerCpuMs(workDir);
      const answered = await timedAsks(worker.origin, request, WORKER_ASKS);
      const cpuAfter = await wranglerCpuMs(workDir);
      answers.push({
        ...answered,
        rssAfter: await workerdPeakRss(workDir),
        workerCpuMs: (cpuAfter.worker - cpuBefore.worker) / WORKER_ASKS,
        wranglerCpuMs: (cpuAfter.rest - cpuBefore.rest) / WORKER_ASKS,
      });
    }
    return { rssBefore, answers };
  } finally {
    await worker.stop();
  }
}

export async function runFiltersCase(benchDir: string, dataDir: string): Promise<FiltersResult> {
  const dir = path.join(benchDir, 'filters');
  await rm(dir, { recursive: true, force: true });
  const { baseUrl, pageSize } = DEFAULTS;
  const settingsFile = path.join(benchDir, 'filters-settings.json');
  await writeFile(settingsFile, JSON.stringify({ baseUrl, pageSize, resources: RESOURCE_SETTINGS }));
  // The build without: the same settings but the queries, whatever the project's own file says.
  const plainFile = path.join(benchDir, 'plain-settings.json');
  await writeFile(plainFile, JSON.stringify({ baseUrl, pageSize }));
  const outOf = (kind: string, round: number) => path.join(dir, `${kind}-r${round}`);
  try {
    const builds = await buildBoth(dataDir, { with: settingsFile, without: plainFile }, outOf);
    const served = outOf('with', BUILD_ROUNDS - 1);
    const answers = await askLocalServer(served);
    const worker = await askWorker(served, path.join(dir, 'wrangler'));
    return { ...builds, answers, worker };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
