// The filters case: what the settings file's filters, search and ordering cost on the benchmark
// catalogue. `npm run build` with a `resources` section for the company list against the same build
// without it, in alternating rounds (the time and the bytes the records' parts add), then the
// answers of `npm run serve` on that build: a filter, a narrow search, a search that matches most
// companies and an ordering, each against the plain company list, the baseline a client would
// otherwise download whole.

import { rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { DEFAULTS } from '../cli/settings.ts';
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

const BUILD_ROUNDS = 2;
const ASKS = 5;

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

export interface FiltersResult {
  /** The build with the settings, and without, round by round. */
  withSettings: CommandRun[];
  without: CommandRun[];
  /** The output's bytes with the settings and without. */
  bytesWith: number;
  bytesWithout: number;
  /** Each request's answer times (ms) and its status and records, the plain list's first. */
  answers: Array<{ request: string; ms: number[]; status: number; bytes: number }>;
}

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
    call.on('error', reject);
  });
}

/** The times of `ASKS` GETs of `url`. */
async function timedAsks(url: string): Promise<{ ms: number[]; status: number; bytes: number }> {
  const ms: number[] = [];
  let status = 0;
  let bytes = 0;
  for (let ask = 0; ask < ASKS; ask++) {
    const answer = await timedAsk(url);
    ms.push(answer.ms);
    status = answer.status;
    bytes = answer.bytes;
  }
  return { ms, status, bytes };
}

export async function runFiltersCase(benchDir: string, dataDir: string): Promise<FiltersResult> {
  const dir = path.join(benchDir, 'filters');
  await rm(dir, { recursive: true, force: true });
  const { baseUrl, pageSize } = DEFAULTS;
  const settingsFile = path.join(benchDir, 'filters-settings.json');
  await writeFile(settingsFile, JSON.stringify({ baseUrl, pageSize, resources: RESOURCE_SETTINGS }));
  await runCommand(process.execPath, [LAUNCHER, 'build', '--help'], { cwd: ROOT, label: 'filters: launcher ready' });
  const outOf = (kind: string, round: number) => path.join(dir, `${kind}-r${round}`);
  const timedBuild = (outDir: string, more: string[], label: string) => {
    settleDisk();
    return runCommand(process.execPath, [...buildCommand(dataDir, outDir), ...more], { cwd: ROOT, label });
  };
  const rounds = await alternatingRounds(
    (round) => timedBuild(outOf('with', round), ['--config', settingsFile], `build with settings r${round}`),
    (round) => timedBuild(outOf('without', round), [], `build without r${round}`),
    BUILD_ROUNDS,
  );
  const served = path.join(outOf('with', BUILD_ROUNDS - 1), 'public');
  const bytesWith = (await summariseTree(served)).bytes;
  const bytesWithout = (await summariseTree(path.join(outOf('without', BUILD_ROUNDS - 1), 'public'))).bytes;
  const port = await freePort();
  const server = await startCommand(
    process.execPath,
    [LAUNCHER, 'serve', '--out', served, '--port', String(port), '--host', '127.0.0.1'],
    { cwd: ROOT, ready: (stderr) => stderr.includes('Serving') },
  );
  const answers: FiltersResult['answers'] = [];
  try {
    for (const request of [PLAIN_REQUEST, ...FILTER_REQUESTS]) {
      answers.push({ request, ...(await timedAsks(`http://127.0.0.1:${port}${request}`)) });
    }
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return { withSettings: rounds.runs, without: rounds.baselines, bytesWith, bytesWithout, answers };
}
