// The long fuzz run's table (test/e2e/lib/fuzz-report.ts), from reports shaped as Playwright's JSON
// reporter writes them for fuzz.spec.ts.
import { describe, expect, it } from 'vitest';
import { fuzzSection, runsOf } from '../e2e/lib/fuzz-report.ts';

const fuzzTest = (projectName: string, status: string, annotations: Array<[string, string]>, ms = 61_400) => ({
  projectName,
  status,
  annotations: annotations.map(([type, description]) => ({ type, description })),
  results: [{ duration: ms }],
});
const report = (...tests: ReturnType<typeof fuzzTest>[]) =>
  ({ suites: [{ suites: [{ specs: [{ title: '[fuzz] …', tests }] }] }] }) as Parameters<typeof runsOf>[0];

describe('runsOf', () => {
  it('reads what a passed run sent and the count of each documented difference', () => {
    const runs = runsOf(
      report(
        fuzzTest('nginx', 'expected', [
          ['fuzz-requests', '3000 (seed 37), 3000 sent'],
          ['fuzz', 'nginx-trace: 27 of 3000 (seed 37)'],
          ['fuzz', 'regex-cannot-sort: 11 of 3000 (seed 37)'],
        ]),
        fuzzTest('netlify', 'expected', [['fuzz-requests', '3000 (seed 37), 2877 sent']]),
      ),
    );
    expect(runs).toEqual([
      {
        target: 'nginx',
        requests: 3000,
        sent: 3000,
        seed: 37,
        seconds: 61,
        counts: new Map([
          ['nginx-trace', 27],
          ['regex-cannot-sort', 11],
        ]),
      },
      { target: 'netlify', requests: 3000, sent: 2877, seed: 37, seconds: 61, counts: new Map() },
    ]);
  });

  it('leaves out a failed run, whose undocumented differences are not in the counts', () => {
    const failed = fuzzTest('netlify', 'unexpected', [['fuzz-requests', '3000 (seed 37), 2877 sent']]);
    expect(runsOf(report(failed))).toEqual([]);
  });

  it("takes the request count from the differences' notes in a report older than the fuzz-requests note", () => {
    const [run] = runsOf(report(fuzzTest('caddy', 'expected', [['fuzz', 'go-options-asterisk: 6 of 3000 (seed 37)']])));
    expect(run).toMatchObject({ requests: 3000, sent: 3000, seed: 37 });
  });
});

describe('fuzzSection', () => {
  it('writes one column per target, a count per reason, and "not run" for a target without a run', () => {
    const section = fuzzSection(
      [
        { target: 'local', requests: 3000, sent: 3000, seed: 37, seconds: 35, counts: new Map() },
        {
          target: 'netlify',
          requests: 3000,
          sent: 2877,
          seed: 37,
          seconds: 4000,
          counts: new Map([['netlify-dev-trace', 9]]),
        },
      ],
      ['local', 'nginx', 'netlify'],
    );
    const lines = section.split('\n');
    expect(lines[0]).toBe('| | local | nginx | netlify |');
    expect(lines).toContain('| requests sent | 3000 | not run | 2877 of 3000 |');
    expect(lines).toContain('| undocumented | 0 | not run | 0 |');
    expect(lines).toContain('| `netlify-dev-trace` |  | not run | 9 |');
    expect(section).toMatch(/^- `netlify-dev-trace`: netlify dev's functions runtime builds a fetch Request/m);
  });
});
