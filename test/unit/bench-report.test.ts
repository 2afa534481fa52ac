// test/bench/report.ts: the verdicts. The time target is judged on the median per-round ratio
// of the rounds whose baseline met the same disk as its build: a baseline with more kernel time
// than its build, or mostly kernel time, waited on a slow disk, which brings the ratio down and
// would pass a slow build. Without three such rounds the time is not judged at all.

import { describe, expect, it } from 'vitest';
import type { ChildResult } from '../bench/child.ts';
import { report, type StartupCommand, type Summary, startupReport } from '../bench/report.ts';

function run(ms: number, cpuMs: number, systemMs: number): ChildResult {
  return {
    ms,
    cpuMs,
    systemMs,
    mainThreadMs: ms / 2,
    maxRssBytes: 500e6,
    startRssBytes: 100e6,
    stages: [],
  };
}

function summary(builds: ChildResult[], baselines: ChildResult[]): Summary {
  return {
    generatedMs: 1000,
    sourceDigest: 'abc',
    source: { files: 10, bytes: 1000, records: 100 },
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
    const fast = report(
      summary(
        [run(1400, 3000, 800), run(1600, 3000, 800), run(1450, 3000, 800)],
        [quietBaseline(), quietBaseline(), quietBaseline()],
      ),
    );
    expect(verdict(fast.text)).toBe('PASS time:   build/baseline 1.45x, median of 3 judged rounds of 3 (target <= 3x)');
    expect(fast.passed).toBe(true);
    const slow = report(
      summary(
        [run(3200, 3000, 800), run(3300, 3000, 800), run(1400, 3000, 800)],
        [quietBaseline(), quietBaseline(), quietBaseline()],
      ),
    );
    expect(verdict(slow.text)).toBe('FAIL time:   build/baseline 3.20x, median of 3 judged rounds of 3 (target <= 3x)');
    expect(slow.passed).toBe(false);
  });

  it('does not judge the time when the baseline waited on a slow disk', () => {
    // System time four times the user time: the writes took the kernel seconds.
    const slowDisk = () => run(3500, 5000, 4000);
    const result = report(
      summary(
        [run(3000, 5000, 1000), run(3100, 5000, 1000), run(2900, 5000, 1000)],
        [slowDisk(), slowDisk(), slowDisk()],
      ),
    );
    expect(verdict(result.text)).toMatch(/^UNRELIABLE time: only 0 of 3 rounds could be judged \(at least 3 needed\)/);
    expect(result.passed).toBe(false);
  });

  it('leaves out the rounds whose baseline spent more kernel time than its build', () => {
    const builds = [
      run(2900, 3000, 800),
      run(1760, 3000, 800),
      run(3200, 3000, 800),
      run(1800, 3000, 800),
      run(3300, 3000, 800),
    ];
    // Rounds 2 and 4: the disk slowed the baseline (1.2 s of kernel time against its build's 0.8 s).
    const baselines = [
      run(1000, 1500, 550),
      run(1600, 2200, 1200),
      run(1000, 1500, 550),
      run(1500, 2200, 1200),
      run(1000, 1500, 550),
    ];
    const result = report(summary(builds, baselines));
    // Over all five rounds (1.10x, 1.20x, 2.90x, 3.20x, 3.30x) the median would be 2.90x, a pass.
    expect(verdict(result.text)).toBe(
      'FAIL time:   build/baseline 3.20x, median of 3 judged rounds of 5 (target <= 3x)',
    );
    expect(result.text).toContain('yes / no (disk) / yes / no (disk) / yes');
    expect(result.passed).toBe(false);
  });

  it('still judges a round whose build was the one slowed by the disk', () => {
    const builds = [run(1400, 3000, 800), run(2600, 4500, 2400), run(1450, 3000, 800)];
    const quietBaseline = () => run(1000, 1500, 550);
    const result = report(summary(builds, [quietBaseline(), quietBaseline(), quietBaseline()]));
    expect(verdict(result.text)).toBe(
      'PASS time:   build/baseline 1.45x, median of 3 judged rounds of 3 (target <= 3x)',
    );
  });

  it('gives no verdict on the time when fewer than three rounds were run, and says so', () => {
    const result = report(summary([run(1400, 3000, 800)], [run(1000, 1500, 550)]));
    expect(verdict(result.text)).toBe(
      'UNRELIABLE time: build/baseline 1.40x, but only 1 round(s) were run (at least 3 needed: --rounds 3 or more).',
    );
    expect(result.passed).toBe(false);
  });

  it('gives no verdict on the time with fewer than three judged rounds', () => {
    const builds = [run(1400, 3000, 800), run(1400, 3000, 800), run(1400, 3000, 800)];
    const baselines = [run(1000, 1500, 550), run(1000, 1500, 900), run(1000, 1500, 550)];
    const result = report(summary(builds, baselines));
    expect(verdict(result.text)).toMatch(/^UNRELIABLE time: only 2 of 3 rounds could be judged/);
    expect(result.passed).toBe(false);
  });
});

