// What each deploy target's host accepts, as data, and the one check of a build against it. A
// host refuses a deploy (or drops rules, or fails requests) past these limits, long after the
// build said it was done; the build checks them first (builder/build.ts). Limits change: each
// one names the page it was read from and when. Web servers have none of their own: their lists
// are empty on purpose, not missing.

import { RESOURCES } from '../contract/routes.ts';
import { UserFacingError } from '../shared/errors.ts';
import { MAX_ASSET_BYTES, uploadedFiles } from './cloudflare/assets.ts';
import type { TARGET_NAMES } from './names.ts';

/** The folders of the paginated lists, whose files are pages. */
const PAGINATED = RESOURCES.filter((resource) => resource.paginated).map((resource) => resource.name);

export const CLOUDFLARE_PLANS = ['free', 'paid'] as const;
export type CloudflarePlan = (typeof CLOUDFLARE_PLANS)[number];

/** From this share of a limit on, the build warns. */
export const NEAR_SHARE = 0.8;

/** A file of the output folder or of the target's own folder, by its path there. */
interface Place {
  in: 'output' | 'target';
  file: string;
}

/**
 * Which files of the output a host receives: all of them, or what a Cloudflare upload keeps
 * (targets/cloudflare/assets.ts): `code` for the targets with the worker, which upload a file
 * over 25 MiB as its parts, `static` for cloudflare-pages-static, which uploads it whole.
 */
type Uploaded = 'all' | 'code' | 'static';

/**
 * What a limit counts. Rules are counted in the generated files themselves: `redirects-static`
 * and `redirects-dynamic` split a `_redirects` as Cloudflare does (a source with `*` or a
 * `:placeholder` is dynamic), `headers` counts the path lines of a `_headers`, `vercel-routes`
 * the entries of vercel.json that each become a route.
 */
type Measure =
  | { kind: 'file-size'; files?: RegExp; uploaded?: Uploaded }
  | { kind: 'file-count'; extra: number; uploaded?: Uploaded }
  | {
      kind: 'rules';
      place: Place;
      count: 'redirects-all' | 'redirects-static' | 'redirects-dynamic' | 'headers' | 'vercel-routes';
    };

export interface Limit {
  measure: Measure;
  /** The most the host takes, or per Cloudflare plan. */
  max: number | Readonly<Record<CloudflarePlan, number>>;
  /** The host's name for it, shown after the number. */
  what: string;
  /**
   * What to do instead, shown with each breach; a texture page over a size limit also gets a
   * smaller page size, which is no way out for the other lists (they have no pages).
   */
  ways: string;
  source: string;
  /** When `source` was read. */
  read: string;
}

const MIB = 1024 * 1024;
const READ = '2026-11-25';
const WORKERS_LIMITS = 'https://developers.cloudflare.com/workers/platform/limits/';
const PAGES_LIMITS = 'https://developers.cloudflare.com/pages/platform/limits/';
/** The targets that are web servers, which have no limits of their own: the way out of a host's. */
const WEB_SERVERS = 'nginx, caddy or apache';

function assetLimits(host: string, source: string, uploaded: 'code' | 'static'): Limit[] {
  // A file over the limit reaches the targets with the worker as parts that fit: only the static
  // target can be over it, and they can take it.
  const others = uploaded === 'static' ? `cloudflare-workers, cloudflare-pages, ${WEB_SERVERS}` : WEB_SERVERS;
  return [
    {
      measure: { kind: 'file-size', uploaded },
      max: MAX_ASSET_BYTES,
      what: `per file on ${host}`,
      ways: `another target (${others})`,
      source,
      read: READ,
    },
    {
      // Pages also uploads the target's own files laid over public/ (none for Workers: the
      // worker is code, not an asset).
      measure: { kind: 'file-count', extra: 0, uploaded },
      max: { free: 20_000, paid: 100_000 },
      what: `files per deployment on ${host}`,
      ways: `a larger --page-size (fewer texture pages), or another target (${WEB_SERVERS})`,
      source,
      read: READ,
    },
  ];
}

/**
 * The one answer the worker holds whole: an ordering by several fields parses the event list and
 * sorts it. Cloudflare gives a Worker 128 MB, and the parsed records take several times the
 * text; the list is held to what a single asset could be before lists came in parts, which the
 * worker has always sorted. Not measured in workerd: a bound kept, not one found.
 */
function sortedInMemory(): Limit {
  return {
    measure: { kind: 'file-size', files: /^event\/index\.json$/ },
    max: MAX_ASSET_BYTES,
    what: "sorted per request within a Worker's 128 MB of memory",
    ways: `another target (${WEB_SERVERS}, which answer an ordering by several fields with 400)`,
    source: WORKERS_LIMITS,
    read: READ,
  };
}

