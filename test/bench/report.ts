// Turns the rounds' results into the printed tables, the per-stage breakdown and the verdicts.

import type { ChildResult } from './child.ts';
import { DEV_EDITS, type DevCatalogueResult } from './dev-case.ts';
import { type FiltersResult, HELD_TO_PLAIN, TIMED_ON_WORKER, type WorkerAnswers } from './filters-case.ts';
import { GROWTH, type GrowthResult } from './growth-case.ts';
import { type CommandRun, mb, type Rounds, seconds, type TreeSummary } from './measure.ts';
import type { PeerResult } from './peer-case.ts';

export const LIMITS = {
  /**
   * Build time over baseline time, taken per round (the two runs of a round are adjacent, so a
   * busy spell of the shared machine mostly hits both) and then the median over the rounds. The
   * baseline does no validation, sorting or encoding; on one thread those alone cost about as
   * much as its whole run.
   */
  maxRatio: 3,
  /** Decimal gigabyte; judged on the worst round, since one bad peak is enough to be killed. */
  maxBuildRssBytes: 1_000_000_000,
  /**
   * The baseline's system CPU time over its user CPU time, above which a round's time is not
   * judged. These machines' disks turn slow for minutes at a time: the kernel then spends
   * seconds on the writes, the runs mostly wait on it, and any ratio comes out near 1.
   */
  maxBaselineSystemShare: 2,
  /** Rounds that must be judged for a verdict on the build's time. */
  minJudgedRounds: 3,
  /** The diff's time over reading and parsing both output trees, median over the rounds. */
  maxDiffRatio: 2,
  maxDiffRssBytes: 1_000_000_000,
  /**
   * The import's main thread time over its baseline's whole time, median over the rounds: its
   * writes of 20,000 small files cost the kernel from 1 s to 5 s from one run to the next on a
   * shared disk, which the main thread does not count. Besides what the baseline does (asking and
   * parsing), the import discovers the filters, search and orderings each list takes over every
   * record, work of its own that no baseline does (about 0.7 s of the main thread on the
   * benchmark catalogue).
   */
  maxImportMainThreadRatio: 3.5,
  maxImportRssBytes: 1_000_000_000,
  /** `npm run dev` on the sample data: from a saved file to the first new answer over HTTP, median over the rounds. */
  maxDevAnswerMs: 1000,
  /** The same on the benchmark catalogue, for an event and a texture edit. */
  maxDevLargeAnswerMs: 500,
  /** The same for a company edit, whose list is 43 MB, over the time of a full build of the same data. */
  maxDevLargeCompanyRatio: 0.15,
  /**
   * `npm run build`'s wall time over the Eleventy peer's doing the same work from the same
   * catalogue, per round, median over the alternating rounds, every check kept: without the
   * siblings against Eleventy, which writes none; with them against Eleventy and the step its
   * user adds for them (test/bench/eleventy/siblings.js).
   */
  maxPeerRatio: { without: 0.8, with: 1 },
  /** Peak RSS of the build, the preview and the import on the benchmark catalogue. */
  maxCatalogueRssBytes: 1_000_000_000,
  /**
   * What each command's start costs of its own: its median wall time on the sample data less the
   * median of `npm run` of a script that only starts Node (npm, its shell, Node), in ms. A
   * difference, not a ratio: how fast npm itself starts varies by machine and npm version, and a
   * ratio to it moved the commands' targets with it.
   */
  maxStartupOwnMs: { 'npm run check': 250, 'npm run build': 350, 'npm run diff -- HEAD': 250, 'npm start': 400 },
} as const;

export type StartupCommand = keyof typeof LIMITS.maxStartupOwnMs;

