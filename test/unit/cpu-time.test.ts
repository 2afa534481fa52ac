// The worker's CPU time per request (scripts/targets/cloudflare/cpu-time.ts), checked as a host
// limit: a company list with filters, search and ordering, its records' files written by the
// store's writer, is over the free plan's 10 ms from some tens of thousands of records.

import { parse } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { type Routed, routingOf } from '../../scripts/contract/routes.ts';
import { writeRecords } from '../../scripts/store/writer.ts';
import { cpuEstimates, FIXED_MS, MS_PER_MIB, SORT_MS_PER_MIB } from '../../scripts/targets/cloudflare/cpu-time.ts';
import { cloudflareWorkers } from '../../scripts/targets/cloudflare/targets.ts';
import { wranglerConfig } from '../../scripts/targets/cloudflare/workers.ts';
import { type CloudflarePlan, LimitsError } from '../../scripts/targets/limits.ts';
import { type Asked, judgeTargets } from '../../scripts/targets/selection.ts';
import { API } from '../fixtures/sample.ts';
import { LIST, SETTINGS } from './helpers/company-query.ts';

const CITIES = ['Milano', 'Torino', 'Wien', 'Lyon', 'Porto'];

/** The output of a company list of `count` records with SETTINGS: its records' parts, columns and manifest. */
function companyOutput(count: number): Map<string, string> {
  const shown = Array.from({ length: count }, (_, id) => ({
    id,
    name: `Company ${id} ${'x'.repeat(id % 40)}`,
    city: CITIES[id % CITIES.length] as string,
    street: `Via ${id} ${'y'.repeat(200)}`,
  }));
  return writeRecords(
    LIST,
    shown.map((record) => JSON.stringify(record)),
    shown,
    { pageSize: 10, baseUrl: 'http://localhost:3000' },
  );
}

const resources = routingOf(API).map((resource) =>
  resource.name === 'company' ? { ...resource, query: SETTINGS } : resource,
);
const worker: Asked = { target: cloudflareWorkers, files: new Map([['wrangler.jsonc', '{}']]) };

function judge(output: Map<string, string>, named: boolean, plan: CloudflarePlan, cpuMs?: number) {
  const warnings: string[] = [];
  const run = () =>
    judgeTargets([worker], {
      output,
      resources,
      plan,
      ...(cpuMs === undefined ? {} : { cpuMs }),
      named,
      outDir: '/tmp/out',
      targetsDir: '/tmp/targets',
      warn: (line) => warnings.push(line),
    });
  return { run, warnings };
}

const sizesOf = (output: Map<string, string>) =>
  new Map([...output].map(([file, text]) => [file, Buffer.byteLength(text)]));

