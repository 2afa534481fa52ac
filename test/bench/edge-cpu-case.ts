// The edge case: the CPU time the Cloudflare worker spends of its own on each kind of request,
// which Cloudflare bounds per request (Workers Free 10 ms, Paid 30 s by default). The worker that
// the build bundles (targets/cloudflare-workers/worker.js) is run on V8 in this process, its
// ASSETS binding reading the build's files from disk, with V8's sampling profiler on for each
// request: the time of the samples whose stack holds a frame of worker.js is its CPU time, as
// Cloudflare counts it (JavaScript of the isolate, not the waits for the assets).
//
// Why not workerd's own inspector under `wrangler dev`: wrangler holds the one inspector session
// workerd takes, and a profiler started through wrangler's proxy left the worker's requests
// waiting. The bundle is the same code; Node's V8 is a few versions from workerd's, and Node
// implements Response and streams in JavaScript where workerd has them native: the figures
// include that work where the worker calls it, so they are an upper bound of workerd's.

import { readFile, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULTS } from '../../scripts/cli/settings.ts';
import { recordsManifestFile } from '../../scripts/store/format.ts';
import { SAMPLE_DATA } from '../fixtures/sample.ts';
import { generate } from './generate.ts';
import { GROWTH, scaledCounts } from './growth-case.ts';
import { LAUNCHER, ROOT, runCommand } from './measure.ts';
import { buildCommand } from './peer-case.ts';

/** The lists' settings: the filters case's on the company list, and a search on the paginated textures. */
export const EDGE_SETTINGS = {
  company: {
    filterset_fields: ['country_name', 'city', 'platform_plus_status'],
    search_fields: ['name', '^city'],
    ordering_fields: ['name', 'city'],
    prerendered_filters: ['country_name'],
  },
  'virtualbooth-texture': { search_fields: ['name'], ordering_fields: ['name'] },
};

/** Each kind of request the worker answers, and one request of it. */
export const EDGE_REQUESTS = [
  { kind: 'plain list', method: 'GET', url: '/virtualfair/' },
  { kind: 'texture page', method: 'GET', url: '/virtualbooth-texture/?page=2' },
  { kind: 'list joined from parts', method: 'GET', url: '/company/' },
  { kind: 'event ordering', method: 'GET', url: '/event/?ordering=-start_date,name' },
  { kind: 'filter', method: 'GET', url: '/company/?country_name=Italy' },
  { kind: 'filter, not pre-rendered', method: 'GET', url: '/company/?city=Milano' },
  { kind: 'narrow search', method: 'GET', url: '/company/?search=laser' },
  { kind: 'broad search', method: 'GET', url: '/company/?search=a' },
  { kind: 'filtered page', method: 'GET', url: '/virtualbooth-texture/?search=a&page=2' },
  { kind: '405', method: 'POST', url: '/company/' },
  { kind: 'OPTIONS', method: 'OPTIONS', url: '/company/' },
] as const;

/** Asks of each request; the median is reported (the first asks also compile the code). */
const ASKS = 5;
/** V8's sampling interval, µs: fine enough for a request of a millisecond. */
const SAMPLING_US = 50;

export interface EdgeFigure {
  kind: string;
  request: string;
  status: number;
  bytes: number;
  /** The worker's CPU time per ask, ms (samples with a worker.js frame). */
  cpuMs: number[];
}

export interface EdgeCatalogue {
  catalogue: string;
  records: number;
  figures: EdgeFigure[];
}

interface Worker {
  fetch(
    request: Request,
    env: { ASSETS: { fetch(input: Request | URL | string): Promise<Response> } },
  ): Promise<Response>;
}

const TYPES: Readonly<Record<string, string>> = {
  '.json': 'application/json',
  '.txt': 'text/plain',
  '.html': 'text/html',
};

/** Cloudflare's asset binding over a folder: a file's bytes, its type and an entity tag, or 404. */
function folderAssets(dir: string) {
  return {
    async fetch(input: Request | URL | string): Promise<Response> {
      const { pathname } = new URL(typeof input === 'string' ? input : input instanceof URL ? input : input.url);
      const file = path.join(dir, decodeURIComponent(pathname));
      const bytes = await readFile(file).catch(() => null);
      if (bytes === null) return new Response(null, { status: 404 });
      const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
      return new Response(bytes, { headers: { 'Content-Type': type, ETag: `"${bytes.length}"` } });
    },
  };
}

interface ProfileNode {
  id: number;
  callFrame: { url: string };
  children?: number[];
}

/** The sampled time (µs) whose stack holds a frame of `script`. */
function timeIn(profile: { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] }, script: string): number {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const inScript = new Map<number, boolean>();
  const holds = (id: number): boolean => {
    const known = inScript.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    const up = parent.get(id);
    const found = node?.callFrame.url === script || (up !== undefined && holds(up));
    inScript.set(id, found);
    return found;
  };
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let total = 0;
  // A sample's time is the gap to the next one.
  for (let at = 0; at < samples.length; at++) if (holds(samples[at] as number)) total += deltas[at + 1] ?? 0;
  return total;
}

