// test/bench/measure.ts and child.ts: the fingerprints that check every run wrote the same
// bytes, and the stage lines the build logs, which the report breaks the time down by.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStage } from '../bench/child.ts';
import { differingFiles, peakRss, runChild, runCommand, summariseTree } from '../bench/measure.ts';
import { SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { findProgram } from '../installed.ts';
import { tempDirs, writeTree } from '../unit/helpers/tree.ts';

const tempDir = tempDirs('bench-measure-');

const tree = async (files: Record<string, string>): Promise<string> => writeTree(await tempDir(), files);

describe('summariseTree and differingFiles', () => {
  it('give the same digest for the same files, and name the files that differ', async () => {
    const one = await summariseTree(await tree({ 'a.json': '[]', 'public/b.json': '{"x":1}' }));
    const same = await summariseTree(await tree({ 'public/b.json': '{"x":1}', 'a.json': '[]' }));
    const other = await summariseTree(await tree({ 'a.json': '[]', 'public/b.json': '{"x":2}', 'c.json': '' }));
    expect(one).toMatchObject({ files: 2, bytes: 9 });
    expect(same.digest).toBe(one.digest);
    expect(other.digest).not.toBe(one.digest);
    expect(differingFiles(one, other)).toEqual(['c.json', 'public/b.json']);
    expect(differingFiles(one, same)).toEqual([]);
  });
});

describe('parseStage', () => {
  it("reads the build's stage lines, and nothing else", () => {
    expect(parseStage('load: 8 records from 6 files, 1234 bytes (15 ms)')).toEqual({
      name: 'load',
      ms: 15,
      line: 'load: 8 records from 6 files, 1234 bytes (15 ms)',
    });
    expect(parseStage('read+parse: 3 files (7 ms)')?.name).toBe('read+parse');
    expect(parseStage('checked 36 files for 22 routes from 8 records')).toBeNull();
  });
});

describe('a child run', () => {
  it("asks the import's baseline requests again once when the server closed the connection unanswered", async () => {
    const asked: string[] = [];
    const server = http.createServer((request, response) => {
      asked.push(request.url as string);
      if (asked.length === 1) request.socket.destroy();
      else response.end(JSON.stringify({ url: request.url }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const { port } = server.address() as AddressInfo;
      const result = await runChild(
        { kind: 'import-baseline', from: `http://127.0.0.1:${port}/`, urls: ['a/', 'b/'], concurrency: 1 },
        'test',
      );
      expect(asked).toEqual(['/a/', '/a/', '/b/']);
      expect(result.stages.map((stage) => stage.line)).toEqual([expect.stringMatching(/^fetch\+parse: 2 answers, /)]);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it("reports the main thread's busy time: most of a stage spent computing, and within the run's", async () => {
    const dir = await tempDir();
    const result = await runChild(
      {
        kind: 'build',
        options: {
          dataDir: SAMPLE_DATA,
          outDir: path.join(dir, 'public'),
          targetsDir: path.join(dir, 'targets'),
          targets: ['nginx'],
          headersPath: SAMPLE_HEADERS,
          baseUrl: 'http://localhost:3000',
          pageSize: 10,
        },
      },
      'test',
    );
    expect(result.stages.map((stage) => stage.name)).toEqual(['load', 'validate', 'render', 'targets', 'write']);
    // The run's two clocks start and stop together; the stages' laps lie within them (each is
    // rounded to a whole millisecond).
    expect(result.mainThreadMs).toBeGreaterThan(0);
    expect(result.mainThreadMs).toBeLessThanOrEqual(result.ms);
    const stagesMain = result.stages.reduce((sum, stage) => sum + stage.mainThreadMs, 0);
    expect(stagesMain).toBeLessThanOrEqual(result.mainThreadMs + result.stages.length);
    // Validation is JavaScript from start to end. Its wall time comes from the build's own clock,
    // read a moment before the bench's, so allow for a busy machine, but not for a measure of
    // something else (a share of the time, another thread's work).
    const validate = result.stages.find((stage) => stage.name === 'validate') as (typeof result.stages)[number];
    expect(validate.mainThreadMs).toBeGreaterThanOrEqual(validate.ms / 2);
  }, 60_000);
});

describe('a command run under GNU time', () => {
  const gnuTime = findProgram(['/usr/bin/time']);
  if (!gnuTime) {
    const what = "GNU time (/usr/bin/time, Debian's package time)";
    if (process.env.CI === 'true')
      throw new Error(`${what} is not installed, and CI must run the bench's command runs`);
    process.stderr.write(`skipped the bench's command runs: ${what} is not installed\n`);
  }

  it.skipIf(!gnuTime)("reports the command's own CPU time and peak RSS, not the bench's", async () => {
    // 300 MB touched, then busy for half a second of wall time and half a second of its own CPU
    // time, however loaded the machine (the first may get less CPU than that): far above the bench's.
    const script = [
      'Buffer.alloc(300e6, 1);',
      'const end = Date.now() + 500;',
      'const busy = () => { const used = process.cpuUsage(); return used.user + used.system < 500e3; };',
      'while (Date.now() < end || busy());',
    ].join(' ');
    const run = await runCommand(process.execPath, ['-e', script], { cwd: process.cwd(), label: 'test run' });
    expect(run.maxRssBytes).toBeGreaterThan(300e6);
    expect(run.maxRssBytes).toBeLessThan(600e6);
    // GNU time gives user and system time each in hundredths of a second.
    expect(run.cpuMs).toBeGreaterThanOrEqual(450);
    expect(run.ms).toBeGreaterThanOrEqual(500);
  });

  it.skipIf(!gnuTime)("fails with the command's status and the end of its stderr", async () => {
    const failing = runCommand(process.execPath, ['-e', 'console.error("no data"); process.exit(3)'], {
      cwd: process.cwd(),
      label: 'test run',
    });
    await expect(failing).rejects.toThrow(/test run: ended with code 3:\n[\s\S]*no data/);
  });
});

describe('peakRss', () => {
  it.skipIf(process.platform !== 'linux')("reads a running process's peak RSS, at least its RSS now", async () => {
    const peak = await peakRss(process.pid);
    expect(peak).toBeGreaterThanOrEqual(process.memoryUsage().rss * 0.9);
    expect(await peakRss(2 ** 22 + 1)).toBeUndefined();
  });
});
