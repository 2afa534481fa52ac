// The start-up case: each command on the sample data (data/), run as `npm run <script>` so that it
// measures whatever package.json runs, from its start to its end (`npm start`: to its first
// answer), against `npm run` of a script that only starts Node. That baseline is what every
// command pays before its own code runs, and none can avoid: npm reading the same package.json,
// its shell, and Node starting. It runs in a temporary folder with a copy of the project's
// package.json plus that one script, so that the project's file is never changed.

import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { alternatingRounds, ask, commandEnv, freePort, ROOT, startCommand } from './measure.ts';
import type { StartupCommand, StartupTimes } from './report.ts';

const ROUNDS = 7;
const NOOP = 'bench-noop';

/** `npm <args>` in `cwd`, from its start to its exit; it must succeed. */
async function npm(args: readonly string[], cwd = ROOT): Promise<number> {
  const started = performance.now();
  const child = spawn('npm', args, { cwd, env: commandEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const code = await new Promise((resolve, reject) => child.once('error', reject).once('close', resolve));
  if (code !== 0) throw new Error(`npm ${args.join(' ')} ended with code ${code}:\n${stderr}`);
  return performance.now() - started;
}

/** `npm start` on a free port, until /company/ answers 200; its process group is stopped after. */
async function firstAnswer(): Promise<number> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/company/`;
  const started = performance.now();
  const start = await startCommand('npm', ['start', '--silent', '--', '--port', String(port)], {
    cwd: ROOT,
    group: true,
    ready: async () => (await ask(url))?.status === 200,
  });
  const ms = performance.now() - started;
  await start.stop();
  await rm(path.join(ROOT, '.preview', String(port)), { recursive: true, force: true });
  return ms;
}

export async function runStartupCase(): Promise<StartupTimes[]> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'bench-startup-'));
  try {
    const noopProject = path.join(scratch, 'noop');
    await mkdir(noopProject);
    const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
    manifest.scripts[NOOP] = 'node -e 0';
    await writeFile(path.join(noopProject, 'package.json'), JSON.stringify(manifest, null, 2));
    const out = path.join(scratch, 'build');
    const outFlags = ['--out', `${out}/public`, '--targets-dir', `${out}/targets`, '--schemas-dir', `${out}/schemas`];
    const commands: Array<[StartupCommand, () => Promise<number>]> = [
      ['npm run check', () => npm(['run', '--silent', 'check'])],
      ['npm run build', () => npm(['run', '--silent', 'build', '--', ...outFlags])],
      ['npm run diff -- HEAD', () => npm(['run', '--silent', 'diff', '--', 'HEAD'])],
      ['npm start', firstAnswer],
    ];
    // Once untimed: the launcher compiles the commands again when a source changed since its last run.
    await npm(['run', '--silent', 'check']);
    const results: StartupTimes[] = [];
    for (const [command, run] of commands) {
      const { runs, baselines } = await alternatingRounds(
        run,
        () => npm(['run', '--silent', NOOP], noopProject),
        ROUNDS,
      );
      const list = (values: number[]) => values.map((ms) => Math.round(ms)).join(' / ');
      console.log(`startup  ${command}: ${list(runs)} ms; npm run ${NOOP}: ${list(baselines)} ms`);
      results.push({ command, ms: runs, baselineMs: baselines });
    }
    return results;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
