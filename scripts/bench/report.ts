// Turns the rounds' results into the printed table, the per-stage breakdown and the verdicts.

import type { ChildResult } from './child.ts';
import type { DevRound } from './dev-case.ts';
import type { ImportRounds } from './import-case.ts';
import type { TreeSummary } from './measure.ts';

export const LIMITS = {
  /** The diff's time over reading and parsing both output trees, median over the rounds. */
  maxDiffRatio: 2,
  /** Decimal gigabyte, the diff's worst round. */
  maxDiffRssBytes: 1_000_000_000,
  /**
   * Build time over baseline time, taken per round (the two runs of a round are adjacent, so a
   * busy spell of the shared machine mostly hits both) and then the median over the rounds.
   */
  maxRatio: 2,
  /** Decimal gigabyte; judged on the worst round, since one bad peak is enough to be killed. */
  maxBuildRssBytes: 1_000_000_000,
  /**
   * The baseline's system CPU time over its user CPU time, above which a round's time is not
   * judged. These machines' disks turn slow for minutes at a time: the kernel then spends
   * seconds on the writes, the runs mostly wait on it, and any ratio comes out near 1.
   */
  maxBaselineSystemShare: 2,
  /** Rounds that must be judged for a verdict on the time. */
  minJudgedRounds: 3,
  /** `npm run dev` on the sample data: from a saved file to the first new answer over HTTP, median over the rounds. */
  maxDevAnswerMs: 1000,
  /** `npm run import` of the catalogue over its fetching and parsing the same URLs, median over the rounds. */
  maxImportRatio: 1.5,
  /** Decimal gigabyte, the import's worst round. */
  maxImportRssBytes: 1_000_000_000,
} as const;

/**
 * Whether a round's time counts towards the verdict. Both runs read the same files and write the
 * same bytes, and the build does more besides (more memory, more page faults), so its kernel time
 * is the larger when the disk is the same for both. A baseline with more kernel time than its
 * build met a slower disk, which flatters the ratio: such a round, and one whose baseline was
 * mostly kernel time, is shown but not judged. (A build slowed by the disk only counts against it.)
 */
export function judged(build: ChildResult, baseline: ChildResult): boolean {
  const share = baseline.systemMs / Math.max(1, baseline.cpuMs - baseline.systemMs);
  return share <= LIMITS.maxBaselineSystemShare && baseline.systemMs <= build.systemMs;
}

