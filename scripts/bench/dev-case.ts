// The dev case of `npm run bench`: `npm run dev` on the sample data (data/), timed from saving a
// file to the first answer over HTTP that has the change. It runs in a project folder of its own
// under .bench/ (a copy of data/ and _headers, its working directory), as a user runs it.

import { type ChildProcess, spawn } from 'node:child_process';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COMPANIES = 'data/company/companies.json';
/** How often the answer is asked for while waiting: the resolution of the measurement. */
const POLL_MS = 10;
/** Between rounds, so that each save meets a dev server at rest. */
const PAUSE_MS = 500;
const TIMEOUT_MS = 30_000;

export interface DevRound {
  /** From the start of the save to the first answer with the change, over HTTP. */
  answerMs: number;
  /** What `npm run dev` printed for the rebuild (`rebuilt in N ms`): from the change seen to the swap. */
  rebuiltMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts `npm run dev` in `dir` on a free port; resolves with its origin and its stderr so far, as it grows. */
async function startDev(dir: string): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const env = { ...process.env };
  for (const name of ['BASE_URL', 'PAGE_SIZE', 'HOST', 'PORT']) delete env[name];
  // tsx by its path: `--import tsx` would be looked up from `dir`, which has no node_modules.
  const child = spawn(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), path.join(ROOT, 'scripts/cli/dev-command.ts'), '--port', '0'],
    { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
    for (const line of text.trimEnd().split('\n')) console.log(`  dev | ${line}`);
  });
  const started = performance.now();
  for (;;) {
    const url = /^Serving \S+ at (http:\/\/\S+)$/m.exec(stderr)?.[1];
    if (url) return { child, url, stderr: () => stderr };
    if (child.exitCode !== null || performance.now() - started > TIMEOUT_MS) {
      child.kill('SIGKILL');
      throw new Error(`npm run dev did not start:\n${stderr}`);
    }
    await sleep(POLL_MS);
  }
}

/** Polls `url` until its body contains `marker`; resolves with performance.now() of that answer. */
async function answerWith(url: string, marker: string): Promise<number> {
  const started = performance.now();
  for (;;) {
    const body = await (await fetch(url)).text();
    if (body.includes(marker)) return performance.now();
    if (performance.now() - started > TIMEOUT_MS) throw new Error(`no answer with ${marker} in ${TIMEOUT_MS} ms`);
    await sleep(POLL_MS);
  }
}

/** The time of the first `rebuilt in N ms` line past the first `from` characters of stderr, once printed. */
async function printedRebuild(stderr: () => string, from: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const rebuilt = /^rebuilt in (\d+) ms/m.exec(stderr().slice(from));
    if (rebuilt) return Number(rebuilt[1]);
    if (performance.now() - started > TIMEOUT_MS) throw new Error(`npm run dev printed no rebuild:\n${stderr()}`);
    await sleep(POLL_MS);
  }
}

/** Runs `rounds` saves of the sample's company file, each renaming its first company. */
export async function runDevCase(benchDir: string, rounds: number): Promise<DevRound[]> {
  const dir = path.join(benchDir, 'dev');
  await rm(dir, { recursive: true, force: true });
  await cp(path.join(ROOT, 'data'), path.join(dir, 'data'), { recursive: true });
  await cp(path.join(ROOT, '_headers'), path.join(dir, '_headers'));
  const file = path.join(dir, COMPANIES);
  const companies = JSON.parse(await readFile(file, 'utf8')) as Array<{ name: string }>;
  const dev = await startDev(dir);
  const results: DevRound[] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      await sleep(PAUSE_MS);
      const marker = `(saved in round ${round})`;
      const printedBefore = dev.stderr().length;
      const saved = performance.now();
      await writeFile(file, JSON.stringify([{ ...companies[0], name: marker }, ...companies.slice(1)], null, 2));
      const answered = await answerWith(`${dev.url}/company/`, marker);
      results.push({ answerMs: answered - saved, rebuiltMs: await printedRebuild(dev.stderr, printedBefore) });
      console.log(`dev      r${round}: save → new answer ${Math.round(answered - saved)} ms`);
    }
  } finally {
    if (dev.child.exitCode === null) {
      const exited = new Promise((done) => dev.child.once('exit', done));
      dev.child.kill('SIGTERM');
      await exited;
    }
  }
  return results;
}
