// test/bench/report.ts, the import case: its time is judged on the median of the per-round
// ratios of the import's main thread time over fetching and parsing the same URLs, its memory on
// the worst round.

import { expect, it } from 'vitest';
import type { ChildResult } from '../bench/child.ts';
import { importReport } from '../bench/report.ts';

function run(mainThreadMs: number, maxRssBytes = 500e6, ms = mainThreadMs): ChildResult {
  return { ms, cpuMs: ms, systemMs: 0, mainThreadMs, maxRssBytes, startRssBytes: 100e6, stages: [] };
}

const verdicts = (lines: readonly string[]) => lines.filter((line) => /^(PASS|FAIL) /.test(line));

it('passes a median main thread ratio of 3.5 or less, and fails one above it', () => {
  const baselines = [run(2000), run(2000), run(2000)];
  const within = importReport({ runs: [run(2800), run(7000), run(8000)], baselines });
  expect(within.passed).toBe(true);
  expect(verdicts(within.lines)[0]).toBe(
    'PASS import time: main thread/fetch+parse 3.50x, median of 3 rounds (target <= 3.5x)',
  );
  const beyond = importReport({ runs: [run(2800), run(7100), run(8000)], baselines });
  expect(beyond.passed).toBe(false);
  expect(verdicts(beyond.lines)[0]).toMatch(/^FAIL import time: main thread\/fetch\+parse 3\.55x/);
});

it('judges the main thread, not the wall time the disk stretches', () => {
  const baselines = [run(2000), run(2000), run(2000)];
  // 4x the baseline's time on the wall, the writes waiting on the disk; 2x on the main thread.
  const slowDisk = () => run(4000, 500e6, 8000);
  const report = importReport({ runs: [slowDisk(), slowDisk(), slowDisk()], baselines });
  expect(report.lines.find((line) => line.startsWith('ratio import/fetch+parse'))).toMatch(
    /^ratio import\/fetch\+parse\s+4\.00x/,
  );
  expect(verdicts(report.lines)[0]).toMatch(/^PASS import time: main thread\/fetch\+parse 2\.00x/);
  expect(report.passed).toBe(true);
});

it('fails on the worst round’s peak RSS of 1 GB or more', () => {
  const baselines = [run(2000), run(2000), run(2000)];
  const report = importReport({ runs: [run(2000), run(2000, 1_000_000_000), run(2000)], baselines });
  expect(report.passed).toBe(false);
  expect(verdicts(report.lines)[1]).toBe(
    'FAIL import memory: peak RSS 1000.0 MB in the worst round (target < 1000.0 MB)',
  );
});

it('says nothing when the case did not run', () => {
  expect(importReport({ runs: [], baselines: [] })).toEqual({ lines: [], passed: true });
});
