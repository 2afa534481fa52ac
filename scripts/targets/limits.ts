// The shape of a host's limits and the one check of a build against them. A host refuses a
// deploy (or drops rules, or fails requests) past its limits, long after the build said it was
// done; the build checks them first (selection.ts). Each target carries its own limits
// (`cloudflare/targets.ts`, `netlify/target.ts`, `vercel/target.ts`). Limits change: each one
// names the page it was read from and when.

import { fileFor, type Routed } from '../contract/routes.ts';
import { UserFacingError } from '../shared/errors.ts';
import { bytesOf, type FileBody } from '../shared/file-body.ts';

export const CLOUDFLARE_PLANS = ['free', 'paid'] as const;
export type CloudflarePlan = (typeof CLOUDFLARE_PLANS)[number];
/** Whose limits the Cloudflare targets are checked against when no plan is named. */
export const DEFAULT_CLOUDFLARE_PLAN: CloudflarePlan = 'free';

/** The most CPU time per request (ms) wrangler's `limits.cpu_ms` sets on the paid plan: 5 minutes. */
export const MAX_CPU_MS = 300_000;

/** From this share of a limit on, the build warns. */
export const NEAR_SHARE = 0.8;

/** A file of the output folder or of the target's own folder, by its path there. */
interface Place {
  in: 'output' | 'target';
  file: string;
}

/**
 * Which files of the output a host receives, with their sizes, when not all of them: what a
 * Cloudflare upload keeps (cloudflare/limits.ts).
 */
type Uploaded = (sizes: ReadonlyMap<string, number>) => ReadonlyMap<string, number>;

/**
 * What a limit counts. Rules are counted in the generated files themselves: `redirects-static`
 * and `redirects-dynamic` split a `_redirects` as Cloudflare does (a source with `*` or a
 * `:placeholder` is dynamic), `headers` counts the path lines of a `_headers`, `vercel-routes`
 * the entries of vercel.json that each become a route.
 */
type Measure =
  | {
      kind: 'file-size';
      files?: RegExp | ((file: string, resources: readonly Routed[]) => boolean);
      uploaded?: Uploaded;
    }
  | { kind: 'file-count'; extra: number; uploaded?: Uploaded }
  | {
      kind: 'rules';
      place: Place;
      count: 'redirects-all' | 'redirects-static' | 'redirects-dynamic' | 'headers' | 'vercel-routes';
    }
  /** The worker's CPU time per request, estimated for each list's kind of request (cloudflare/cpu-time.ts). */
  | { kind: 'cpu-time'; estimate: (built: Built) => ReadonlyArray<{ subject: string; ms: number }> };

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

/**
 * The files a handler sorts whole to answer an ordering by several fields: the list file of each
 * resource whose declaration takes `?ordering=`.
 */
export function sortedListFile(file: string, resources: readonly Routed[]): boolean {
  return resources.some((resource) => resource.orderingFields.length > 0 && file === fileFor(resource.path, {}));
}

const MIB = 1024 * 1024;
/** When the limits' sources were read. */
export const READ = '2026-11-25';
/** The targets that are web servers, which have no limits of their own: the way out of a host's. */
export const WEB_SERVERS = 'nginx, caddy or apache';
/** The way out of Netlify's and Vercel's limits: a target whose files and answers they do not bound. */
export const ANOTHER_TARGET = `another target (cloudflare-workers, ${WEB_SERVERS})`;

/** What the check is given: the build's files, before anything is written. */
export interface Built {
  /** The output folder's files, for the rule files' text. */
  output: ReadonlyMap<string, FileBody>;
  /** The size in bytes of each file of the output folder. */
  sizes: ReadonlyMap<string, number>;
  /** The target's own files (targets/<name>/). */
  targetFiles: ReadonlyMap<string, string>;
  plan: CloudflarePlan;
  /** The CPU time per request (ms) the user sets on the paid plan (wrangler's `limits.cpu_ms`); the plan's default when absent. */
  cpuMs?: number;
  /** The resources built, whose paginated lists' files are pages. */
  resources: readonly Routed[];
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
  unit: 'bytes' | 'files' | 'rules' | 'ms';
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

function sizesOf(built: Built, uploaded?: Uploaded): ReadonlyMap<string, number> {
  return uploaded === undefined ? built.sizes : uploaded(built.sizes);
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
        .filter(([file]) => {
          const { files } = measure;
          if (files === undefined) return true;
          return typeof files === 'function' ? files(file, built.resources) : files.test(file);
        })
        .map(([file, size]) => ({
          subject: `${outDir}/${file}`,
          amount: size,
          texturePage: built.resources.some((resource) => resource.paginated && file.startsWith(`${resource.name}/`)),
        }));
    case 'file-count':
      return [
        { subject: `${outDir}/`, amount: sizesOf(built, measure.uploaded).size + measure.extra, texturePage: false },
      ];
    case 'rules': {
      const { place } = measure;
      const body = place.in === 'output' ? built.output.get(place.file) : built.targetFiles.get(place.file);
      if (body === undefined) return [];
      const text = typeof body === 'string' ? body : bytesOf(body).toString('utf8');
      const shown = place.in === 'output' ? `${outDir}/${place.file}` : `${targetDir}/${place.file}`;
      return [{ subject: shown, amount: countRules(text, measure.count), texturePage: false }];
    }
    case 'cpu-time':
      return measure.estimate(built).map(({ subject, ms }) => ({ subject, amount: Math.ceil(ms), texturePage: false }));
  }
}

const UNITS = { 'file-size': 'bytes', 'file-count': 'files', rules: 'rules', 'cpu-time': 'ms' } as const;

/** The limit's most, on this build's plan: on the paid plan a CPU time the user set replaces the default. */
function maxOf(limit: Limit, built: Built): number {
  if (typeof limit.max === 'number') return limit.max;
  if (limit.measure.kind === 'cpu-time' && built.plan === 'paid' && built.cpuMs !== undefined) return built.cpuMs;
  return limit.max[built.plan];
}

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
    const max = maxOf(limit, built);
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
  const number = unit === 'bytes' ? bytesText(max, max) : `${max.toLocaleString('en-US')}${unit === 'ms' ? ' ms' : ''}`;
  const plan = typeof limit.max === 'number' ? '' : ` (Cloudflare ${finding.plan} plan)`;
  return `${number} ${limit.what}${plan}`;
}

/** One line: the target, what was measured, its size or count, the limit, and the ways out. */
export function formatFinding(finding: Finding): string {
  const { target, subject, amount, unit, max, limit } = finding;
  const measured =
    unit === 'bytes'
      ? `is ${bytesText(amount, max)}`
      : unit === 'ms'
        ? `takes an estimated ${amount.toLocaleString('en-US')} ms of CPU`
        : `has ${amount.toLocaleString('en-US')} ${unit}`;
  const first = [
    typeof limit.max !== 'number' && finding.plan === 'free'
      ? `--cloudflare-plan paid (${limit.max.paid.toLocaleString('en-US')}${unit === 'ms' ? ' ms' : ''})`
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