describe('cpuEstimates', () => {
  it('counts, for each kind of request, the columns it reads and every part, at the measured rate', () => {
    const output = companyOutput(2_000);
    const sizes = sizesOf(output);
    const bytes = (pattern: RegExp) =>
      [...sizes].filter(([file]) => pattern.test(file)).reduce((sum, [, size]) => sum + size, 0);
    const parts = bytes(/^_records\/company\/\d+\.json$/);
    const ms = (columns: number) => FIXED_MS + ((columns + parts) / 1024 / 1024) * MS_PER_MIB;
    const filter = Math.max(bytes(/value-city\//), bytes(/value-id\//));
    expect(cpuEstimates(sizes, resources).filter(({ list }) => list === '/company/')).toEqual([
      { list: '/company/', request: '?city=, ?id= (filter)', ms: ms(filter) },
      { list: '/company/', request: '?search= (search)', ms: ms(bytes(/upper-name\//) + bytes(/upper-city\//)) },
      {
        list: '/company/',
        request: '?ordering= (ordering)',
        ms: ms(Math.max(bytes(/rank-id\//), bytes(/rank-name\//)) + bytes(/rank-id\//)),
      },
    ]);
  });

  it('grows with the list: the larger list costs more per request', () => {
    const companies = (count: number) =>
      cpuEstimates(sizesOf(companyOutput(count)), resources).filter(({ list }) => list === '/company/');
    const small = companies(1_000);
    const large = companies(4_000);
    for (const [index, estimate] of small.entries()) expect(large[index]?.ms).toBeGreaterThan(estimate.ms * 2);
  });

  it('counts an ordering by several fields of a list with ordering fields at the rate of a sort in memory', () => {
    const sizes = new Map([['event/index.json', 1024 * 1024]]);
    expect(cpuEstimates(sizes, resources).filter(({ list }) => list === '/event/')).toEqual([
      {
        list: '/event/',
        request: '?ordering=<several fields> (ordering sorted in memory)',
        ms: FIXED_MS + SORT_MS_PER_MIB,
      },
    ]);
  });
});

describe('the CPU time limit', () => {
  const over = companyOutput(30_000);

  it('stops a build that names cloudflare-workers with the list, the request kind, the estimate and the limit', () => {
    const { run } = judge(over, true, 'free');
    expect(run).toThrow(LimitsError);
    let lines: readonly string[] = [];
    try {
      run();
    } catch (error) {
      lines = (error as LimitsError).lines;
    }
    const search = lines.find((line) => line.includes('?search= (search)'));
    expect(search).toMatch(
      /^cloudflare-workers: \/company\/\?search= \(search\) takes an estimated \d+ ms of CPU, over the limit of 10 ms CPU time per request on Cloudflare Workers \(Cloudflare free plan\); use --cloudflare-plan paid \(30,000 ms\), /,
    );
    expect(lines.some((line) => line.includes('(filter)'))).toBe(true);
  });

  it('of every target, leaves it out with the same lines as warnings', () => {
    const { run, warnings } = judge(over, false, 'free');
    const verdict = run();
    expect(verdict.written).toEqual([]);
    expect(verdict.leftOut.map(({ target }) => target.name)).toEqual(['cloudflare-workers']);
    expect(
      warnings.some((line) => /\(search\) takes an estimated \d+ ms of CPU, over the limit of 10 ms/.test(line)),
    ).toBe(true);
    expect(warnings.at(-1)).toMatch(/^cloudflare-workers is left out/);
  });

  it('builds on the paid plan, and holds the list to a cpuMs the user sets', () => {
    expect(judge(over, true, 'paid').run().written).toEqual([worker]);
    expect(() => judge(over, true, 'paid', 5).run()).toThrow(/over the limit of 5 ms CPU time per request/);
  });

  it('takes a small list on the free plan', () => {
    expect(judge(companyOutput(200), true, 'free').run().written).toEqual([worker]);
  });
});

describe("wrangler.jsonc's limits", () => {
  it('holds the cpuMs the user sets as limits.cpu_ms, and no limits when none is set', () => {
    expect(parse(wranglerConfig(60_000)).limits).toEqual({ cpu_ms: 60_000 });
    expect(parse(wranglerConfig(undefined)).limits).toBeUndefined();
  });
});

describe('a filter of prerendered_filters', () => {
  it('alone on a list without pages has no estimate: its answers are files', () => {
    const sizes = sizesOf(companyOutput(2_000));
    const only = (query: typeof SETTINGS) =>
      cpuEstimates(sizes, [{ ...(resources.find(({ name }) => name === 'company') as Routed), query }])
        .filter(({ list }) => list === '/company/')
        .map(({ request }) => request);
    const city = { ...SETTINGS, filters: SETTINGS.filters.slice(0, 1), prerendered: ['city'] };
    expect(only(city)).not.toContain('?city= (filter)');
    expect(only({ ...city, prerendered: [] })).toContain('?city= (filter)');
    // With a second filter, the two together are computed.
    expect(only({ ...SETTINGS, prerendered: ['city'] })).toContain('?city=, ?id= (filter)');
  });
});
