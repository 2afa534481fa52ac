// The long fuzz run's table (fuzz-table.ts writes it into docs/targets.md): what each target's run
// in a Playwright JSON report of fuzz.spec.ts sent and found, and the table of those runs.

import { fuzzReasonOf } from '../expectations.ts';

export interface ReportTest {
  projectName: string;
  status: 'expected' | 'unexpected' | 'flaky' | 'skipped';
  annotations: Array<{ type: string; description?: string }>;
  results: Array<{ duration: number }>;
}
export interface ReportSuite {
  specs?: Array<{ title: string; tests: ReportTest[] }>;
  suites?: ReportSuite[];
}

export interface TargetRun {
  target: string;
  requests: number;
  /** Fewer than `requests` where the fuzzer leaves out what the emulator cannot take (fuzz.spec.ts). */
  sent: number;
  seed: number;
  seconds: number;
  /** Reason id → how many requests showed it. */
  counts: Map<string, number>;
}

function* tests(suite: ReportSuite): Generator<ReportTest> {
  for (const spec of suite.specs ?? []) yield* spec.tests;
  for (const child of suite.suites ?? []) yield* tests(child);
}

/** The passed fuzz runs of one report, per target. */
export function runsOf(report: { suites: ReportSuite[] }): TargetRun[] {
  const runs: TargetRun[] = [];
  for (const test of report.suites.flatMap((suite) => [...tests(suite)])) {
    if (test.status !== 'expected') continue;
    const counts = new Map<string, number>();
    let of: RegExpExecArray | null = null;
    for (const found of test.annotations.filter((a) => a.type === 'fuzz')) {
      const { key, count } = fuzzReasonOf(found.description ?? '');
      of = /^(\d+) of (\d+) requests \(seed (\d+)\)$/.exec(count);
      counts.set(key, Number(of?.[1]));
    }
    // `<n> (seed <s>), <m> sent`; a report older than that note has the count in each difference's.
    const note = test.annotations.find((a) => a.type === 'fuzz-requests')?.description ?? '';
    const sent = /^(\d+) \(seed (\d+)\), (\d+) sent$/.exec(note);
    const [requests, seed] = sent ? [sent[1], sent[2]] : [of?.[2], of?.[3]];
    if (requests === undefined || seed === undefined) continue;
    const seconds = Math.round(test.results.reduce((sum, result) => sum + result.duration, 0) / 1000);
    runs.push({
      target: test.projectName,
      requests: Number(requests),
      sent: Number(sent?.[3] ?? requests),
      seed: Number(seed),
      seconds,
      counts,
    });
  }
  return runs;
}

/** The section: one row per reason, one column per target, the count in each cell. */
export function fuzzSection(runs: readonly TargetRun[], targets: readonly string[]): string {
  const byTarget = new Map(runs.map((run) => [run.target, run]));
  const cell = (target: string, text: (run: TargetRun) => string) => {
    const run = byTarget.get(target);
    return run === undefined ? 'not run' : text(run);
  };
  const reasons = [...new Set(runs.flatMap((run) => [...run.counts.keys()]))].sort();
  const lines = [
    `| | ${targets.join(' | ')} |`,
    `|---|${targets.map(() => '---|').join('')}`,
    `| requests sent | ${targets.map((t) => cell(t, (run) => (run.sent === run.requests ? `${run.requests}` : `${run.sent} of ${run.requests}`))).join(' | ')} |`,
    `| seed | ${targets.map((t) => cell(t, (run) => String(run.seed))).join(' | ')} |`,
    `| seconds | ${targets.map((t) => cell(t, (run) => String(run.seconds))).join(' | ')} |`,
    `| undocumented | ${targets.map((t) => cell(t, () => '0')).join(' | ')} |`,
    ...reasons.map(
      (reason) =>
        `| \`${reason}\` | ${targets.map((t) => cell(t, (run) => String(run.counts.get(reason) ?? ''))).join(' | ')} |`,
    ),
  ];
  const texts = reasons.map((reason) => `- \`${reason}\`: ${fuzzReasonOf(`${reason}: 1 of 1 (seed 1)`).text}.`);
  return [...lines, '', ...texts].join('\n');
}
