// scripts/bench/report.ts: the verdicts. The time target is judged on the median per-round ratio,
// and not at all when the baseline's runs were mostly kernel time (a slow disk makes both runs
// wait on it, which brings any ratio near 1 and would pass a slow build).

import { describe, expect, it } from 'vitest';
import type { ChildResult } from '../../scripts/bench/child.ts';
import { report, type Summary } from '../../scripts/bench/report.ts';

function run(ms: number, cpuMs: number, systemMs: number): ChildResult {
  return {
    ms,
    cpuMs,
    systemMs,
    maxRssBytes: 500e6,
    startRssBytes: 100e6,
    stages: [],
    sourceFiles: 10,
    sourceBytes: 1000,
    outputFiles: 20,
    outputBytes: 2000,
  };
}

function summary(builds: ChildResult[], baselines: ChildResult[]): Summary {
  return {
    generatedMs: 1000,
    sourceDigest: 'abc',
    records: 100,
    counts: { company: 100 },
    output: { files: 20, bytes: 2000, digest: 'def', fileDigests: new Map() },
    warnings: [],
    builds,
    baselines,
  };
}

const verdict = (text: string) => text.split('\n').find((line) => line.includes(' time:')) ?? '';

describe('report', () => {
  it('passes a median ratio within the target, and fails one above it', () => {
    const quietBaseline = () => run(1000, 1500, 550);
    const fast = report(summary([run(1400, 3000, 800), run(1600, 3000, 800), run(1450, 3000, 800)], [quietBaseline(), quietBaseline(), quietBaseline()]));
    expect(verdict(fast.text)).toBe('PASS time:   build/baseline 1.45x, median of 3 rounds (target <= 1.5x)');
    expect(fast.passed).toBe(true);
    const slow = report(summary([run(1800, 3000, 800), run(1900, 3000, 800), run(1400, 3000, 800)], [quietBaseline(), quietBaseline(), quietBaseline()]));
    expect(verdict(slow.text)).toBe('FAIL time:   build/baseline 1.80x, median of 3 rounds (target <= 1.5x)');
    expect(slow.passed).toBe(false);
  });

  it('does not judge the time when the baseline waited on a slow disk', () => {
    // System time four times the user time: the writes took the kernel seconds.
    const slowDisk = () => run(3500, 5000, 4000);
    const result = report(summary([run(3000, 5000, 1000), run(3100, 5000, 1000), run(2900, 5000, 1000)], [slowDisk(), slowDisk(), slowDisk()]));
    expect(verdict(result.text)).toMatch(/^UNRELIABLE time: build\/baseline 0\.86x, but the baseline's system CPU time was 4\.00x its user time/);
    expect(result.passed).toBe(false);
  });
});