describe("the main thread's rows", () => {
  it("show each build's main thread time, and that time over its round's baseline time", () => {
    const build = (ms: number, mainThreadMs: number) => ({ ...run(ms, 3000, 800), mainThreadMs });
    const result = report(
      summary(
        [build(2600, 2100), build(2800, 2400), build(2700, 2000)],
        [run(1000, 1500, 550), run(1200, 1500, 550), run(800, 1500, 550)],
      ),
    );
    const lines = result.text.split('\n');
    expect(lines.find((line) => line.startsWith('build main thread'))).toBe(
      `${'build main thread'.padEnd(22)}${'2.10 s'.padStart(11)}${'2.00 s'.padStart(11)}${'2.40 s'.padStart(11)}   2.10 s / 2.40 s / 2.00 s`,
    );
    // 2100/1000, 2400/1200, 2000/800.
    expect(lines.find((line) => line.startsWith('main thread/baseline'))).toMatch(
      /^main thread\/baseline\s+2\.10x\s+2\.00x\s+2\.50x {3}2\.10x \/ 2\.00x \/ 2\.50x$/,
    );
  });

  it("end each stage's line with its median main thread time", () => {
    const stage = (name: string, ms: number, mainThreadMs: number) => ({ name, ms, cpuMs: ms, mainThreadMs, line: '' });
    const build = (mainThreadMs: number) => ({
      ...run(2000, 3000, 800),
      stages: [stage('validate', 500, 500), stage('write', 600, mainThreadMs)],
    });
    const baseline = () => run(1000, 1500, 550);
    const result = report(summary([build(300), build(100), build(200)], [baseline(), baseline(), baseline()]));
    const write = result.text.split('\n').find((line) => /^\s+write\s/.test(line));
    expect(write).toMatch(/CPU 600 ms, main thread 200 ms$/);
  });
});

