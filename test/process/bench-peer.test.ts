// test/bench/peer-case.ts and its report: the peer's answers must be ours byte for byte (but
// for the files only our build writes), the first difference named; the time is judged on the
// median of the per-round ratios, the memory on the worst round.

import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type CommandRun, commandEnv, ROOT, summariseTree, type TreeSummary } from '../bench/measure.ts';
import { compareAnswers } from '../bench/peer-case.ts';
import { peerReport } from '../bench/report.ts';
import { SAMPLE_DATA } from '../fixtures/sample.ts';
import { builtSample } from '../unit/helpers/sample-output.ts';
import { tempDirs } from '../unit/helpers/tree.ts';

const tempDir = tempDirs('bench-peer-');

function tree(files: Record<string, string>): TreeSummary {
  return { files: Object.keys(files).length, bytes: 0, digest: '', fileDigests: new Map(Object.entries(files)) };
}

describe('compareAnswers', () => {
  const ours = {
    '.assetsignore': 'a',
    _redirects: 'r',
    '_parts/company/index.json.0': 'p',
    'company/index.json': 'c',
    'company/index.json.br': 'cb',
    'company/index.json.gz': 'cg',
    'event/index.json': 'e',
  };

  it('compares every answer both write, leaving out and counting the files only ours writes', () => {
    const result = compareAnswers(tree(ours), tree({ 'company/index.json': 'c', 'event/index.json': 'e' }));
    expect(result.firstDifference).toBeUndefined();
    expect(result.compared).toBe(2);
    expect([...result.excluded.values()]).toEqual([1, 1, 1, 2]);
  });

  it('names the first file, in path order, whose bytes differ or that one side alone wrote', () => {
    const differ = compareAnswers(tree(ours), tree({ 'company/index.json': 'C', 'event/index.json': 'E' }));
    expect(differ.firstDifference).toEqual({ file: 'company/index.json', problem: 'bytes differ' });
    const missing = compareAnswers(tree(ours), tree({ 'event/index.json': 'e' }));
    expect(missing.firstDifference).toEqual({ file: 'company/index.json', problem: 'only our build wrote it' });
    const extra = compareAnswers(
      tree(ours),
      tree({ 'a.json': '', 'company/index.json': 'c', 'event/index.json': 'e' }),
    );
    expect(extra.firstDifference).toEqual({ file: 'a.json', problem: 'only the peer wrote it' });
    // A sibling is left out of our side only: one the peer writes is a difference.
    const sibling = { 'company/index.json': 'c', 'event/index.json': 'e', 'event/index.json.br': 'x' };
    expect(compareAnswers(tree(ours), tree(sibling)).firstDifference).toEqual({
      file: 'event/index.json.br',
      problem: 'only the peer wrote it',
    });
  });
});

describe('the Eleventy project', () => {
  it("writes the sample catalogue's answers as the build does, byte for byte", async () => {
    const out = await tempDir();
    const eleventy = path.join(ROOT, 'node_modules/@11ty/eleventy/cmd.cjs');
    const config = '--config=test/bench/eleventy/eleventy.config.js';
    await promisify(execFile)(process.execPath, [eleventy, config, `--output=${out}`, '--quiet'], {
      cwd: ROOT,
      env: { ...commandEnv(), CATALOGUE_DIR: SAMPLE_DATA },
    });
    const result = compareAnswers(await summariseTree(await builtSample(await tempDir())), await summariseTree(out));
    expect(result.firstDifference).toBeUndefined();
    expect(result.compared).toBeGreaterThan(40);
  }, 120_000);
});

describe('peerReport', () => {
  const run = (ms: number, maxRssBytes = 600e6): CommandRun => ({ ms, cpuMs: ms, maxRssBytes });
  const comparison = { compared: 6033, excluded: new Map([['.assetsignore', 1]]) };
  const verdicts = (lines: readonly string[]) => lines.filter((line) => /^(PASS|FAIL) /.test(line));

  it('passes a median per-round ratio of 1 or less, and fails one above it', () => {
    const peers = [run(2000), run(3000), run(2000)];
    const within = peerReport({ builds: [run(1000), run(3000), run(2400)], peers, comparison });
    expect(verdicts(within.lines)[0]).toBe('PASS peer time: build/eleventy 1.00x, median of 3 rounds (target <= 1x)');
    expect(within.passed).toBe(true);
    const beyond = peerReport({ builds: [run(1000), run(3300), run(2400)], peers, comparison });
    expect(verdicts(beyond.lines)[0]).toMatch(/^FAIL peer time: build\/eleventy 1\.10x/);
    expect(beyond.passed).toBe(false);
  });

  it("fails on the build's worst peak RSS at 1 GB, whatever the time", () => {
    const peers = [run(2000), run(2000), run(2000)];
    const heavy = peerReport({ builds: [run(1000), run(1000, 1.2e9), run(1000)], peers, comparison });
    expect(verdicts(heavy.lines)[1]).toBe(
      'FAIL build memory: peak RSS 1200.0 MB in the worst round (target < 1000.0 MB)',
    );
    expect(heavy.passed).toBe(false);
  });
});
