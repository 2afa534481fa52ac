// scripts/targets/limits.ts and the limits each target carries: each host's limits, checked against the files a real build makes.
// The rule counts come from the generated files of the sample data built at two page sizes; the
// file sizes and counts a unit test cannot write (25 MiB, 20,000 files) are given as measured
// sizes of that same build, changed where the test says.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { routingOf } from '../../scripts/contract/routes.ts';
import { manifestFile, PART_BYTES, partFile } from '../../scripts/respond/cloudflare-parts.ts';
import { TARGETS } from '../../scripts/targets/index.ts';
import { type Built, checkLimits, countRules, formatFinding, type Limit } from '../../scripts/targets/limits.ts';
import { API, declares, missingList, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { readTree } from './helpers/tree.ts';

const CHECKED = ['cloudflare-workers', 'cloudflare-pages-static', 'netlify', 'vercel'];
const MIB = 1024 * 1024;

interface Made {
  output: Map<string, string>;
  targets: Map<string, Map<string, string>>;
  outDir: string;
  targetsDir: string;
}

let dir: string;
const made = new Map<number, Made>();

async function buildSample(pageSize: number): Promise<Made> {
  const outDir = path.join(dir, `public-${pageSize}`);
  const targetsDir = path.join(dir, `targets-${pageSize}`);
  await build({
    resources: API,
    dataDir: SAMPLE_DATA,
    headersPath: SAMPLE_HEADERS,
    outDir,
    targetsDir,
    baseUrl: 'http://localhost:3000',
    pageSize,
    targets: CHECKED,
  });
  const text = (tree: Map<string, Buffer>) => new Map([...tree].map(([file, bytes]) => [file, bytes.toString('utf8')]));
  const targets = new Map<string, Map<string, string>>();
  for (const name of CHECKED) targets.set(name, text(await readTree(path.join(targetsDir, name))));
  return { output: text(await readTree(outDir)), targets, outDir, targetsDir };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'limits-'));
  made.set(1, await buildSample(1));
  made.set(10, await buildSample(10));
}, 30_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function sample(pageSize: number): Made {
  return made.get(pageSize) as Made;
}

function built(of: Made, target: string, changes: Partial<Built> = {}): Built {
  const sizes = new Map([...of.output].map(([file, text]) => [file, Buffer.byteLength(text)]));
  return {
    output: of.output,
    sizes,
    targetFiles: of.targets.get(target) ?? new Map(),
    plan: 'free',
    resources: API,
    ...changes,
  };
}

function check(of: Made, target: string, limits: readonly Limit[], changes: Partial<Built> = {}): string[] {
  const where = { outDir: of.outDir, targetDir: path.join(of.targetsDir, target) };
  return checkLimits(target, limits, built(of, target, changes), where).map(formatFinding);
}

/** The limits of the target of that name. */
function limitsOf(target: string): readonly Limit[] {
  const found = TARGETS.find((each) => each.name === target);
  if (!found) throw new Error(`no target ${target}`);
  return found.limits;
}

function limitOf(target: string, what: string): Limit {
  const limit = limitsOf(target).find((each) => each.what.includes(what));
  if (!limit) throw new Error(`${target} has no limit "${what}"`);
  return limit;
}

const texturePages = (of: Made) =>
  [...of.output.keys()].filter((file) => /^virtualbooth-texture\/page=\d+\.json$/.test(file)).length;

