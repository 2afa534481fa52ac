// test/bench/filters-case.ts and its report: run for real on the sample data (the bench runs it
// on the benchmark catalogue), the worker under `wrangler dev` included, and the report's
// verdicts: each filtered answer from the local server must be a 200 that comes no later than the
// plain list and within a second; from the worker, each a 200, the filter and the narrow search
// within a second.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FILTER_REQUESTS,
  type FiltersResult,
  PLAIN_REQUEST,
  runFiltersCase,
  TIMED_ON_WORKER,
} from '../bench/filters-case.ts';
import type { CommandRun } from '../bench/measure.ts';
import { filtersReport } from '../bench/report.ts';
import { SAMPLE_DATA } from '../fixtures/sample.ts';

const run = (ms: number): CommandRun => ({ ms, cpuMs: ms, maxRssBytes: 300e6 });
const answer = (request: string, ms: number, status = 200) => ({
  request,
  ms: [ms, ms + 10, ms - 10],
  status,
  bytes: 1e6,
});

/** The worker's answers: the plain list in 2 s, each filtered one in `filteredMs`. */
const worker = (filteredMs: (request: string) => number, status = 200): FiltersResult['worker'] => ({
  rssBefore: 80e6,
  answers: [PLAIN_REQUEST, ...FILTER_REQUESTS].map((request, i) => ({
    ...answer(request, request === PLAIN_REQUEST ? 2000 : filteredMs(request), status),
    rssAfter: 100e6 + i * 10e6,
    workerCpuMs: 100,
    wranglerCpuMs: 400,
  })),
});

describe('filtersReport', () => {
  const result = (filteredMs: number, status = 200): FiltersResult => ({
    withSettings: [run(12_000), run(13_000)],
    without: [run(10_000), run(11_000)],
    bytesWith: 150e6,
    bytesWithout: 100e6,
    answers: [answer(PLAIN_REQUEST, 400), ...FILTER_REQUESTS.map((request) => answer(request, filteredMs, status))],
    worker: worker(() => 500),
  });

  it('passes filtered answers no later than the plain list, and shows what the settings cost the build', () => {
    const report = filtersReport(result(300));
    expect(report.passed).toBe(true);
    expect(report.lines.find((line) => line.includes('with over without'))).toContain(
      'median time: 1.19x; bytes added: 50.0 MB (150.0 MB against 100.0 MB)',
    );
    expect(report.lines).toContain(
      'PASS /company/?search=laser: 200, 1.0 MB, 300 ms, 0.75x the plain list (targets: <= 1,000 ms)',
    );
    expect(report.lines).toContain(
      'PASS /company/?country_name=Italy: 200, 1.0 MB, 300 ms, 0.75x the plain list (targets: <= 1.00x and <= 1,000 ms)',
    );
  });

  it('holds only the filter to the plain list: a search or an ordering may answer most of it', () => {
    const [filter, ...others] = FILTER_REQUESTS;
    const report = filtersReport({
      ...result(300),
      answers: [answer(PLAIN_REQUEST, 400), answer(filter, 300), ...others.map((request) => answer(request, 600))],
    });
    expect(report.passed).toBe(true);
    expect(
      filtersReport({
        ...result(300),
        answers: [answer(PLAIN_REQUEST, 400), answer(filter, 600), ...others.map((request) => answer(request, 300))],
      }).passed,
    ).toBe(false);
  });

  it('fails one slower than the plain list, over a second, or not a 200', () => {
    expect(filtersReport(result(500)).passed).toBe(false);
    expect(
      filtersReport({
        ...result(300),
        answers: [answer(PLAIN_REQUEST, 4000), ...FILTER_REQUESTS.map((r) => answer(r, 1200))],
      }).passed,
    ).toBe(false);
    expect(filtersReport(result(300, 400)).passed).toBe(false);
  });
});