/** Each request of EDGE_REQUESTS asked of the worker of the build in `outDir`, profiled. */
export async function profileWorker(outDir: string): Promise<EdgeFigure[]> {
  const script = path.join(outDir, 'targets', 'cloudflare-workers', 'worker.js');
  const scriptUrl = pathToFileURL(script).href;
  const worker = (await import(scriptUrl)).default as Worker;
  const env = { ASSETS: folderAssets(path.join(outDir, 'public')) };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_US });
  const figures: EdgeFigure[] = [];
  try {
    for (const { kind, method, url } of EDGE_REQUESTS) {
      const figure: EdgeFigure = { kind, request: `${method} ${url}`, status: 0, bytes: 0, cpuMs: [] };
      for (let ask = 0; ask < ASKS; ask++) {
        await session.post('Profiler.start');
        const answer = await worker.fetch(new Request(`http://127.0.0.1${url}`, { method }), env);
        const body = await answer.arrayBuffer();
        const { profile } = await session.post('Profiler.stop');
        figure.status = answer.status;
        figure.bytes = body.byteLength;
        figure.cpuMs.push(timeIn(profile as never, scriptUrl) / 1000);
      }
      figures.push(figure);
    }
  } finally {
    await session.post('Profiler.disable');
    session.disconnect();
  }
  return figures;
}

/** Builds `dataDir` with EDGE_SETTINGS for cloudflare-workers into `outDir`. */
async function buildForWorker(dataDir: string, outDir: string, settingsFile: string, label: string): Promise<void> {
  await runCommand(
    process.execPath,
    buildCommand(dataDir, outDir, [
      '--config',
      settingsFile,
      '--target',
      'cloudflare-workers',
      '--cloudflare-plan',
      'paid',
      '--precompress',
      'off',
    ]),
    { cwd: ROOT, label },
  );
}

export async function runEdgeCase(benchDir: string, dataDir: string): Promise<EdgeCatalogue[]> {
  const dir = path.join(benchDir, 'edge');
  await rm(dir, { recursive: true, force: true });
  const settingsFile = path.join(benchDir, 'edge-settings.json');
  const { baseUrl, pageSize } = DEFAULTS;
  await writeFile(settingsFile, JSON.stringify({ baseUrl, pageSize, resources: EDGE_SETTINGS }));
  await runCommand(process.execPath, [LAUNCHER, 'build', '--help'], { cwd: ROOT, label: 'edge: launcher ready' });
  const grownData = path.join(dir, `data-x${GROWTH}`);
  console.log(`edge: generating ${GROWTH} times the catalogue into ${path.relative(ROOT, grownData)}/ ...`);
  generate(grownData, scaledCounts(GROWTH));
  const catalogues = [
    { catalogue: 'sample', data: SAMPLE_DATA },
    { catalogue: 'benchmark', data: dataDir },
    { catalogue: `${GROWTH}x benchmark`, data: grownData },
  ];
  const results: EdgeCatalogue[] = [];
  try {
    for (const { catalogue, data } of catalogues) {
      const outDir = path.join(dir, catalogue.replaceAll(' ', '-'));
      await buildForWorker(data, outDir, settingsFile, `edge: build ${catalogue}`);
      console.log(`edge: the worker of the ${catalogue} build, each request profiled ...`);
      const manifest = path.join(outDir, 'public', recordsManifestFile('company'));
      const { count } = JSON.parse(await readFile(manifest, 'utf8')) as { count: number };
      results.push({ catalogue, records: count, figures: await profileWorker(outDir) });
      await rm(outDir, { recursive: true, force: true });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return results;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/** The table of docs/performance.md: each kind's median CPU time per catalogue, against the free plan's 10 ms. */
export function edgeReport(results: readonly EdgeCatalogue[]): { lines: string[]; passed: boolean } {
  const head = `| request | ${results.map(({ catalogue, records }) => `${catalogue} (${records.toLocaleString('en-US')} companies)`).join(' | ')} |`;
  const rows = EDGE_REQUESTS.map(({ kind, method, url }, index) => {
    const cells = results.map(({ figures }) => {
      const figure = figures[index] as EdgeFigure;
      return `${median(figure.cpuMs).toFixed(1)} ms (${figure.status})`;
    });
    return `| ${kind}: \`${method} ${url}\` | ${cells.join(' | ')} |`;
  });
  return {
    passed: results.every(({ figures }) => figures.every((figure) => figure.status < 500)),
    lines: [
      '',
      `Edge case: the worker's own CPU time per request (V8's sampling profiler, median of ${ASKS} asks), each catalogue built with the case's settings:`,
      '',
      head,
      `|---|${results.map(() => '---').join('|')}|`,
      ...rows,
    ],
  };
}