describe('the dev case', () => {
  const rounds = (...answerMs: number[]) =>
    answerMs.map((ms) => ({ answerMs: ms, bodyMs: ms + 5, rebuiltMs: ms + 10 }));
  const devVerdicts = (text: string) => text.split('\n').filter((line) => line.includes(' dev time ('));
  /** Three rounds whose build passes, so that the dev case alone decides. */
  const fastBuilds = () =>
    summary(
      [run(1400, 3000, 800), run(1400, 3000, 800), run(1400, 3000, 800)],
      [run(1000, 1500, 550), run(1000, 1500, 550), run(1000, 1500, 550)],
    );
  const catalogues = (sampleCompany: number[], largeEvent: number[], largeCompany: number[]) => [
    {
      catalogue: 'sample' as const,
      records: 262,
      rounds: { company: rounds(...sampleCompany), event: rounds(80, 90, 85), texture: rounds(70, 75, 72) },
    },
    {
      catalogue: 'benchmark' as const,
      records: 131_000,
      rounds: { company: rounds(...largeCompany), event: rounds(...largeEvent), texture: rounds(150, 160, 170) },
      fullBuildMs: [4000, 4200, 3900],
    },
  ];

  it('passes each median under its target, and fails the whole report on one over it', () => {
    const fast = report({ ...fastBuilds(), dev: catalogues([120, 95, 2000], [300, 320, 900], [500, 520, 2000]) });
    expect(devVerdicts(fast.text)).toEqual([
      'PASS dev time (sample, company edit): save → new answer 120 ms (target < 1,000 ms)',
      'PASS dev time (sample, event edit): save → new answer 85 ms (target < 1,000 ms)',
      'PASS dev time (sample, texture edit): save → new answer 72 ms (target < 1,000 ms)',
      "PASS dev time (benchmark, company edit): save → new answer 520 ms, 0.13x (target ≤ 0.15x of the full build's 4,000 ms)",
      'PASS dev time (benchmark, event edit): save → new answer 320 ms (target < 500 ms)',
      'PASS dev time (benchmark, texture edit): save → new answer 160 ms (target < 500 ms)',
    ]);
    expect(fast.passed).toBe(true);
    for (const slow of [
      catalogues([1000, 90, 1200], [300, 320, 900], [500, 520, 2000]),
      catalogues([120, 95, 2000], [500, 520, 100], [500, 520, 2000]),
      catalogues([120, 95, 2000], [300, 320, 900], [610, 620, 100]),
    ]) {
      const judged = report({ ...fastBuilds(), dev: slow });
      expect(devVerdicts(judged.text).filter((line) => line.startsWith('FAIL'))).toHaveLength(1);
      expect(judged.passed).toBe(false);
    }
  });

  it("judges the imported layout as the benchmark's, and the preview's memory on both", () => {
    const [, benchmark] = catalogues([120, 95, 2000], [300, 320, 900], [500, 520, 2000]);
    const imported = {
      ...(benchmark as NonNullable<typeof benchmark>),
      catalogue: 'imported' as const,
      rounds: { company: rounds(1700, 1800, 1750), event: rounds(300, 320, 310), texture: rounds(150, 160, 170) },
      fullBuildMs: [2600, 2700, 2650],
      peakRssBytes: 1.1e9,
      companyFile: {
        ...run(900, 900, 0),
        stages: [
          { name: 'read', ms: 40, cpuMs: 40, mainThreadMs: 40, line: 'read: 1 bytes (40 ms)' },
          { name: 'check', ms: 600, cpuMs: 600, mainThreadMs: 600, line: 'check: 100000 records, 0 problems (600 ms)' },
        ],
      },
    };
    const judged = report({ ...fastBuilds(), dev: [{ ...benchmark, peakRssBytes: 700e6 } as never, imported] });
    expect(devVerdicts(judged.text)).toContain(
      "FAIL dev time (imported, company edit): save → new answer 1,750 ms, 0.66x (target ≤ 0.15x of the full build's 2,650 ms)",
    );
    const memory = judged.text.split('\n').filter((line) => line.includes(' dev memory ('));
    expect(memory).toEqual([
      'PASS dev memory (benchmark): peak RSS 700.0 MB (target < 1000.0 MB)',
      'FAIL dev memory (imported): peak RSS 1100.0 MB (target < 1000.0 MB)',
    ]);
    expect(judged.text).toContain('company file alone    read 40 ms, check 600 ms');
    expect(judged.passed).toBe(false);
  });

  it('shows each layout by its files, and judges the full build and the import that wrote it under 1 GB', () => {
    const [, benchmark] = catalogues([120, 95, 2000], [300, 320, 900], [500, 520, 2000]);
    const generated = { ...(benchmark as NonNullable<typeof benchmark>), files: 1328, fullBuildRssBytes: 640e6 };
    const imported = {
      ...generated,
      catalogue: 'imported' as const,
      files: 778,
      peakRssBytes: 880e6,
      fullBuildRssBytes: 600e6,
      importRssBytes: 1.05e9,
    };
    const judged = report({ ...fastBuilds(), dev: [generated, imported] });
    expect(judged.text).toContain(
      'Dev case on the benchmark catalogue (131,000 records in 1,328 files), 3 rounds of each edit:',
    );
    expect(judged.text).toContain(
      'Dev case on the imported catalogue (131,000 records in 778 files), 3 rounds of each edit:',
    );
    expect(judged.text.split('\n').filter((line) => line.includes(' dev memory ('))).toEqual([
      'PASS dev memory (benchmark, full build): peak RSS 640.0 MB (target < 1000.0 MB)',
      'PASS dev memory (imported): peak RSS 880.0 MB (target < 1000.0 MB)',
      'PASS dev memory (imported, full build): peak RSS 600.0 MB (target < 1000.0 MB)',
      'FAIL dev memory (imported, import): peak RSS 1050.0 MB (target < 1000.0 MB)',
    ]);
    expect(judged.text).toMatch(/import peak RSS +1050\.0 MB/);
    expect(judged.passed).toBe(false);
  });

  it('says nothing of the dev case when it did not run', () => {
    expect(devVerdicts(report(fastBuilds()).text)).toEqual([]);
  });
});

