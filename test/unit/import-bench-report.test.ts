// scripts/bench/report.ts, the import case: its time is judged on the median of the per-round
// ratios of import over fetching and parsing the same URLs, its memory on the worst round.

import { expect, it } from 'vitest';
import type { ChildResult } from '../../scripts/bench/child.ts';
import { importReport } from '../../scripts/bench/report.ts';

function run(ms: number, maxRssBytes = 500e6): ChildResult {
  return {
    ms,
    cpuMs: ms,
    systemMs: 0,
    mainThreadMs: ms,
    maxRssBytes,
    startRssBytes: 100e6,
    stages: [],
    sourceFiles: 0,
    sourceBytes: 0,
  };
}

const verdicts = (lines: readonly string[]) => lines.filter((line) => /^(PASS|FAIL) /.test(line));

it('passes a median ratio of 1.5 or less, and fails one above it', () => {
  const baselines = [run(2000), run(2000), run(2000)];
  const within = importReport({ imports: [run(2800), run(3000), run(4000)], baselines });
  expect(within.passed).toBe(true);
  expect(verdicts(within.lines)[0]).toBe(
    'PASS import time: import/fetch+parse 1.50x, median of 3 rounds (target <= 1.5x)',
  );
  const beyond = importReport({ imports: [run(2800), run(3100), run(4000)], baselines });
  expect(beyond.passed).toBe(false);
  expect(verdicts(beyond.lines)[0]).toMatch(/^FAIL import time: import\/fetch\+parse 1\.55x/);
});

it('fails on the worst round’s peak RSS of 1 GB or more', () => {
  const baselines = [run(2000), run(2000), run(2000)];
  const report = importReport({ imports: [run(2000), run(2000, 1_000_000_000), run(2000)], baselines });
  expect(report.passed).toBe(false);
  expect(verdicts(report.lines)[1]).toBe(
    'FAIL import memory: peak RSS 1000.0 MB in the worst round (target < 1000.0 MB)',
  );
});

it('says nothing when the case did not run', () => {
  expect(importReport({ imports: [], baselines: [] })).toEqual({ lines: [], passed: true });
});