describe('filtersReport on the worker', () => {
  const local = (workerAnswers: FiltersResult['worker']): FiltersResult => ({
    withSettings: [run(12_000), run(13_000)],
    without: [run(10_000), run(11_000)],
    bytesWith: 150e6,
    bytesWithout: 100e6,
    answers: [answer(PLAIN_REQUEST, 400), ...FILTER_REQUESTS.map((request) => answer(request, 300))],
    worker: workerAnswers,
  });

  it('holds the filter and the narrow search to a second, and reports the rest with the peak RSS', () => {
    const report = filtersReport(local(worker((request) => (TIMED_ON_WORKER.has(request) ? 900 : 5000))));
    expect(report.passed).toBe(true);
    expect(report.lines).toContain(
      "PASS worker /company/?search=laser: 200, 1.0 MB, 900 ms, 0.45x the plain list, workerd peak RSS 120.0 MB after it (target: <= 1,000 ms); CPU per ask: worker 100 ms, wrangler's proxy 400 ms",
    );
    expect(report.lines).toContain(
      "PASS worker /company/?ordering=-city: 200, 1.0 MB, 5,000 ms, 2.50x the plain list, workerd peak RSS 140.0 MB after it (reported, no time target); CPU per ask: worker 100 ms, wrangler's proxy 400 ms",
    );
    expect(report.lines.find((line) => line.includes('before the first'))).toContain('80.0 MB before the first');
  });

  it('fails a timed request over a second, or any answer that is not a 200', () => {
    expect(filtersReport(local(worker((request) => (request === '/company/?search=laser' ? 1100 : 500)))).passed).toBe(
      false,
    );
    expect(filtersReport(local(worker(() => 500, 500))).passed).toBe(false);
  });

  it('says in one line that the worker was skipped, and passes on the local server alone', () => {
    const report = filtersReport(local({ skipped: 'wrangler is not installed' }));
    expect(report.passed).toBe(true);
    expect(report.lines.filter((line) => line.includes('Worker'))).toEqual([
      'Worker: skipped, wrangler is not installed.',
    ]);
  });
});

describe('runFiltersCase', () => {
  it('builds with and without the settings, serves the one with them locally and under wrangler dev, each request a 200', async () => {
    const bench = await mkdtemp(path.join(tmpdir(), 'bench-filters-'));
    try {
      const result = await runFiltersCase(bench, SAMPLE_DATA);
      expect(result.withSettings).toHaveLength(2);
      expect(result.without).toHaveLength(2);
      // The records' parts of the company list are what the settings add.
      expect(result.bytesWith).toBeGreaterThan(result.bytesWithout);
      expect(result.answers.map(({ request, status }) => [request, status])).toEqual(
        [PLAIN_REQUEST, ...FILTER_REQUESTS].map((request) => [request, 200]),
      );
      const [plain, byCountry] = result.answers;
      expect(byCountry?.bytes).toBeLessThan(plain?.bytes as number);
      // wrangler is a devDependency: the worker part runs wherever `npm ci` did.
      if ('skipped' in result.worker) throw new Error(`the worker was skipped: ${result.worker.skipped}`);
      expect(result.worker.rssBefore).toBeGreaterThan(0);
      // The worker answers the same bytes as the local server, request by request.
      expect(result.worker.answers.map(({ request, status, bytes }) => [request, status, bytes])).toEqual(
        result.answers.map(({ request, bytes }) => [request, 200, bytes]),
      );
      for (const answered of result.worker.answers) {
        expect(answered.ms).toHaveLength(3);
        expect(answered.rssAfter).toBeGreaterThanOrEqual(result.worker.rssBefore);
        expect(answered.workerCpuMs).toBeGreaterThanOrEqual(0);
        expect(answered.wranglerCpuMs).toBeGreaterThanOrEqual(0);
      }
      // /proc counts in 10 ms ticks, more than a small answer costs; all of them together cost more.
      const used = result.worker.answers.map((answered) => answered.workerCpuMs + answered.wranglerCpuMs);
      expect(used.reduce((sum, ms) => sum + ms)).toBeGreaterThan(0);
    } finally {
      await rm(bench, { recursive: true, force: true });
    }
  }, 240_000);
});