export interface Summary {
  generatedMs: number;
  sourceDigest: string;
  records: number;
  counts: Readonly<Record<string, number>>;
  /** What the first build wrote; every later build and every baseline should write the same. */
  output: TreeSummary;
  /** Runs whose output differed from the first build's. */
  warnings: readonly string[];
  builds: ChildResult[];
  baselines: ChildResult[];
  /** `npm run diff` of the first build against a build with one company and one event changed. */
  diffs?: ChildResult[];
  /** Reading and parsing both of those output trees, in the same rounds. */
  diffBaselines?: ChildResult[];
  /** `npm run dev` on the sample data: saves and their first new answers. */
  dev?: DevRound[];
  /** `npm run import` of the catalogue from the local server, and its baseline, in the same rounds. */
  imports?: ImportRounds;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const min = (values: readonly number[]) => Math.min(...values);
const max = (values: readonly number[]) => Math.max(...values);

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => `${int(n)} ms`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const times = (ratio: number) => `${ratio.toFixed(2)}x`;

function row(label: string, values: readonly number[], format: (n: number) => string): string {
  const cells = [median(values), min(values), max(values)].map((v) => format(v).padStart(11));
  return `${label.padEnd(22)}${cells.join('')}   ${values.map(format).join(' / ')}`;
}

/** Median wall, CPU and main thread ms per stage, in the order the stages ran. */
function stageMedians(
  results: readonly ChildResult[],
): Array<[name: string, ms: number, cpuMs: number, mainMs: number]> {
  const names = [...new Set(results.flatMap((r) => r.stages.map((s) => s.name)))];
  const stageMedian = (name: string, pick: (stage: ChildResult['stages'][number]) => number) =>
    median(results.map((r) => r.stages.find((stage) => stage.name === name)).map((stage) => (stage ? pick(stage) : 0)));
  return names.map((name) => [
    name,
    stageMedian(name, (stage) => stage.ms),
    stageMedian(name, (stage) => stage.cpuMs),
    stageMedian(name, (stage) => stage.mainThreadMs),
  ]);
}

function stageLines(label: string, results: readonly ChildResult[]): string[] {
  const total = median(results.map((r) => r.ms));
  return stageMedians(results).map(([name, ms, cpuMs, mainMs], i) => {
    const share = `${Math.round((100 * ms) / total)}%`.padStart(4);
    return `${(i === 0 ? label : '').padEnd(22)}${name.padEnd(11)}${`${int(ms)} ms`.padStart(10)} ${share} of the run   CPU ${int(cpuMs)} ms, main thread ${int(mainMs)} ms`;
  });
}

/**
 * The run's main thread time over its baseline's whole time, and the line that says what it
 * means: the ratio the run could reach if every other thread's work overlapped its main thread.
 */
function mainThreadRows(
  name: string,
  baselineName: string,
  runs: readonly ChildResult[],
  baselines: readonly ChildResult[],
) {
  return [
    row(
      `${name} main thread`,
      runs.map((r) => r.mainThreadMs),
      seconds,
    ),
    row(
      `main thread/${baselineName}`,
      runs.map((r, i) => r.mainThreadMs / (baselines[i] as ChildResult).ms),
      times,
    ),
    `${''.padEnd(22)}(the ${name}'s main thread alone over the ${baselineName}'s whole run: the lowest ratio the ${name} can reach on one thread, however the I/O overlaps it; not a target)`,
  ];
}

/** The line on the time target: judged on `judgedRounds` of the `rounds`, at the median `ratio` of those. */
function timeVerdict(rounds: number, judgedRounds: number, ratio: number): string {
  if (judgedRounds >= LIMITS.minJudgedRounds) {
    const verdict = ratio <= LIMITS.maxRatio ? 'PASS' : 'FAIL';
    return `${verdict} time:   build/baseline ${times(ratio)}, median of ${judgedRounds} judged rounds of ${rounds} (target <= ${LIMITS.maxRatio}x)`;
  }
  if (judgedRounds === rounds) {
    return `UNRELIABLE time: build/baseline ${times(ratio)}, but only ${rounds} round(s) were run (at least ${LIMITS.minJudgedRounds} needed: --rounds 3 or more).`;
  }
  return (
    `UNRELIABLE time: only ${judgedRounds} of ${rounds} rounds could be judged (at least ${LIMITS.minJudgedRounds} needed): ` +
    `in the others the baseline's kernel time was more than its build's, or over ${LIMITS.maxBaselineSystemShare}x its user time, ` +
    `so the disk was slow. Run again later.`
  );
}

/** The printed report, and whether every target was met. */
export function report(summary: Summary): { text: string; passed: boolean } {
  const { builds, baselines } = summary;
  const build = builds[0] as ChildResult;
  const buildMs = builds.map((r) => r.ms);
  const baselineMs = baselines.map((r) => r.ms);
  const ratios = builds.map((r, i) => r.ms / (baselines[i] as ChildResult).ms);
  const cpuRatios = builds.map((r, i) => r.cpuMs / (baselines[i] as ChildResult).cpuMs);
  const counted = builds.map((r, i) => judged(r, baselines[i] as ChildResult));
  const judgedRatios = ratios.filter((_, i) => counted[i]);
  const ratio = median(judgedRatios);
  const worstRss = max(builds.map((r) => r.maxRssBytes));
  const timeOk = judgedRatios.length >= LIMITS.minJudgedRounds && ratio <= LIMITS.maxRatio;
  const memoryOk = worstRss < LIMITS.maxBuildRssBytes;
  const counts = Object.entries(summary.counts)
    .map(([name, n]) => `${name} ${int(n)}`)
    .join(', ');

  const lines = [
    '',
    `Results over ${builds.length} rounds (build and baseline alternating, each run in a fresh \`node --import tsx\` child).`,
    'Times cover the work only: module loading, and the baseline preloading the bytes it writes, happen before the clock starts.',
    '',
    `${''.padEnd(22)}${'median'.padStart(11)}${'min'.padStart(11)}${'max'.padStart(11)}   rounds`,
    row('build time', buildMs, seconds),
    row('baseline time', baselineMs, seconds),
    row('ratio build/baseline', ratios, times),
    `${''.padEnd(22)}(per round; target <= ${LIMITS.maxRatio}x on the median of the judged rounds; median/median ${times(median(buildMs) / median(baselineMs))}, min/min ${times(min(buildMs) / min(baselineMs))})`,
    `${'judged'.padEnd(22)}${''.padStart(33)}   ${counted.map((yes) => (yes ? 'yes' : 'no (disk)')).join(' / ')}`,
    row(
      'build CPU time',
      builds.map((r) => r.cpuMs),
      seconds,
    ),
    row(
      'baseline CPU time',
      baselines.map((r) => r.cpuMs),
      seconds,
    ),
    row('CPU ratio', cpuRatios, times),
    `${''.padEnd(22)}(user + system, all threads: less bent by other tenants than wall time; not a target)`,
    ...mainThreadRows('build', 'baseline', builds, baselines),
    row(
      'build system CPU',
      builds.map((r) => r.systemMs),
      seconds,
    ),
    row(
      'baseline system CPU',
      baselines.map((r) => r.systemMs),
      seconds,
    ),
    `${''.padEnd(22)}(the kernel's part: file system calls and page faults)`,
    row(
      'build peak RSS',
      builds.map((r) => r.maxRssBytes),
      mb,
    ),
    row(
      'baseline peak RSS',
      baselines.map((r) => r.maxRssBytes),
      mb,
    ),
    row(
      'build RSS at start',
      builds.map((r) => r.startRssBytes),
      mb,
    ),
    row(
      'baseline RSS at start',
      baselines.map((r) => r.startRssBytes),
      mb,
    ),
    `${''.padEnd(22)}(RSS when the clock starts: modules loaded; for the baseline, the output bytes too)`,
    '',
    'Stages (median wall time of each stage, its share of the median run, its median CPU and main thread time):',
    ...stageLines('build', builds),
    ...stageLines('baseline', baselines),
    `${''.padEnd(22)}(each stage's time counts from the end of the stage before; CPU is the whole process's, I/O pool included)`,
    '',
    `${'source'.padEnd(22)}${int(build.sourceFiles)} files, ${mb(build.sourceBytes)} (${int(build.sourceBytes)} bytes), ${int(summary.records)} records: ${counts}`,
    `${''.padEnd(22)}generated in ${seconds(summary.generatedMs)}, sha256 ${summary.sourceDigest}`,
    `${'output'.padEnd(22)}${int(summary.output.files)} files, ${mb(summary.output.bytes)} (${int(summary.output.bytes)} bytes), ${int(build.routes ?? 0)} routes`,
    summary.warnings.length === 0
      ? `${''.padEnd(22)}identical in every build and baseline run, sha256 ${summary.output.digest}`
      : `${''.padEnd(22)}sha256 ${summary.output.digest} in the first build; differed in ${summary.warnings.length} run(s):`,
    ...summary.warnings.map((w) => `WARN  ${w} (was the build edited during the bench?)`),
    '',
    timeVerdict(ratios.length, judgedRatios.length, ratio),
    `${memoryOk ? 'PASS' : 'FAIL'} memory: build peak RSS ${mb(worstRss)} in the worst round (target < ${mb(LIMITS.maxBuildRssBytes)})`,
  ];
  const diff = baselineCaseReport(DIFF_CASE, summary.diffs ?? [], summary.diffBaselines ?? []);
  const dev = devReport(summary.dev ?? []);
  const imported = importReport(summary.imports ?? { imports: [], baselines: [] });
  return {
    text: [...lines, ...diff.lines, ...dev.lines, ...imported.lines].join('\n'),
    passed: timeOk && memoryOk && diff.passed && dev.passed && imported.passed,
  };
}

/** A case timed against a baseline run in the same rounds (diff, import): what it is called and judged by. */
interface BaselineCase {
  /** As the verdict lines name it: `diff`, `import`. */
  name: string;
  /** The baseline's name in the table: `read+parse`. */
  baselineName: string;
  /** What the case runs, and against what, for the header. */
  about: readonly string[];
  maxRatio: number;
  maxRssBytes: number;
  /** Rows of the case's own, after the ratio. */
  extraRows?: (runs: readonly ChildResult[]) => string[];
}

/** A baseline case's table and verdicts; nothing when it did not run. */
function baselineCaseReport(
  kase: BaselineCase,
  runs: readonly ChildResult[],
  baselines: readonly ChildResult[],
): { lines: string[]; passed: boolean } {
  if (runs.length === 0 || runs.length !== baselines.length) return { lines: [], passed: runs.length === 0 };
  const ratios = runs.map((run, i) => run.ms / (baselines[i] as ChildResult).ms);
  const ratio = median(ratios);
  const worstRss = max(runs.map((run) => run.maxRssBytes));
  const timeOk = ratio <= kase.maxRatio;
  const memoryOk = worstRss < kase.maxRssBytes;
  const { name, baselineName } = kase;
  return {
    passed: timeOk && memoryOk,
    lines: [
      '',
      `${kase.about[0]} over ${runs.length} rounds: ${kase.about[1]}`,
      ...kase.about.slice(2),
      '',
      `${''.padEnd(22)}${'median'.padStart(11)}${'min'.padStart(11)}${'max'.padStart(11)}   rounds`,
      row(
        `${name} time`,
        runs.map((run) => run.ms),
        seconds,
      ),
      row(
        `${baselineName} time`,
        baselines.map((run) => run.ms),
        seconds,
      ),
      row(`ratio ${name}/${baselineName}`, ratios, times),
      ...(kase.extraRows?.(runs) ?? []),
      ...mainThreadRows(name, baselineName, runs, baselines),
      row(
        `${name} peak RSS`,
        runs.map((run) => run.maxRssBytes),
        mb,
      ),
      ...stageLines(name, runs),
      ...stageLines(baselineName, baselines),
      '',
      `${timeOk ? 'PASS' : 'FAIL'} ${name} time: ${name}/${baselineName} ${times(ratio)}, median of ${runs.length} rounds (target <= ${kase.maxRatio}x)`,
      `${memoryOk ? 'PASS' : 'FAIL'} ${name} memory: peak RSS ${mb(worstRss)} in the worst round (target < ${mb(kase.maxRssBytes)})`,
    ],
  };
}

const DIFF_CASE: BaselineCase = {
  name: 'diff',
  baselineName: 'read+parse',
  about: [
    'Diff case',
    '`npm run diff` of the first build against a build with one company and one event changed,',
    'against reading and parsing both output trees (each run in a fresh child, alternating).',
  ],
  maxRatio: LIMITS.maxDiffRatio,
  maxRssBytes: LIMITS.maxDiffRssBytes,
};

const IMPORT_CASE: BaselineCase = {
  name: 'import',
  baselineName: 'fetch+parse',
  about: [
    'Import case',
    '`npm run import` of the catalogue from the local server (reading, converting,',
    "checking with the build's own stages, writing data/), against asking the same URLs with the same concurrency and",
    'parsing the answers (each run in a fresh child, alternating; the server in a process of its own).',
  ],
  maxRatio: LIMITS.maxImportRatio,
  maxRssBytes: LIMITS.maxImportRssBytes,
  extraRows: (runs) => [
    row(
      'import CPU time',
      runs.map((run) => run.cpuMs),
      seconds,
    ),
    row(
      'import system CPU',
      runs.map((run) => run.systemMs),
      seconds,
    ),
  ],
};

/** The dev case: its rounds, and its verdict; nothing when it did not run. */
export function devReport(rounds: readonly DevRound[]): { lines: string[]; passed: boolean } {
  if (rounds.length === 0) return { lines: [], passed: true };
  const answer = median(rounds.map((round) => round.answerMs));
  const passed = answer < LIMITS.maxDevAnswerMs;
  return {
    passed,
    lines: [
      '',
      `Dev case over ${rounds.length} rounds: \`npm run dev\` on the sample data (data/), a company renamed and saved,`,
      'then its list asked for over HTTP until the answer has the new name.',
      '',
      `${''.padEnd(22)}${'median'.padStart(11)}${'min'.padStart(11)}${'max'.padStart(11)}   rounds`,
      row(
        'save → new answer',
        rounds.map((round) => round.answerMs),
        ms,
      ),
      row(
        'rebuilt in (printed)',
        rounds.map((round) => round.rebuiltMs),
        ms,
      ),
      `${''.padEnd(22)}(as \`npm run dev\` prints it: from the change seen, the quiet time included, to the new build swapped in)`,
      '',
      `${passed ? 'PASS' : 'FAIL'} dev time: save → new answer ${ms(answer)}, median of ${rounds.length} rounds (target < ${ms(LIMITS.maxDevAnswerMs)})`,
    ],
  };
}

/** The import case: its rounds, and its verdicts; nothing when it did not run. */
export function importReport({ imports, baselines }: ImportRounds): { lines: string[]; passed: boolean } {
  return baselineCaseReport(IMPORT_CASE, imports, baselines);
}