describe('the limits as data', () => {
  it('name every target, each limit with its source and the date it was read; web servers have none', () => {
    for (const name of ['nginx', 'caddy', 'apache']) expect(limitsOf(name)).toEqual([]);
    for (const name of CHECKED) expect(limitsOf(name).length).toBeGreaterThan(0);
    for (const limit of TARGETS.flatMap((target) => target.limits)) {
      expect(limit.source).toMatch(/^https:\/\//);
      expect(limit.read).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('the sample data is within every limit, at any page size', () => {
    for (const pageSize of [1, 10]) {
      for (const target of CHECKED) expect(check(sample(pageSize), target, limitsOf(target))).toEqual([]);
    }
  });
});

describe('rules counted from the generated files', () => {
  it("Netlify's _redirects does not grow with the pages (Netlify's count)", ({ skip }) => {
    skip(!declares('virtualbooth-texture'), missingList('virtualbooth-texture'));
    const small = sample(1);
    const large = sample(10);
    const rules = (of: Made) => countRules(of.targets.get('netlify')?.get('_redirects') as string, 'redirects-all');
    expect(texturePages(small)).toBeGreaterThan(texturePages(large) + 10);
    expect(rules(small)).toBe(2);
    expect(rules(large)).toBe(2);
  });

  it("Pages' _redirects: the list and slash rules are static, a rule per output folder dynamic", () => {
    const text = sample(1).targets.get('cloudflare-pages-static')?.get('_redirects') as string;
    // A slash redirect and a list rule for each list, 4 host files (/404, /404.html, /_headers, /_redirects).
    expect(countRules(text, 'redirects-static')).toBe(2 * API.length + 4);
    // Each list's folder, _errors and _options: `/<folder>/*`.
    expect(countRules(text, 'redirects-dynamic')).toBe(API.length + 2);
    // The page size changes neither: Pages routes no page.
    const other = sample(10).targets.get('cloudflare-pages-static')?.get('_redirects') as string;
    expect(countRules(other, 'redirects-static') + countRules(other, 'redirects-dynamic')).toBe(3 * API.length + 6);
  });

  it("vercel.json's routes are its redirects, rewrites and headers, and do not grow with the pages", () => {
    const routes = (of: Made) => countRules(of.targets.get('vercel')?.get('vercel.json') as string, 'vercel-routes');
    const config = JSON.parse(sample(1).targets.get('vercel')?.get('vercel.json') as string);
    expect(routes(sample(1))).toBe(config.redirects.length + config.rewrites.length + config.headers.length);
    expect(routes(sample(1))).toBe(routes(sample(10)));
  });

  it('a rule count over a limit is a breach naming the file, the count, the limit and the ways out; from 80% a warning', () => {
    const of = sample(1);
    const target = 'cloudflare-pages-static';
    const file = `${path.join(of.targetsDir, target)}/_redirects`;
    const rules = countRules(of.targets.get(target)?.get('_redirects') as string, 'redirects-static');
    const limit = limitOf(target, 'static _redirects');
    expect(check(of, target, [{ ...limit, max: rules - 1 }])).toEqual([
      `${target}: ${file} has ${rules} rules, over the limit of ${rules - 1} static _redirects rules on Cloudflare Pages; use another target (cloudflare-pages, cloudflare-workers)`,
    ]);
    // Exactly at the limit is allowed, and still near it.
    expect(check(of, target, [{ ...limit, max: rules }])[0]).toContain(`has ${rules} rules, 100% of the limit`);
    const near = Math.ceil(rules / 0.85);
    const share = Math.floor((rules / near) * 100);
    expect(check(of, target, [{ ...limit, max: near }])).toEqual([
      `${target}: ${file} has ${rules} rules, ${share}% of the limit of ${near} static _redirects rules on Cloudflare Pages; before it grows past it, use another target (cloudflare-pages, cloudflare-workers)`,
    ]);
    expect(check(of, target, [{ ...limit, max: Math.ceil(rules / 0.79) }])).toEqual([]);
  });
});

describe('file sizes and counts, on measured sizes', () => {
  it("a list over Cloudflare's 25 MiB per file is a breach; 21 MiB a warning", () => {
    const of = sample(10);
    const sizes = (bytes: number) => new Map([...built(of, 'x').sizes, ['company/index.json', bytes]]);
    const limits = limitsOf('cloudflare-workers');
    expect(check(of, 'cloudflare-workers', limits, { sizes: sizes(43_700_000) })).toEqual([
      `cloudflare-workers: ${of.outDir}/company/index.json is 41.7 MiB, over the limit of 25 MiB per file on Cloudflare Workers static assets; use another target (nginx, caddy or apache)`,
    ]);
    expect(check(of, 'cloudflare-workers', limits, { sizes: sizes(21 * MIB) })).toEqual([
      `cloudflare-workers: ${of.outDir}/company/index.json is 21.0 MiB, 84% of the limit of 25 MiB per file on Cloudflare Workers static assets; before it grows past it, use another target (nginx, caddy or apache)`,
    ]);
    expect(check(of, 'cloudflare-workers', limits, { sizes: sizes(19 * MIB) })).toEqual([]);
  });

  it('a texture page over a size limit is offered a smaller page size; the other lists have no pages', ({ skip }) => {
    skip(!declares('virtualbooth-texture'), missingList('virtualbooth-texture'));
    const of = sample(10);
    const sizes = new Map([...built(of, 'x').sizes, ['virtualbooth-texture/page=2.json', 26 * MIB]]);
    expect(check(of, 'cloudflare-pages-static', limitsOf('cloudflare-pages-static'), { sizes })).toEqual([
      `cloudflare-pages-static: ${of.outDir}/virtualbooth-texture/page=2.json is 26.0 MiB, over the limit of 25 MiB per file on Cloudflare Pages; use a smaller --page-size, or another target (cloudflare-workers, cloudflare-pages, nginx, caddy or apache)`,
    ]);
  });

  it("a page of any paginated list the build declares is offered a smaller page size, the API's when none", () => {
    const of = sample(10);
    const sizes = new Map([...built(of, 'x').sizes, ['material/page=2.json', 26 * MIB]]);
    // A list no fixture API declares.
    const material = { name: 'material', path: '/material/', title: 'Material List', orderingFields: [] };
    const resources = [...routingOf(API), { ...material, paginated: true }];
    const limits = limitsOf('cloudflare-pages-static');
    expect(check(of, 'cloudflare-pages-static', limits, { sizes, resources })[0]).toContain(
      'use a smaller --page-size, or another target',
    );
    const unpaginated = [...routingOf(API), { ...material, paginated: false }];
    expect(check(of, 'cloudflare-pages-static', limits, { sizes, resources: unpaginated })[0]).toContain(
      'Cloudflare Pages; use another target',
    );
    expect(check(of, 'cloudflare-pages-static', limits, { sizes })[0]).toContain(
      'Cloudflare Pages; use another target',
    );
  });

  it('a list over 25 MiB reaches the targets with the worker as its parts; the static target refuses it', () => {
    const of = sample(10);
    // As the build writes it: the whole file, and beside it the manifest and three parts
    // (targets/cloudflare/assets.ts), with .assetsignore and precompressed copies, which no
    // Cloudflare upload takes.
    const sizes = new Map([
      ...built(of, 'x').sizes,
      ['company/index.json', 43_700_000],
      [manifestFile('company/index.json'), 130],
      [partFile('company/index.json', 1), PART_BYTES],
      [partFile('company/index.json', 2), PART_BYTES],
      [partFile('company/index.json', 3), 43_700_000 - 2 * PART_BYTES],
      ['company/index.json.br', 30 * MIB],
      ['.assetsignore', 300],
    ]);
    for (const target of ['cloudflare-workers', 'cloudflare-pages'] as const)
      expect(check(of, target, limitsOf(target), { sizes })).toEqual([]);
    // Except the event list, which an ordering by several fields parses and sorts whole.
    const events = new Map([...sizes, ['event/index.json', 30 * MIB]]);
    const sorted = check(of, 'cloudflare-workers', limitsOf('cloudflare-workers'), { sizes: events });
    expect(sorted.filter((line) => line.includes(' sorted per request '))).toEqual([
      `cloudflare-workers: ${of.outDir}/event/index.json is 30.0 MiB, over the limit of 25 MiB sorted per request within a Worker's 128 MB of memory; use another target (nginx, caddy or apache, which answer an ordering by several fields with 400)`,
    ]);
    expect(check(of, 'cloudflare-pages-static', limitsOf('cloudflare-pages-static'), { sizes })).toEqual([
      `cloudflare-pages-static: ${of.outDir}/company/index.json is 41.7 MiB, over the limit of 25 MiB per file on Cloudflare Pages; use another target (cloudflare-workers, cloudflare-pages, nginx, caddy or apache)`,
    ]);
  });

  it('counts the files a Cloudflare upload takes: the parts, not the files they make up, nor precompressed copies', () => {
    const of = sample(10);
    const many = new Map<string, number>(Array.from({ length: 19_000 }, (_, index) => [`f${index}.json`, 10]));
    for (let index = 0; index < 5_000; index++) many.set(`f${index}.json.br`, 5).set(`f${index}.json.gz`, 5);
    const count = (target: string, sizes: Map<string, number>) =>
      check(of, target, limitsOf(target), { sizes }).filter((line) => line.includes(' files,'));
    expect(count('cloudflare-workers', many)[0]).toContain('has 19,000 files, 95% of the limit');
    many.set(manifestFile('f1.json'), 100).set(partFile('f1.json', 1), 5).set(partFile('f1.json', 2), 5);
    expect(count('cloudflare-workers', many)[0]).toContain('has 19,002 files, 95% of the limit');
    // The static target uploads the whole file and not its parts: 19,000 and its 404.html.
    expect(count('cloudflare-pages-static', many)[0]).toContain('has 19,001 files, 95% of the limit');
  });

  it("Netlify's function answers: a list streamed up to 20 MB, the event list sorted and buffered up to 6 MB", () => {
    const of = sample(10);
    const sizes = (file: string, bytes: number) => new Map([...built(of, 'x').sizes, [file, bytes]]);
    const findings = (file: string, bytes: number) =>
      check(of, 'netlify', limitsOf('netlify'), { sizes: sizes(file, bytes) }).map((line) => line.split(';')[0]);
    expect(findings('company/index.json', 21_000_000)).toEqual([
      `netlify: ${of.outDir}/company/index.json is 21.0 MB, over the limit of 20 MB streamed per Netlify function answer`,
    ]);
    expect(findings('event/index.json', 6_500_000)).toEqual([
      `netlify: ${of.outDir}/event/index.json is 6.5 MB, over the limit of 6 MB buffered per Netlify function answer`,
    ]);
    // Files no function sends are not counted.
    expect(findings('_errors/not-found.json', 30_000_000)).toEqual([]);
  });

  it('the list sorted whole is each one whose declaration takes ?ordering=, not only the events', () => {
    const of = sample(10);
    const tag = { name: 'tag', path: '/tag/', title: 'Tag', orderingFields: ['name'], paginated: false };
    const resources = [...API, tag];
    const sizes = (file: string, bytes: number) => new Map([...built(of, 'x').sizes, [file, bytes]]);
    const over = (target: string, file: string, bytes: number) =>
      check(of, target, limitsOf(target), { sizes: sizes(file, bytes), resources }).map((line) => line.split(';')[0]);
    expect(over('netlify', 'tag/index.json', 6_500_000)).toEqual([
      `netlify: ${of.outDir}/tag/index.json is 6.5 MB, over the limit of 6 MB buffered per Netlify function answer`,
    ]);
    expect(over('cloudflare-workers', 'tag/index.json', 26 * MIB)).toContain(
      `cloudflare-workers: ${of.outDir}/tag/index.json is 26.0 MiB, over the limit of 25 MiB sorted per request within a Worker's 128 MB of memory`,
    );
    // A list that takes no ordering is streamed, never sorted: only the 20 MB bound holds it.
    expect(over('netlify', 'company/index.json', 6_500_000)).toEqual([]);
  });

  it("the file count follows the Cloudflare plan: 20,000 free, 100,000 paid; Pages' static target adds 404.html", () => {
    const of = sample(10);
    const many = (count: number) => new Map(Array.from({ length: count }, (_, index) => [`f${index}.json`, 10]));
    const lines = (target: string, count: number, plan: 'free' | 'paid') =>
      check(of, target, limitsOf(target), { sizes: many(count), plan });
    expect(lines('cloudflare-workers', 25_000, 'free')).toEqual([
      `cloudflare-workers: ${of.outDir}/ has 25,000 files, over the limit of 20,000 files per deployment on Cloudflare Workers static assets (Cloudflare free plan); use --cloudflare-plan paid (100,000), a larger --page-size (fewer texture pages), or another target (nginx, caddy or apache)`,
    ]);
    expect(lines('cloudflare-workers', 25_000, 'paid')).toEqual([]);
    expect(lines('cloudflare-workers', 17_000, 'free')[0]).toContain('has 17,000 files, 85% of the limit of 20,000');
    expect(lines('cloudflare-workers', 90_000, 'paid')[0]).toContain('has 90,000 files, 90% of the limit of 100,000');
    expect(lines('cloudflare-pages-static', 20_000, 'free').filter((line) => line.includes('files,'))[0]).toContain(
      'has 20,001 files, over the limit of 20,000',
    );
    expect(lines('cloudflare-workers', 20_000, 'free')[0]).toContain('has 20,000 files, 100% of the limit');
  });
});
