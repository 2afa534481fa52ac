// test/bench/growth-case.ts and its report: the larger catalogue is the benchmark's with every
// count multiplied; the build's memory is judged at the benchmark catalogue only, and the growth
// of its time and memory is shown.

import { describe, expect, it } from 'vitest';
import { COUNTS } from '../bench/generate.ts';
import { GROWTH, scaledCounts } from '../bench/growth-case.ts';
import type { CommandRun } from '../bench/measure.ts';
import { growthReport } from '../bench/report.ts';

describe('scaledCounts', () => {
  it('multiplies every count, and leaves the benchmark catalogue as it is at 1', () => {
    expect(scaledCounts(1)).toEqual(COUNTS);
    expect(scaledCounts(4)).toEqual({ companies: 400_000, events: 40_000, fairs: 4_000, textures: 80_000 });
  });
});

describe('growthReport', () => {
  const run = (ms: number, maxRssBytes: number): CommandRun => ({ ms, cpuMs: ms * 1.5, maxRssBytes });
  const result = (singleRss: number) => ({
    records: 524_000,
    bytes: 248e6,
    single: [run(4000, singleRss), run(5000, 500e6)],
    grown: [run(18_000, 1.9e9), run(20_000, 2.1e9)],
  });

  it('shows the growth of the medians, and judges the memory at 1x only', () => {
    const report = growthReport(result(600e6));
    expect(report.lines.find((line) => line.includes(`x${GROWTH} over x1`))).toMatch(
      /time 4\.22x, CPU 4\.22x, peak RSS 3\.64x\)$/,
    );
    expect(report.lines.at(-1)).toBe(
      'PASS build memory at x1: peak RSS 600.0 MB in the worst round (target < 1000.0 MB); x4 is reported, not judged',
    );
    expect(report.passed).toBe(true);
    const heavy = growthReport(result(1.05e9));
    expect(heavy.lines.at(-1)).toMatch(/^FAIL build memory at x1: peak RSS 1050\.0 MB/);
    expect(heavy.passed).toBe(false);
  });
});
