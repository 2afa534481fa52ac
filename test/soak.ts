// `npm run soak`: load on the local server, nginx and Caddy while the output they serve is built
// again every few seconds, as a deploy or `npm run build` beside a running server does. Every
// answer must be a 200 whose body is the whole file of one build or the other (the builds
// alternate between two base URLs, so the texture pages change each time): a failed answer or
// a torn body (a mix, or a cut) is counted, and any makes the run fail. The local server's
// memory is sampled over the run and must stay flat (its second half's peak within 10 % of the
// first half's). Bounded: --seconds (60 by default), --every (3 s).

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { build } from '../scripts/builder/build.ts';
import { buildUrl } from '../scripts/contract/pagination.ts';
import { PAGE_SIZE } from './e2e/lib/contract.ts';
import { caddy } from './e2e/targets/caddy.ts';
import { nginx } from './e2e/targets/nginx.ts';
import { freePort, spawnProcess, waitForPort } from './e2e/targets/process.ts';
import type { Target } from './e2e/targets/target.ts';
import { API, SAMPLE_API_MODULE, SAMPLE_DATA, SAMPLE_HEADERS } from './fixtures/sample.ts';
import { findProgram, missingLine } from './installed.ts';
import { memoryGrowth } from './memory-growth.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '60' }, every: { type: 'string', default: '3' } },
});
const SECONDS = Number(values.seconds);
const EVERY_MS = Number(values.every) * 1000;
/** Requests in flight per server. */
const CLIENTS = 4;

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function get(origin: string, target: string): Promise<{ status: number; body: Buffer } | Error> {
  return new Promise((done) => {
    const request = http.get(`${origin}${target}`, { agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', done);
      response.on('end', () => done({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    request.setTimeout(10_000, () => request.destroy(new Error('no answer within 10 s')));
    request.on('error', done);
  });
}

function rssMegabytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

const tmp = await mkdtemp(path.join(os.tmpdir(), 'soak-'));
const stops: Array<() => Promise<void>> = [];
try {
  const port = await freePort();
  const bases = [`http://127.0.0.1:${port}`, 'https://api.example.com'];
  const publicDir = path.join(tmp, 'public');
  const targetsDir = path.join(tmp, 'targets');
  // Only the first build writes the servers' configurations; the others rebuild the output alone.
  const options = (baseUrl: string, outDir: string, targets?: string[]) => ({
    resources: API,
    dataDir: SAMPLE_DATA,
    headersPath: SAMPLE_HEADERS,
    outDir,
    targetsDir,
    baseUrl,
    pageSize: PAGE_SIZE,
    targets,
  });

  // The whole bytes of every route under each base URL: any other body is torn.
  const whole = new Map<string, Set<string>>();
  let routes: Array<{ url: string; file: string }> = [];
  for (const [index, base] of bases.entries()) {
    const outDir = path.join(tmp, `version-${index}`);
    const result = await build(options(base, outDir, []));
    routes = result.routes.map((route) => ({ url: buildUrl('', route.path, route.query), file: route.file }));
    for (const { file } of routes) {
      const hashes = whole.get(file) ?? new Set();
      whole.set(file, hashes.add(sha(readFileSync(path.join(outDir, file)))));
    }
  }
  await build(options(bases[0] as string, publicDir));

  // The servers: the local one as `npm run serve` runs it, nginx and Caddy where installed.
  const servers: Array<{ name: string; origin: string }> = [];
  const local = spawnProcess(process.execPath, [
    'scripts/command.mjs',
    'serve',
    '--api-module',
    SAMPLE_API_MODULE,
    '--out',
    publicDir,
    '--port',
    String(port),
  ]);
  stops.push(local.stop);
  await waitForPort(port, local);
  servers.push({ name: 'local', origin: bases[0] as string });
  for (const target of [nginx, caddy] as Target[]) {
    if (target.needs && !findProgram(target.needs.names)) {
      console.error(missingLine(target.needs.what, `the soak on ${target.name}`));
      continue;
    }
    const workDir = path.join(tmp, `work-${target.name}`);
    await mkdir(workDir);
    const running = await target.start({ publicDir, targetsDir, port: await freePort(), workDir });
    stops.push(running.stop);
    servers.push({ name: target.name, origin: running.origin });
  }

  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  const memory: number[] = [rssMegabytes(local.child.pid as number)];
  /** The second of the run each sample was taken at. */
  const sampledAt: number[] = [0];
  const sample = () => {
    memory.push(rssMegabytes(local.child.pid as number));
    sampledAt.push((performance.now() - started) / 1000);
  };
  let rebuilds = 0;
  const rebuilding = (async () => {
    while (performance.now() + EVERY_MS < deadline) {
      await new Promise((done) => setTimeout(done, EVERY_MS));
      await build(options(bases[(rebuilds + 1) % 2] as string, publicDir, []));
      rebuilds += 1;
      sample();
    }
  })();
  const counts = servers.map((server) => ({ ...server, requests: 0, failures: 0, torn: 0, examples: [] as string[] }));
  await Promise.all(
    counts.flatMap((server) =>
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let i = client; performance.now() < deadline; i += CLIENTS) {
          const route = routes[i % routes.length] as { url: string; file: string };
          const answer = await get(server.origin, route.url);
          server.requests += 1;
          if (answer instanceof Error || answer.status !== 200) {
            server.failures += 1;
            const what = answer instanceof Error ? answer.message : `status ${answer.status}`;
            if (server.examples.length < 3) server.examples.push(`GET ${route.url}: ${what}`);
          } else if (!whole.get(route.file)?.has(sha(answer.body))) {
            server.torn += 1;
            if (server.examples.length < 3) server.examples.push(`GET ${route.url}: a body of no build`);
          }
        }
      }),
    ),
  );
  await rebuilding;
  sample();

  console.log(`soak: ${SECONDS} s, ${rebuilds} builds (one every ${EVERY_MS / 1000} s), ${CLIENTS} clients per server`);
  for (const server of counts) {
    console.log(`  ${server.name}: ${server.requests} requests, ${server.failures} failed, ${server.torn} torn`);
    for (const example of server.examples) console.log(`    ${example}`);
  }
  console.log(`  local server memory (RSS, MB, at each build): ${memory.join(' ')}`);
  // Over time: the lowest and highest sample of each minute.
  const minutes = new Map<number, number[]>();
  for (const [i, mb] of memory.entries()) {
    const minute = Math.floor((sampledAt[i] as number) / 60);
    minutes.set(minute, [...(minutes.get(minute) ?? []), mb]);
  }
  const ranges = [...minutes].map(([m, mbs]) => `${m}-${m + 1} min ${Math.min(...mbs)}–${Math.max(...mbs)}`);
  console.log(`  local server memory by minute (MB): ${ranges.join(', ')}`);
  const growth = memoryGrowth(memory);
  console.log(
    `  local server memory peak: ${growth.firstHalf} MB in the first half, ${growth.secondHalf} MB in the second: ${growth.flat ? 'flat' : 'growing'}`,
  );
  if (counts.some((server) => server.failures > 0 || server.torn > 0) || !growth.flat) process.exitCode = 1;
} finally {
  for (const stop of stops) await stop();
  await rm(tmp, { recursive: true, force: true });
}
