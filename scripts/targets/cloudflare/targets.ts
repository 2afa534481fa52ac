// The three Cloudflare targets: what Cloudflare's services accept, checked by targets/limits.ts,
// and what each answers. Cloudflare's targets with code do not count public/_headers: the worker
// applies its rules itself. Each one's generator is loaded when its files are asked for.

import { type Limit, MAX_CPU_MS, READ, sortedListFile, WEB_SERVERS } from '../limits.ts';
import type { Target } from '../target.ts';
import { assetFiles, MAX_ASSET_BYTES, uploadedFiles } from './assets.ts';
import { cpuEstimates } from './cpu-time.ts';

const WORKERS_LIMITS = 'https://developers.cloudflare.com/workers/platform/limits/';
const PAGES_LIMITS = 'https://developers.cloudflare.com/pages/platform/limits/';

/**
 * What a Cloudflare upload keeps (assets.ts): `code` for the targets with the worker, which upload
 * a file over 25 MiB as its parts, `static` for cloudflare-pages-static, which uploads it whole.
 */
const UPLOADED = {
  code: (sizes: ReadonlyMap<string, number>) => uploadedFiles(sizes, 'code'),
  static: (sizes: ReadonlyMap<string, number>) => uploadedFiles(sizes, 'static'),
} as const;

function assetLimits(service: string, source: string, upload: 'code' | 'static'): Limit[] {
  // A file over the limit reaches the targets with the worker as parts that fit: only the static
  // target can be over it, and they can take it.
  const others = upload === 'static' ? `cloudflare-workers, cloudflare-pages, ${WEB_SERVERS}` : WEB_SERVERS;
  const uploaded = UPLOADED[upload];
  return [
    {
      measure: { kind: 'file-size', uploaded },
      max: MAX_ASSET_BYTES,
      what: `per file on ${service}`,
      ways: `another target (${others})`,
      source,
      read: READ,
    },
    {
      // Pages also uploads the target's own files laid over public/ (none for Workers: the
      // worker is code, not an asset).
      measure: { kind: 'file-count', extra: 0, uploaded },
      max: { free: 20_000, paid: 100_000 },
      what: `files per deployment on ${service}`,
      ways: `a larger --page-size (fewer texture pages), or another target (${WEB_SERVERS})`,
      source,
      read: READ,
    },
  ];
}

/**
 * The one answer the worker holds whole: an ordering by several fields parses a list that takes
 * `?ordering=` and sorts it. Cloudflare gives a Worker 128 MB, and the parsed records take several times the
 * text; the list is held to what a single asset could be before lists came in parts, which the
 * worker has always sorted. Not measured in workerd: a bound kept, not one found.
 */
function sortedInMemory(): Limit {
  return {
    measure: { kind: 'file-size', files: sortedListFile },
    max: MAX_ASSET_BYTES,
    what: "sorted per request within a Worker's 128 MB of memory",
    ways: `another target (${WEB_SERVERS}, which answer an ordering by several fields with 400)`,
    source: WORKERS_LIMITS,
    read: READ,
  };
}

/**
 * The worker's CPU time per request for each list's filter, search and ordering (cpu-time.ts):
 * past the plan's limit Cloudflare fails the request with error 1102.
 */
function cpuTime(): Limit {
  return {
    measure: {
      kind: 'cpu-time',
      estimate: ({ sizes, resources }) =>
        cpuEstimates(sizes, resources).map(({ list, request, ms }) => ({ subject: `${list}${request}`, ms })),
    },
    max: { free: 10, paid: 30_000 },
    what: 'CPU time per request on Cloudflare Workers',
    ways: `cpuMs in the settings file on the paid plan (up to ${MAX_CPU_MS.toLocaleString('en-US')}), fewer filters, search fields and orderings, or another target (${WEB_SERVERS}, which answer prerendered_filters without code)`,
    source: WORKERS_LIMITS,
    read: READ,
  };
}

export const cloudflareWorkers: Target = {
  name: 'cloudflare-workers',
  limits: [...assetLimits('Cloudflare Workers static assets', WORKERS_LIMITS, 'code'), sortedInMemory(), cpuTime()],
  queries: 'handler',
  files: async (context) => (await import('./workers.ts')).workersFiles(context),
  // The parts of the files too large for static assets, and `.assetsignore`: cloudflare-pages
  // runs the same worker on the same files, so this one target writes them for both.
  siteFiles: (_context, output) => assetFiles(output),
};

export const cloudflarePages: Target = {
  name: 'cloudflare-pages',
  limits: [...assetLimits('Cloudflare Pages', PAGES_LIMITS, 'code'), sortedInMemory(), cpuTime()],
  queries: 'handler',
  files: async (context) => (await import('./pages.ts')).pagesFiles(context),
};

export const cloudflarePagesStatic: Target = {
  name: 'cloudflare-pages-static',
  limits: [
    ...assetLimits('Cloudflare Pages', PAGES_LIMITS, 'static').map((limit) =>
      limit.measure.kind === 'file-count'
        ? { ...limit, measure: { kind: 'file-count', extra: 1, uploaded: UPLOADED.static } as const }
        : limit,
    ),
    {
      measure: { kind: 'rules', place: { in: 'target', file: '_redirects' }, count: 'redirects-static' },
      max: 2_000,
      what: 'static _redirects rules on Cloudflare Pages',
      ways: 'another target (cloudflare-pages, cloudflare-workers)',
      source: 'https://developers.cloudflare.com/pages/configuration/redirects/',
      read: READ,
    },
    {
      measure: { kind: 'rules', place: { in: 'target', file: '_redirects' }, count: 'redirects-dynamic' },
      max: 100,
      what: 'dynamic _redirects rules on Cloudflare Pages',
      ways: 'another target (cloudflare-pages, cloudflare-workers)',
      source: 'https://developers.cloudflare.com/pages/configuration/redirects/',
      read: READ,
    },
    {
      measure: { kind: 'rules', place: { in: 'target', file: '_headers' }, count: 'headers' },
      max: 100,
      what: '_headers rules on Cloudflare Pages',
      ways: 'fewer rules in _headers, or another target (cloudflare-pages, cloudflare-workers)',
      source: PAGES_LIMITS,
      read: READ,
    },
  ],
  queries: 'path',
  files: async (context) => (await import('./pages-static.ts')).pagesStaticFiles(context),
};
