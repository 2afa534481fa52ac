// Starts wrangler 4.86.0 in local mode (real workerd, Cloudflare's asset worker) offline, for
// the three Cloudflare targets. Started directly, not through npx, so that stopping its process
// group also stops the two workerd children that hold the port.

import path from 'node:path';
import { COMPATIBILITY_DATE } from '../../../scripts/targets/cloudflare/runtime.ts';
import { freePort, REPO_ROOT, spawnProcess, waitForAnswer, waitForPort } from './process.ts';
import type { RunningTarget } from './target.ts';

export { COMPATIBILITY_DATE };

/** How long wrangler may take to answer its first request (about 1.5 s here). */
const READY_TIMEOUT_MS = 60_000;

/**
 * The environment that keeps wrangler off the network and out of $HOME: no metrics or error
 * reports, no banner (it triggers the npm update check), no download of the `request.cf` data,
 * and its config folder (metrics id, logs) inside the target's work folder.
 */
function offlineEnv(workDir: string): NodeJS.ProcessEnv {
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

/**
 * Runs `wrangler <args>` on 127.0.0.1:`port` with cwd `workDir` (wrangler writes .wrangler/
 * there) and resolves once it answers HTTP: its proxy may accept connections before workerd runs.
 */
export async function startWrangler(
  args: string[],
  { port, workDir }: { port: number; workDir: string },
): Promise<RunningTarget> {
  const inspectorPort = await freePort();
  const child = spawnProcess(
    path.join(REPO_ROOT, 'node_modules/.bin/wrangler'),
    [
      ...args,
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(inspectorPort),
      '--log-level',
      'warn',
    ],
    { cwd: workDir, env: offlineEnv(workDir) },
  );
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitForPort(port, child, READY_TIMEOUT_MS);
    await waitForAnswer(`${origin}/`, {}, (response) => response.status < 500, child, READY_TIMEOUT_MS);
  } catch (error) {
    await child.stop();
    throw error;
  }
  return { origin, stop: child.stop, output: child.output };
}