/** Cloudflare's targets with code do not count public/_headers: the worker applies its rules itself. */
export const LIMITS: Readonly<Record<(typeof TARGET_NAMES)[number], readonly Limit[]>> = {
  'cloudflare-workers': [...assetLimits('Cloudflare Workers static assets', WORKERS_LIMITS, 'code'), sortedInMemory()],
  'cloudflare-pages': [...assetLimits('Cloudflare Pages', PAGES_LIMITS, 'code'), sortedInMemory()],
  'cloudflare-pages-static': [
    ...assetLimits('Cloudflare Pages', PAGES_LIMITS, 'static').map((limit) =>
      limit.measure.kind === 'file-count'
        ? { ...limit, measure: { kind: 'file-count', extra: 1, uploaded: 'static' } as const }
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
  nginx: [],
  caddy: [],
  apache: [],
  netlify: [
    {
      // Netlify names no hard count: it advises wildcards from 10,000 rules, as a deploy with
      // rules too large to serialize fails.
      measure: { kind: 'rules', place: { in: 'target', file: '_redirects' }, count: 'redirects-all' },
      max: 10_000,
      what: '_redirects rules Netlify advises against',
      ways: `a larger --page-size (three rules per texture page), or another target (cloudflare-workers, ${WEB_SERVERS})`,
      source: 'https://docs.netlify.com/routing/redirects/',
      read: READ,
    },
    {
      // query.mjs passes a list file through as a stream for a query no rule answers (`format=`).
      measure: { kind: 'file-size', files: /^[^_/][^/]*\/[^/]+\.json$/ },
      max: 20_000_000,
      what: 'streamed per Netlify function answer',
      ways: `another target (cloudflare-workers, ${WEB_SERVERS})`,
      source: 'https://docs.netlify.com/build/functions/overview/',
      read: READ,
    },
    {
      // An ordering by several fields is sorted and sent whole, buffered.
      measure: { kind: 'file-size', files: /^event\/index\.json$/ },
      max: 6_000_000,
      what: 'buffered per Netlify function answer',
      ways: `another target (cloudflare-workers, ${WEB_SERVERS})`,
      source: 'https://docs.netlify.com/build/functions/overview/',
      read: READ,
    },
  ],
  vercel: [
    {
      measure: { kind: 'rules', place: { in: 'target', file: 'vercel.json' }, count: 'vercel-routes' },
      max: 2_048,
      what: 'routes per deployment on Vercel',
      ways: `another target (cloudflare-workers, ${WEB_SERVERS})`,
      source: 'https://vercel.com/docs/limits',
      read: READ,
    },
  ],
};

/** What the check is given: the build's files, before anything is written. */
export interface Built {
  /** The output folder's files, for the rule files' text. */
  output: ReadonlyMap<string, string>;
  /** The size in bytes of each file of the output folder. */
  sizes: ReadonlyMap<string, number>;
  /** The target's own files (targets/<name>/). */
  targetFiles: ReadonlyMap<string, string>;
  plan: CloudflarePlan;
}

export interface Finding {
  target: string;
  /** Over the limit, or at NEAR_SHARE of it and more. */
  over: boolean;
  /** The file or rule set measured, as the user finds it. */
  subject: string;
  /** A texture page measured by its size: a smaller page size makes it smaller. */
  texturePage: boolean;
  amount: number;
  max: number;
  unit: 'bytes' | 'files' | 'rules';
  limit: Limit;
  plan: CloudflarePlan;
}

function ruleLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

function isDynamic(rule: string): boolean {
  const source = rule.split(/\s+/)[0] ?? '';
  return source.includes('*') || /(^|\/):[A-Za-z]/.test(source);
}

/** The number of rules of `text` as the host counts them. */
export function countRules(
  text: string,
  count: 'redirects-all' | 'redirects-static' | 'redirects-dynamic' | 'headers' | 'vercel-routes',
): number {
  switch (count) {
    case 'redirects-all':
      return ruleLines(text).length;
    case 'redirects-static':
      return ruleLines(text).filter((rule) => !isDynamic(rule)).length;
    case 'redirects-dynamic':
      return ruleLines(text).filter(isDynamic).length;
    case 'headers':
      // A rule is its path line; its headers are the indented lines under it.
      return text.split('\n').filter((line) => /^[^\s#]/.test(line)).length;
    case 'vercel-routes': {
      const config = JSON.parse(text) as Record<string, unknown>;
      return ['routes', 'redirects', 'rewrites', 'headers'].reduce(
        (sum, key) => sum + (Array.isArray(config[key]) ? (config[key] as unknown[]).length : 0),
        0,
      );
    }
  }
}

function sizesOf(built: Built, uploaded: Uploaded = 'all'): ReadonlyMap<string, number> {
  return uploaded === 'all' ? built.sizes : uploadedFiles(built.sizes, uploaded);
}

interface Measurement {
  subject: string;
  amount: number;
  texturePage: boolean;
}

/** Each measurement of `limit`: a rule set or the file count is one, a size is one per file. */
function measurements(limit: Limit, built: Built, outDir: string, targetDir: string): Measurement[] {
  const { measure } = limit;
  switch (measure.kind) {
    case 'file-size':
      return [...sizesOf(built, measure.uploaded)]
        .filter(([file]) => measure.files?.test(file) ?? true)
        .map(([file, size]) => ({
          subject: `${outDir}/${file}`,
          amount: size,
          texturePage: PAGINATED.some((name) => file.startsWith(`${name}/`)),
        }));
    case 'file-count':
      return [
        { subject: `${outDir}/`, amount: sizesOf(built, measure.uploaded).size + measure.extra, texturePage: false },
      ];
    case 'rules': {
      const { place } = measure;
      const text = place.in === 'output' ? built.output.get(place.file) : built.targetFiles.get(place.file);
      if (text === undefined) return [];
      const shown = place.in === 'output' ? `${outDir}/${place.file}` : `${targetDir}/${place.file}`;
      return [{ subject: shown, amount: countRules(text, measure.count), texturePage: false }];
    }
  }
}

const UNITS = { 'file-size': 'bytes', 'file-count': 'files', rules: 'rules' } as const;

/**
 * The limits of `target` that this build is over, or near. Pure: the caller measures the files
 * and says where they will be written (`outDir`, `targetDir`), for the messages.
 */
export function checkLimits(
  target: string,
  limits: readonly Limit[],
  built: Built,
  where: { outDir: string; targetDir: string },
): Finding[] {
  const findings: Finding[] = [];
  for (const limit of limits) {
    const max = typeof limit.max === 'number' ? limit.max : limit.max[built.plan];
    for (const { subject, amount, texturePage } of measurements(limit, built, where.outDir, where.targetDir)) {
      if (amount < max * NEAR_SHARE) continue;
      findings.push({
        target,
        over: amount > max,
        subject,
        texturePage,
        amount,
        max,
        unit: UNITS[limit.measure.kind],
        limit,
        plan: built.plan,
      });
    }
  }
  return findings;
}

/** Bytes in the unit the host states the limit in: MiB for Cloudflare's, MB for Netlify's. */
function bytesText(bytes: number, max: number): string {
  const [unit, size] = max % MIB === 0 ? ['MiB', MIB] : ['MB', 1e6];
  return `${Number.isInteger(bytes / size) && bytes === max ? bytes / size : (bytes / size).toFixed(1)} ${unit}`;
}

function limitText(finding: Finding): string {
  const { max, unit, limit } = finding;
  const number = unit === 'bytes' ? bytesText(max, max) : max.toLocaleString('en-US');
  const plan = typeof limit.max === 'number' ? '' : ` (Cloudflare ${finding.plan} plan)`;
  return `${number} ${limit.what}${plan}`;
}

/** One line: the target, what was measured, its size or count, the limit, and the ways out. */
export function formatFinding(finding: Finding): string {
  const { target, subject, amount, unit, max, limit } = finding;
  const measured = unit === 'bytes' ? `is ${bytesText(amount, max)}` : `has ${amount.toLocaleString('en-US')} ${unit}`;
  const first = [
    typeof limit.max !== 'number' && finding.plan === 'free'
      ? `--cloudflare-plan paid (${limit.max.paid.toLocaleString('en-US')})`
      : '',
    finding.texturePage ? 'a smaller --page-size' : '',
  ].filter((way) => way !== '');
  // `limit.ways` is either a last resort ("another target") or a list that ends with one.
  const last = first.length > 0 && limit.ways.startsWith('another target') ? `or ${limit.ways}` : limit.ways;
  const ways = [...first, last].join(', ');
  if (finding.over) return `${target}: ${subject} ${measured}, over the limit of ${limitText(finding)}; use ${ways}`;
  const share = Math.floor((amount / max) * 100);
  return `${target}: ${subject} ${measured}, ${share}% of the limit of ${limitText(finding)}; before it grows past it, use ${ways}`;
}

/** A target the user chose cannot take the catalogue: one line per limit it is over. */
export class LimitsError extends UserFacingError {
  readonly lines: readonly string[];
  constructor(lines: readonly string[]) {
    super(lines.join('\n'));
    this.lines = lines;
  }
}
