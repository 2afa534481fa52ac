// test/bench/peer-case.ts and its report: the peer's answers must be ours byte for byte (but
// for the files only our build writes), the first difference named, and each side's siblings must
// decompress to their answers, on the same answers; each pair's time is judged on the median of
// its per-round ratios, the memory on the worst round.

import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { worthCompressing } from '../../scripts/shared/compress.ts';
import { type CommandRun, commandEnv, ROOT, summariseTree, type TreeSummary } from '../bench/measure.ts';
import { compareAnswers, type PeerResult, siblingCheck } from '../bench/peer-case.ts';
import { peerReport } from '../bench/report.ts';
import { SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { builtSample } from '../unit/helpers/sample-output.ts';
import { tempDirs, writeTree } from '../unit/helpers/tree.ts';

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

  it('compares every answer both write, leaving out and counting the files only ours writes, and the siblings', () => {
    const result = compareAnswers(tree(ours), tree({ 'company/index.json': 'c', 'event/index.json': 'e' }));
    expect(result.firstDifference).toBeUndefined();
    expect(result.compared).toBe(2);
    expect([...result.excluded.values()]).toEqual([1, 1, 1]);
    const peerSiblings = { 'company/index.json': 'c', 'company/index.json.br': 'x', 'event/index.json': 'e' };
    expect(compareAnswers(tree(ours), tree(peerSiblings)).firstDifference).toBeUndefined();
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
  });
});

describe('siblingCheck', () => {
  const answer = Buffer.from(JSON.stringify({ detail: 'x'.repeat(5000) }));

  const checked = async (files: Record<string, Buffer>) =>
    siblingCheck(await writeTree(await tempDir(), files), tree(files as never));

  it('names the answers whose .br and .gz decompress to them', async () => {
    const good = { 'a.json': answer, 'a.json.br': brotliCompressSync(answer), 'a.json.gz': gzipSync(answer) };
    expect(await checked({ ...good, 'b.json': answer })).toEqual({ answers: ['a.json'] });
  });

  it('names the first sibling that is missing, or of other bytes', async () => {
    const onlyBr = { 'a.json': answer, 'a.json.br': brotliCompressSync(answer) };
    expect((await checked(onlyBr)).problem).toBe('a.json.gz: missing');
    const other = gzipSync(Buffer.from('{}'));
    expect((await checked({ ...onlyBr, 'a.json.gz': other })).problem).toBe('a.json.gz: not the answer');
  });
});

describe('the Eleventy project', () => {
  const eleventy = (out: string, env: Record<string, string> = {}) =>
    promisify(execFile)(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/@11ty/eleventy/cmd.cjs'),
        '--config=test/bench/eleventy/eleventy.config.js',
        `--output=${out}`,
        '--quiet',
      ],
      {
        cwd: ROOT,
        env: { ...commandEnv(), CATALOGUE_DIR: SAMPLE_DATA, HEADERS_FILE: path.relative(ROOT, SAMPLE_HEADERS), ...env },
      },
    );

  it("writes the sample catalogue's answers as the build does, byte for byte, and with PRECOMPRESS=off no sibling", async () => {
    const out = await tempDir();
    await eleventy(out, { PRECOMPRESS: 'off' });
    const peer = await summariseTree(out);
    const result = compareAnswers(await summariseTree(await builtSample(await tempDir())), peer);
    expect(result.firstDifference).toBeUndefined();
    expect(result.compared).toBeGreaterThan(40);
    expect(await siblingCheck(out, peer)).toEqual({ answers: [] });
  }, 120_000);

  it('writes by its step the siblings of the answers the build compresses, decompressing to them', async () => {
    const out = await tempDir();
    await eleventy(out);
    const peer = await summariseTree(out);
    const ours = await builtSample(await tempDir());
    const compressed = [];
    for (const file of (await summariseTree(ours)).fileDigests.keys())
      if (worthCompressing(file, (await readFile(path.join(ours, file))).length)) compressed.push(file);
    expect(compressed.length).toBeGreaterThan(5);
    expect(await siblingCheck(out, peer)).toEqual({ answers: compressed.sort() });
  }, 120_000);
});

describe('peerReport', () => {
  const run = (ms: number, maxRssBytes = 600e6): CommandRun => ({ ms, cpuMs: ms, maxRssBytes });
  const comparison = { compared: 6033, excluded: new Map([['.assetsignore', 1]]) };
  const verdicts = (lines: readonly string[]) => lines.filter((line) => /^(PASS|FAIL) /.test(line));
  const peers = [run(2000), run(3000), run(2000)];
  const result = (without: CommandRun[], withSiblings: CommandRun[]): PeerResult => ({
    without: { builds: without, peers },
    with: { builds: withSiblings, peers },
    comparison,
    compressed: 24,
  });
  const within = [run(1000), run(3000), run(2400)];

  it('passes each pair on its median per-round ratio: 0.8 without the siblings, 1 with them', () => {
    const passing = peerReport(result([run(1000), run(2400), run(1600)], within));
    expect(verdicts(passing.lines).slice(0, 2)).toEqual([
      'PASS peer time, without siblings: build / eleventy 0.80x, median of 3 rounds (target <= 0.8x)',
      'PASS peer time, with siblings: build / eleventy+step 1.00x, median of 3 rounds (target <= 1x)',
    ]);
    expect(passing.passed).toBe(true);
    const slowWithout = peerReport(result([run(1000), run(2700), run(1800)], within));
    expect(verdicts(slowWithout.lines)[0]).toMatch(/^FAIL peer time, without siblings: .* 0\.90x/);
    expect(slowWithout.passed).toBe(false);
    const slowWith = peerReport(result([run(1000), run(2400), run(1600)], [run(1000), run(3300), run(2400)]));
    expect(verdicts(slowWith.lines)[1]).toMatch(/^FAIL peer time, with siblings: .* 1\.10x/);
    expect(slowWith.passed).toBe(false);
  });

  it("fails on the build's worst peak RSS at 1 GB, whatever the time", () => {
    const heavy = peerReport(result([run(1000), run(1000, 1.2e9), run(1000)], within));
    expect(verdicts(heavy.lines)[2]).toBe(
      'FAIL build memory: peak RSS 1200.0 MB in the worst round (target < 1000.0 MB)',
    );
    expect(heavy.passed).toBe(false);
  });
});