describe('the start-up case', () => {
  const timed = (command: StartupCommand, ms: number[]) => ({
    command,
    ms,
    // Seven rounds of `npm run` of a script that only starts Node: median 400 ms.
    baselineMs: [380, 420, 400, 395, 410, 390, 405],
  });
  const rowOf = (lines: readonly string[], command: string) =>
    lines.find((line) => line.startsWith(`startup ${command} `)) ?? '';

  it("judges each command's median less the baseline's median, on its own target", () => {
    const { lines, passed } = startupReport([
      // Medians 650, 750, 660 and 800 ms; one slow and one fast round each change nothing.
      timed('npm run check', [640, 2000, 650, 660, 655, 645, 500]),
      timed('npm run build', [740, 750, 3000, 755, 745, 600, 760]),
      timed('npm run diff -- HEAD', [650, 660, 670, 665, 655, 640, 680]),
      timed('npm start', [790, 800, 810, 805, 795, 600, 5000]),
    ]);
    expect(rowOf(lines, 'npm run check')).toMatch(
      /^startup npm run check\s+650 ms vs 400 ms: \+250 ms \(1\.63x\) {2}target ≤ \+250 ms {2}PASS$/,
    );
    expect(rowOf(lines, 'npm run build')).toMatch(
      /^startup npm run build\s+750 ms vs 400 ms: \+350 ms \(1\.88x\) {2}target ≤ \+350 ms {2}PASS$/,
    );
    expect(rowOf(lines, 'npm run diff -- HEAD')).toMatch(
      /^startup npm run diff -- HEAD\s+660 ms vs 400 ms: \+260 ms \(1\.65x\) {2}target ≤ \+250 ms {2}FAIL$/,
    );
    expect(rowOf(lines, 'npm start')).toMatch(
      /^startup npm start\s+800 ms vs 400 ms: \+400 ms \(2\.00x\) {2}target ≤ \+400 ms {2}PASS$/,
    );
    expect(passed).toBe(false);
  });

  it('holds the difference whatever the baseline: a faster npm leaves the same own start passing', () => {
    const fasterNpm = { command: 'npm run check' as const, ms: [300, 310, 290], baselineMs: [60, 50, 55] };
    expect(startupReport([fasterNpm]).passed).toBe(true);
  });

  it('passes when every command is within its target, and fails the whole report on one miss', () => {
    const builds = [run(1400, 3000, 800), run(1400, 3000, 800), run(1400, 3000, 800)];
    const baselines = [run(1000, 1500, 550), run(1000, 1500, 550), run(1000, 1500, 550)];
    const within = [timed('npm run check', [600, 650, 620]), timed('npm start', [700, 750, 790])];
    expect(report({ ...summary(builds, baselines), startup: within }).passed).toBe(true);
    const slowCheck = [timed('npm run check', [700, 660, 680]), timed('npm start', [700, 750, 790])];
    const missed = report({ ...summary(builds, baselines), startup: slowCheck });
    expect(rowOf(missed.text.split('\n'), 'npm run check')).toMatch(
      /\+280 ms \(1\.70x\) {2}target ≤ \+250 ms {2}FAIL$/,
    );
    expect(missed.passed).toBe(false);
  });

  it('says nothing when it did not run', () => {
    expect(startupReport([])).toEqual({ lines: [], passed: true });
  });
});