/** One command's start-up times in the start-up case, and its baseline's. */
export interface StartupTimes {
  command: StartupCommand;
  ms: number[];
  baselineMs: number[];
}

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
  /** The generated catalogue. */
  source: { files: number; bytes: number; records: number };
  counts: Readonly<Record<string, number>>;
  /** What the first build wrote; every later build and every baseline should write the same. */
  output: TreeSummary;
  /** Runs whose output differed from the first build's. */
  warnings: readonly string[];
  builds: ChildResult[];
  baselines: ChildResult[];
  /** `npm run diff` of the first build against a build with one company and one event changed, and reading both. */
  diffs?: Rounds<ChildResult>;
  dev?: DevCatalogueResult[];
  /** `npm run import` of the catalogue from the local server, and fetching the same URLs. */
  imports?: Rounds<ChildResult>;
  startup?: StartupTimes[];
}

interface Section {
  lines: string[];
  passed: boolean;
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
const times = (ratio: number) => `${ratio.toFixed(2)}x`;
const pass = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
const note = (text: string) => `${''.padEnd(22)}(${text})`;
const HEAD = `${''.padEnd(22)}${'median'.padStart(11)}${'min'.padStart(11)}${'max'.padStart(11)}   rounds`;

/** One figure over the rounds: its median, min, max, then each round's; a long label takes from the first cell. */
function row(label: string, values: readonly number[], format: (n: number) => string): string {
  const [first, ...rest] = [median(values), min(values), max(values)].map(format);
  const cells = `${label}${(first as string).padStart(33 - label.length)}${rest.map((cell) => cell.padStart(11)).join('')}`;
  return `${cells}   ${values.map(format).join(' / ')}`;
}

/** Median wall, CPU and main thread time of each stage, in the order the stages ran. */
function stageLines(label: string, results: readonly ChildResult[]): string[] {
  const total = median(results.map((r) => r.ms));
  const names = [...new Set(results.flatMap((r) => r.stages.map((s) => s.name)))];
  return names.map((name, i) => {
    const stages = results.map((r) => r.stages.find((stage) => stage.name === name));
    const [wall, cpu, main] = (['ms', 'cpuMs', 'mainThreadMs'] as const).map((key) =>
      median(stages.map((stage) => stage?.[key] ?? 0)),
    ) as [number, number, number];
    const share = `${Math.round((100 * wall) / total)}%`.padStart(4);
    return `${(i === 0 ? label : '').padEnd(22)}${name.padEnd(11)}${ms(wall).padStart(10)} ${share} of the run   CPU ${int(cpu)} ms, main thread ${int(main)} ms`;
  });
}

/** A case timed against a baseline run in the same rounds: what it is called and judged by. */
interface Pairing extends Rounds<ChildResult> {
  /** As the rows name it: `build`, `diff`, `import`. */
  name: string;
  /** As the rows name its baseline: `baseline`, `read+parse`, `fetch+parse`. */
  baselineName: string;
  about: readonly string[];
  /** The target on the median per-round ratio: of the wall times, or of the case's main thread time over the baseline's wall time. */
  maxRatio: number;
  judgeMainThread?: boolean;
  maxRssBytes: number;
  /** Only rounds whose baseline met the same disk as the case count (the build); fewer than the minimum give no verdict. */
  judgeDisk?: boolean;
  /** Lines between the stages and the verdicts. */
  extra?: string[];
}

/** The verdict on a pairing's time: on the median of its judged rounds' `ratios`, of `rounds` in all. */
function timeVerdict(p: Pairing, ratios: readonly number[], rounds: number): { line: string; ok: boolean } {
  const measured = `${p.judgeMainThread ? 'main thread' : p.name}/${p.baselineName} ${times(median(ratios))}`;
  const ok = median(ratios) <= p.maxRatio;
  if (!p.judgeDisk)
    return {
      ok,
      line: `${pass(ok)} ${p.name} time: ${measured}, median of ${rounds} rounds (target <= ${p.maxRatio}x)`,
    };
  const needed = `at least ${LIMITS.minJudgedRounds} needed`;
  if (ratios.length >= LIMITS.minJudgedRounds) {
    const line = `${pass(ok)} time:   ${measured}, median of ${ratios.length} judged rounds of ${rounds} (target <= ${p.maxRatio}x)`;
    return { ok, line };
  }
  if (ratios.length === rounds)
    return {
      ok: false,
      line: `UNRELIABLE time: ${measured}, but only ${rounds} round(s) were run (${needed}: --rounds 3 or more).`,
    };
  const line =
    `UNRELIABLE time: only ${ratios.length} of ${rounds} rounds could be judged (${needed}): in the others the ` +
    `baseline's kernel time was more than its build's, or over ${LIMITS.maxBaselineSystemShare}x its user time, so the disk was slow. Run again later.`;
  return { ok: false, line };
}

/** A pairing's table, stages and verdicts. */
function pairingSection(p: Pairing): Section {
  const { name, baselineName: base, runs, baselines } = p;
  const per = (pick: (r: ChildResult) => number) => runs.map((r, i) => pick(r) / pick(baselines[i] as ChildResult));
  const pair = (label: string, pick: (r: ChildResult) => number, format: (n: number) => string) => [
    row(`${name} ${label}`, runs.map(pick), format),
    row(`${base} ${label}`, baselines.map(pick), format),
  ];
  const wallRatios = per((r) => r.ms);
  const cpuRatios = per((r) => r.cpuMs);
  const mainMs = runs.map((r) => r.mainThreadMs);
  const mainRatios = mainMs.map((main, i) => main / (baselines[i] as ChildResult).ms);
  const counted = runs.map((r, i) => !p.judgeDisk || judged(r, baselines[i] as ChildResult));
  const time = timeVerdict(
    p,
    (p.judgeMainThread ? mainRatios : wallRatios).filter((_, i) => counted[i]),
    runs.length,
  );
  const worstRss = max(runs.map((r) => r.maxRssBytes));
  const memoryOk = worstRss < p.maxRssBytes;
  // The build, the headline case, names its memory verdict by the measure alone.
  const memory = p.judgeDisk ? `memory: ${name} peak RSS` : `${name} memory: peak RSS`;
  const target = `the target, <= ${p.maxRatio}x, is on the median${p.judgeDisk ? ' of the judged rounds' : ''}`;
  const [runMs, baseMs] = [runs.map((r) => r.ms), baselines.map((r) => r.ms)];
  return {
    passed: time.ok && memoryOk,
    lines: [
      '',
      ...p.about,
      '',
      HEAD,
      ...pair('time', (r) => r.ms, seconds),
      row(`ratio ${name}/${base}`, wallRatios, times),
      note(
        `per round${p.judgeMainThread ? '' : `; ${target}`}; median/median ${times(median(runMs) / median(baseMs))}, min/min ${times(min(runMs) / min(baseMs))}`,
      ),
      ...(p.judgeDisk
        ? [`${'judged'.padEnd(55)}   ${counted.map((yes) => (yes ? 'yes' : 'no (disk)')).join(' / ')}`]
        : []),
      ...pair('CPU time', (r) => r.cpuMs, seconds),
      row('CPU ratio', cpuRatios, times),
      note('user + system, all threads: less bent by other tenants than wall time; not a target'),
      row(`${name} main thread`, mainMs, seconds),
      row(`main thread/${base}`, mainRatios, times),
      note(
        `the ${name}'s main thread alone over the ${base}'s whole run: the lowest ratio the ${name} can reach on one thread, however the I/O overlaps it; ${p.judgeMainThread ? target : 'not a target'}`,
      ),
      ...pair('system CPU', (r) => r.systemMs, seconds),
      note("the kernel's part: file system calls and page faults"),
      ...pair('peak RSS', (r) => r.maxRssBytes, mb),
      ...pair('RSS at start', (r) => r.startRssBytes, mb),
      note(
        "RSS when the clock starts: modules loaded, and what was read before it, such as the bytes the build's baseline writes",
      ),
      '',
      'Stages (median wall time of each stage, its share of the median run, its median CPU and main thread time):',
      ...stageLines(name, runs),
      ...stageLines(base, baselines),
      note("each stage's time counts from the end of the stage before; CPU is the whole process's, I/O pool included"),
      ...(p.extra ?? []),
      '',
      time.line,
      `${pass(memoryOk)} ${memory} ${mb(worstRss)} in the worst round (target < ${mb(p.maxRssBytes)})`,
    ],
  };
}

/** The printed report, and whether every target was met. */
export function report(summary: Summary): { text: string; passed: boolean } {
  const { builds, baselines, source, output } = summary;
  const counts = Object.entries(summary.counts)
    .map(([name, n]) => `${name} ${int(n)}`)
    .join(', ');
  const sections = [
    pairingSection({
      name: 'build',
      baselineName: 'baseline',
      runs: builds,
      baselines,
      about: [
        `Results over ${builds.length} rounds (build and baseline alternating, each run in a fresh \`node --import tsx\` child).`,
        'Times cover the work only: module loading, and the baseline preloading the bytes it writes, happen before the clock starts.',
      ],
      maxRatio: LIMITS.maxRatio,
      maxRssBytes: LIMITS.maxBuildRssBytes,
      judgeDisk: true,
      extra: [
        '',
        `${'source'.padEnd(22)}${int(source.files)} files, ${mb(source.bytes)} (${int(source.bytes)} bytes), ${int(source.records)} records: ${counts}`,
        `${''.padEnd(22)}generated in ${seconds(summary.generatedMs)}, sha256 ${summary.sourceDigest}`,
        `${'output'.padEnd(22)}${int(output.files)} files, ${mb(output.bytes)} (${int(output.bytes)} bytes), ${int(builds[0]?.routes ?? 0)} routes`,
        summary.warnings.length === 0
          ? `${''.padEnd(22)}identical in every build and baseline run, sha256 ${output.digest}`
          : `${''.padEnd(22)}sha256 ${output.digest} in the first build; differed in ${summary.warnings.length} run(s):`,
        ...summary.warnings.map((w) => `WARN  ${w} (was the build edited during the bench?)`),
      ],
    }),
    diffReport(summary.diffs),
    devReport(summary.dev ?? []),
    importReport(summary.imports ?? { runs: [], baselines: [] }),
    startupReport(summary.startup ?? []),
  ];
  return {
    text: sections.flatMap((section) => section.lines).join('\n'),
    passed: sections.every((section) => section.passed),
  };
}

function diffReport(diffs: Rounds<ChildResult> | undefined): Section {
  if (!diffs?.runs.length) return { lines: [], passed: true };
  return pairingSection({
    ...diffs,
    name: 'diff',
    baselineName: 'read+parse',
    about: [
      `Diff case over ${diffs.runs.length} rounds: \`npm run diff\` of the first build against a build with one company and one event changed,`,
      'against reading and parsing both output trees (each run in a fresh child, alternating).',
    ],
    maxRatio: LIMITS.maxDiffRatio,
    maxRssBytes: LIMITS.maxDiffRssBytes,
  });
}

/** The import case: its rounds, and its verdicts; nothing when it did not run. */
export function importReport(imports: Rounds<ChildResult>): Section {
  if (imports.runs.length === 0) return { lines: [], passed: true };
  return pairingSection({
    ...imports,
    name: 'import',
    baselineName: 'fetch+parse',
    about: [
      `Import case over ${imports.runs.length} rounds: \`npm run import\` of the catalogue from the local server (reading, converting,`,
      "checking with the build's own stages, writing data/), against asking the same URLs with the same concurrency and",
      'parsing the answers (each run in a fresh child, alternating; the server in a process of its own).',
    ],
    maxRatio: LIMITS.maxImportMainThreadRatio,
    judgeMainThread: true,
    maxRssBytes: LIMITS.maxImportRssBytes,
  });
}

/** The dev case: each catalogue's rows, and a verdict per edit; nothing when it did not run. */
export function devReport(results: readonly DevCatalogueResult[]): Section {
  if (results.length === 0) return { lines: [], passed: true };
  const lines = [
    '',
    '`npm run dev`: one company, one event and one texture renamed and saved in turn, then the answer that shows',
    'it (the company list, the event list, the first texture page) asked for over HTTP until it has the new name,',
    'revalidating the last answer seen as a browser does; the time is to the headers of the first answer with the',
    "change, and, for each edit's second row, to the end of its body.",
  ];
  const verdicts: Array<{ line: string; ok: boolean }> = [];
  for (const result of results) {
    const { catalogue, records, files, rounds, fullBuildMs, peakRssBytes, companyFile } = result;
    const count = rounds.company.length;
    const inFiles = files === undefined ? '' : ` in ${int(files)} files`;
    lines.push(
      '',
      `Dev case on the ${catalogue} catalogue (${int(records)} records${inFiles}), ${count} rounds of each edit:`,
      '',
      HEAD,
    );
    for (const edit of DEV_EDITS) {
      lines.push(
        row(
          `${edit} edit → answer`,
          rounds[edit].map((round) => round.answerMs),
          ms,
        ),
        row(
          '  its body whole',
          rounds[edit].map((round) => round.bodyMs),
          ms,
        ),
        row(
          '  rebuilt in (printed)',
          rounds[edit].map((round) => round.rebuiltMs),
          ms,
        ),
      );
    }
    lines.push(
      note('as `npm run dev` prints it: from the change seen, the quiet time included, to every file written'),
    );
    if (fullBuildMs) {
      lines.push(row('full build (preview)', fullBuildMs, ms));
      lines.push(
        note("build() of the same data with the preview's settings, which `npm run dev` once ran on every save"),
      );
    }
    if (companyFile) {
      const stages = companyFile.stages.map((stage) => `${stage.name} ${ms(stage.ms)}`).join(', ');
      lines.push(`${'company file alone'.padEnd(22)}${stages}`);
      lines.push(
        note(
          `the edited company file read, parsed and checked on its own as the preview does; ${companyFile.stages.at(-1)?.line ?? ''}`,
        ),
      );
    }
    const memory: Array<[what: string, bytes: number | undefined, about: string]> = [
      ['preview', peakRssBytes, 'VmHWM of `npm run dev` over its first build and every edit'],
      ['full build', result.fullBuildRssBytes, 'the worst round of the full builds above'],
      [
        'import',
        result.importRssBytes,
        '`npm run import` that wrote this layout, from a build of the catalogue served locally',
      ],
    ];
    for (const [what, bytes, about] of memory) {
      if (bytes === undefined) continue;
      lines.push(`${`${what} peak RSS`.padEnd(22)}${mb(bytes).padStart(11)}`);
      lines.push(note(about));
      if (catalogue !== 'sample') {
        const ok = bytes < LIMITS.maxCatalogueRssBytes;
        const target = `target < ${mb(LIMITS.maxCatalogueRssBytes)}`;
        const of = what === 'preview' ? '' : `, ${what}`;
        verdicts.push({ ok, line: `${pass(ok)} dev memory (${catalogue}${of}): peak RSS ${mb(bytes)} (${target})` });
      }
    }
    for (const edit of DEV_EDITS) {
      const answer = median(rounds[edit].map((round) => round.answerMs));
      const label = `dev time (${catalogue}, ${edit} edit): save → new answer ${ms(answer)}`;
      if (catalogue === 'sample') {
        const ok = answer < LIMITS.maxDevAnswerMs;
        verdicts.push({ ok, line: `${pass(ok)} ${label} (target < ${ms(LIMITS.maxDevAnswerMs)})` });
      } else if (edit !== 'company' || !fullBuildMs) {
        const ok = answer < LIMITS.maxDevLargeAnswerMs;
        verdicts.push({ ok, line: `${pass(ok)} ${label} (target < ${ms(LIMITS.maxDevLargeAnswerMs)})` });
      } else {
        const full = median(fullBuildMs);
        const ok = answer / full <= LIMITS.maxDevLargeCompanyRatio;
        const target = `target ≤ ${times(LIMITS.maxDevLargeCompanyRatio)} of the full build's ${ms(full)}`;
        verdicts.push({ ok, line: `${pass(ok)} ${label}, ${times(answer / full)} (${target})` });
      }
    }
  }
  lines.push('', ...verdicts.map((verdict) => verdict.line));
  return { passed: verdicts.every((verdict) => verdict.ok), lines };
}

/** The start-up case: a row per command, its median against the baseline's, and its verdict; nothing when it did not run. */
export function startupReport(results: readonly StartupTimes[]): Section {
  if (results.length === 0) return { lines: [], passed: true };
  const rows = results.map(({ command, ms: runs, baselineMs }) => {
    const [run, base] = [median(runs), median(baselineMs)];
    const limit = LIMITS.maxStartupOwnMs[command];
    const ok = run - base <= limit;
    const own = `+${ms(run - base)} (${times(run / base)})`;
    const line = `${`startup ${command}`.padEnd(30)}${ms(run)} vs ${ms(base)}: ${own}  target ≤ +${ms(limit)}  ${pass(ok)}`;
    return { line, ok };
  });
  return {
    passed: rows.every((r) => r.ok),
    lines: [
      '',
      `Start-up case over ${results[0]?.ms.length} rounds: each command on the sample data (data/), from \`npm run\` to its exit`,
      '(`npm start`: to its first answer), against `npm run` of a script that only starts Node; medians, alternating.',
      "The target is on the command's own start: its median less the baseline's.",
      '',
      ...rows.map((r) => r.line),
    ],
  };
}

/** What the peer and growth cases show of each run, and how each is written. */
const MEASURES: ReadonlyArray<readonly [string, (run: CommandRun) => number, (n: number) => string]> = [
  ['time', (run) => run.ms, seconds],
  ['CPU time', (run) => run.cpuMs, seconds],
  ['peak RSS', (run) => run.maxRssBytes, mb],
];

/** What each pair of the peer case times, as its rows name the two sides. */
const PEER_PAIRS = {
  without: { build: 'build', peer: 'eleventy', about: '`npm run build --precompress off` / Eleventy alone' },
  with: { build: 'build', peer: 'eleventy+step', about: '`npm run build` / Eleventy and its siblings step' },
} as const;

/** The peer case: what was compared, each pair's rounds, their ratios, and the verdicts. */
export function peerReport(result: PeerResult): Section {
  const { comparison } = result;
  const excluded = [...comparison.excluded].map(([what, n]) => `${''.padEnd(22)}${int(n)} × ${what}`);
  const lines: string[] = [];
  const verdicts: Array<{ line: string; ok: boolean }> = [];
  let worstRss = 0;
  for (const pair of ['without', 'with'] as const) {
    const { builds, peers } = result[pair];
    const names = PEER_PAIRS[pair];
    const per = (pick: (run: CommandRun) => number) => builds.map((run, i) => pick(run) / pick(peers[i] as CommandRun));
    const ratio = median(per((run) => run.ms));
    const limit = LIMITS.maxPeerRatio[pair];
    worstRss = Math.max(worstRss, ...builds.map((run) => run.maxRssBytes));
    lines.push(
      '',
      `${pair === 'without' ? 'Without' : 'With'} the siblings: ${names.about}`,
      HEAD,
      ...MEASURES.flatMap(([what, pick, format]) => [
        row(`${names.build} ${what}`, builds.map(pick), format),
        row(`${names.peer} ${what}`, peers.map(pick), format),
        ...(what === 'peak RSS' ? [] : [row(`${what} ratio`, per(pick), times)]),
      ]),
    );
    verdicts.push({
      ok: ratio <= limit,
      line: `${pass(ratio <= limit)} peer time, ${pair} siblings: ${names.build} / ${names.peer} ${times(ratio)}, median of ${builds.length} rounds (target <= ${limit}x)`,
    });
  }
  const rssOk = worstRss < LIMITS.maxCatalogueRssBytes;
  verdicts.push({
    ok: rssOk,
    line: `${pass(rssOk)} build memory: peak RSS ${mb(worstRss)} in the worst round (target < ${mb(LIMITS.maxCatalogueRssBytes)})`,
  });
  const rounds = result.with.builds.length;
  return {
    passed: verdicts.every((verdict) => verdict.ok),
    lines: [
      '',
      `Peer case over ${rounds} rounds: \`npm run build\` (\`node scripts/command.mjs build\`: every check and the targets' files)`,
      'against the Eleventy 3 project of test/bench/eleventy/ writing the same answers from the same catalogue, on the same',
      'work: without the siblings, the build with precompress off against Eleventy; with them, the build against Eleventy and',
      "its user's step (siblings.js: Node's zlib at the same levels, one compression per core). Each a command of its own",
      'into a folder of its own, under GNU time; the four runs of a round in an order reversed every other round.',
      '',
      `${'answers'.padEnd(22)}${int(comparison.compared)} files byte-identical, compared before timing; written only by our build:`,
      ...excluded,
      `${'siblings'.padEnd(22)}${int(result.compressed)} answers with a .br and a .gz on both sides, each decompressing to its answer`,
      ...lines,
      note('wall time per round; the targets are on the median ratio'),
      '',
      ...verdicts.map((verdict) => verdict.line),
    ],
  };
}

/** The growth case: the build's time and peak RSS at the benchmark catalogue and GROWTH times it. */
export function growthReport(result: GrowthResult): Section {
  const { single, grown } = result;
  const medianOf = (runs: readonly CommandRun[], pick: (run: CommandRun) => number) => median(runs.map(pick));
  const growth = (pick: (run: CommandRun) => number) => times(medianOf(grown, pick) / medianOf(single, pick));
  const worstRss = max(single.map((run) => run.maxRssBytes));
  const rssOk = worstRss < LIMITS.maxCatalogueRssBytes;
  const label = `x${GROWTH}`;
  return {
    passed: rssOk,
    lines: [
      '',
      `Growth case over ${single.length} rounds: \`npm run build\` (as in the peer case) of the benchmark catalogue (x1) and of one`,
      `${GROWTH} times its size (${label}: ${int(result.records)} records, ${mb(result.bytes)}), alternating; each a command of its own under GNU time.`,
      '',
      HEAD,
      ...MEASURES.flatMap(([what, pick, format]) => [
        row(`build x1 ${what}`, single.map(pick), format),
        row(`build ${label} ${what}`, grown.map(pick), format),
      ]),
      note(
        `${label} over x1, medians: time ${growth((run) => run.ms)}, CPU ${growth((run) => run.cpuMs)}, peak RSS ${growth((run) => run.maxRssBytes)}`,
      ),
      '',
      `${pass(rssOk)} build memory at x1: peak RSS ${mb(worstRss)} in the worst round (target < ${mb(LIMITS.maxCatalogueRssBytes)}); ${label} is reported, not judged`,
    ],
  };
}

/** A filtered answer is worth asking for when it comes no later than the whole list it is taken from. */
const MAX_FILTER_RATIO = 1;
/** What a filter, a search or an ordering of the company list should take on the local server. */
const MAX_FILTER_MS = 1000;

/** The same requests to the worker under `wrangler dev`: each a 200, the filter and the narrow search within the second. */
function workerLines(worker: FiltersResult['worker']): Section {
  if ('skipped' in worker) return { passed: true, lines: ['', `Worker: skipped, ${worker.skipped}.`] };
  const [plain, ...filtered] = worker.answers;
  if (plain === undefined) throw new Error('the filters case asked the worker nothing');
  const plainMs = median(plain.ms);
  const verdicts = [plain, ...filtered].map((answer) => {
    const ms = median(answer.ms);
    const timed = TIMED_ON_WORKER.has(answer.request);
    const ok = answer.status === 200 && (!timed || ms <= MAX_FILTER_MS);
    const untimed = answer === plain ? 'the baseline' : 'reported, no time target';
    const target = timed ? `target: <= ${int(MAX_FILTER_MS)} ms` : untimed;
    return {
      ok,
      line: `${pass(ok)} worker ${answer.request}: ${answer.status}, ${mb(answer.bytes)}, ${int(ms)} ms, ${times(ms / plainMs)} the plain list, workerd peak RSS ${mb(answer.rssAfter)} after it (${target}); CPU per ask: worker ${int(answer.workerCpuMs)} ms, wrangler's proxy ${int(answer.wranglerCpuMs)} ms`,
    };
  });
  const label = (answer: WorkerAnswers['answers'][number]) =>
    `GET ${answer === plain ? answer.request : answer.request.slice('/company/'.length)} ms`;
  return {
    passed: verdicts.every((verdict) => verdict.ok),
    lines: [
      '',
      `Then \`wrangler dev\` of the same build's targets/cloudflare-workers (workerd, offline), each request asked ${plain.ms.length} times,`,
      `in this order; the peak RSS (VmHWM) of the workerd that runs the worker, from /proc: ${mb(worker.rssBefore)} before the first.`,
      `The CPU time of that workerd and of the rest of wrangler dev (its Node process and the proxy's workerd, which Cloudflare`,
      `does not run) around each request's asks, per ask.`,
      '',
      HEAD,
      ...worker.answers.map((answer) => row(label(answer), answer.ms, int)),
      '',
      ...verdicts.map((verdict) => verdict.line),
    ],
  };
}

/** The filters case: the build's cost of the settings, and each filtered answer against the plain list. */
export function filtersReport(result: FiltersResult): Section {
  const [plain, ...filtered] = result.answers;
  if (plain === undefined) throw new Error('the filters case asked nothing');
  const plainMs = median(plain.ms);
  const verdicts = filtered.map((answer) => {
    const ms = median(answer.ms);
    const held = HELD_TO_PLAIN.has(answer.request);
    const ok = answer.status === 200 && (!held || ms / plainMs <= MAX_FILTER_RATIO) && ms <= MAX_FILTER_MS;
    const targets = held
      ? `<= ${times(MAX_FILTER_RATIO)} and <= ${int(MAX_FILTER_MS)} ms`
      : `<= ${int(MAX_FILTER_MS)} ms`;
    return {
      ok,
      line: `${pass(ok)} ${answer.request}: ${answer.status}, ${mb(answer.bytes)}, ${int(ms)} ms, ${times(ms / plainMs)} the plain list (targets: ${targets})`,
    };
  });
  const buildRatio = median(result.withSettings.map((run) => run.ms)) / median(result.without.map((run) => run.ms));
  const worker = workerLines(result.worker);
  return {
    passed: verdicts.every((verdict) => verdict.ok) && worker.passed,
    lines: [
      '',
      `Filters case: \`npm run build\` with filters, search and ordering on the company list, against the same build without them`,
      `(${result.withSettings.length} alternating rounds), then \`npm run serve\` of that build: each request asked ${plain.ms.length} times.`,
      '',
      HEAD,
      ...MEASURES.flatMap(([what, pick, format]) => [
        row(`with settings ${what}`, result.withSettings.map(pick), format),
        row(`without ${what}`, result.without.map(pick), format),
      ]),
      note(
        `with over without, median time: ${times(buildRatio)}; bytes added: ${mb(result.bytesWith - result.bytesWithout)} (${mb(result.bytesWith)} against ${mb(result.bytesWithout)})`,
      ),
      row(`GET ${plain.request} ms`, plain.ms, int),
      ...filtered.map((answer) => row(`GET ${answer.request.slice('/company/'.length)} ms`, answer.ms, int)),
      '',
      ...verdicts.map((verdict) => verdict.line),
      ...worker.lines,
    ],
  };
}
