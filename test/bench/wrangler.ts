// `wrangler dev` of a build's targets/cloudflare-workers (real workerd, Cloudflare's asset worker)
// as the end-to-end suite's starter runs it: offline, on 127.0.0.1, in a process group of its own;
// and the peak RSS of the workerd process that runs the worker. The tests share both (test/ may
// import the bench; scripts/ may not import test/).

import { existsSync } from 'node:fs';
import { readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { ask, freePort, peakRss, ROOT, type Started, startCommand } from './measure.ts';

/** A devDependency, run directly (not through npx) so that stopping its group also stops its two workerd children. */
export const WRANGLER = path.join(ROOT, 'node_modules/.bin/wrangler');

/** wrangler's first answer on the benchmark catalogue waits for it to hash every asset file. */
const READY_TIMEOUT_MS = 180_000;

/**
 * The environment that keeps wrangler off the network and out of $HOME: no metrics or error
 * reports, no banner (it triggers the npm update check), no download of the `request.cf` data,
 * and its config folder (metrics id, logs) inside its work folder.
 */
export function offlineWranglerEnv(workDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_SEND_ERROR_REPORTS: 'false',
    WRANGLER_HIDE_BANNER: 'true',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    CI: 'true',
    XDG_CONFIG_HOME: path.join(workDir, '.xdg'),
    FORCE_COLOR: '0',
  };
}

/** wrangler's flags for a local server on 127.0.0.1:`port`, its workerd's inspector on `inspectorPort`, saying only warnings. */
export function localFlags(port: number, inspectorPort: number): string[] {
  return [
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--inspector-port',
    String(inspectorPort),
    '--log-level',
    'warn',
  ];
}

/** Whether `npm ci` installed wrangler. */
export const wranglerInstalled = (): boolean => existsSync(WRANGLER);

/**
 * `wrangler dev` of `targetsDir`/cloudflare-workers/wrangler.jsonc, whose assets are the
 * `public/` beside `targetsDir` (the build's default layout), run in `workDir` (wrangler writes
 * .wrangler/ there); resolved once it answers HTTP, since its proxy accepts connections before
 * workerd runs.
 */
export async function startWorker(targetsDir: string, workDir: string): Promise<Started & { origin: string }> {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const origin = `http://127.0.0.1:${port}`;
  const config = path.join(targetsDir, 'cloudflare-workers', 'wrangler.jsonc');
  const started = await startCommand(WRANGLER, ['dev', '--config', config, ...localFlags(port, inspectorPort)], {
    cwd: workDir,
    env: offlineWranglerEnv(workDir),
    group: true,
    timeoutMs: READY_TIMEOUT_MS,
    ready: async () => ((await ask(`${origin}/`))?.status ?? 500) < 500,
  });
  return { ...started, origin };
}

/** Linux's /proc counts CPU time in USER_HZ ticks: 100 a second on x86 and ARM. */
const MS_PER_TICK = 10;

/**
 * The processes wrangler dev runs in `workDir` (itself, esbuild, two workerd), each marked whether
 * it is the workerd that runs the worker: of the two, the one with the inspector (the other is
 * wrangler's local proxy in front of it, which Cloudflare does not run).
 */
async function wranglerProcesses(workDir: string): Promise<Array<{ pid: number; runsWorker: boolean }>> {
  const found: Array<{ pid: number; runsWorker: boolean }> = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    try {
      const [exe, cwd, command] = await Promise.all([
        readlink(`/proc/${pid}/exe`),
        readlink(`/proc/${pid}/cwd`),
        readFile(`/proc/${pid}/cmdline`, 'utf8'),
      ]);
      if (cwd !== workDir && !cwd.startsWith(`${workDir}/`)) continue;
      found.push({
        pid: Number(pid),
        runsWorker: path.basename(exe).startsWith('workerd') && command.includes('--inspector'),
      });
    } catch {
      // A process that ended meanwhile, or another user's.
    }
  }
  return found;
}

/** The peak RSS (VmHWM, bytes) of the workerd process that runs the worker. */
export async function workerdPeakRss(workDir: string): Promise<number> {
  const workers = (await wranglerProcesses(workDir)).filter((found) => found.runsWorker);
  const rss = workers.length === 1 ? await peakRss((workers[0] as { pid: number }).pid) : undefined;
  if (rss === undefined)
    throw new Error(`expected one workerd running the worker in ${workDir}, found ${workers.length}`);
  return rss;
}

/** CPU time (user + system, ms) a process has used so far; 0 once it has ended. */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // Fields 14 and 15 (utime, stime), counted after the command name, which may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * MS_PER_TICK;
}

/**
 * CPU time (ms) used so far by the workerd that runs the worker, and by the rest of wrangler dev
 * (its Node process and the proxy's workerd): what Cloudflare runs, and what only the local copy does.
 */
export async function wranglerCpuMs(workDir: string): Promise<{ worker: number; rest: number }> {
  const used = { worker: 0, rest: 0 };
  for (const { pid, runsWorker } of await wranglerProcesses(workDir)) {
    used[runsWorker ? 'worker' : 'rest'] += await cpuMs(pid);
  }
  return used;
}
