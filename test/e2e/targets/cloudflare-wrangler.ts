// Starts wrangler 4.86.0 in local mode (real workerd, Cloudflare's asset worker) offline, for
// the three Cloudflare targets, in the environment and from the path the bench runs it with.
// Started directly, not through npx, so that stopping its process group also stops the two
// workerd children that hold the port.

import { COMPATIBILITY_DATE } from '../../../scripts/targets/cloudflare/runtime.ts';
import { localFlags, offlineWranglerEnv, WRANGLER } from '../../bench/wrangler.ts';
import { freePort, spawnProcess, waitForAnswer, waitForPort } from './process.ts';
import type { RunningTarget } from './target.ts';

export { COMPATIBILITY_DATE };

/** How long wrangler may take to answer its first request (about 1.5 s here). */
const READY_TIMEOUT_MS = 60_000;

/**
 * Runs `wrangler <args>` on 127.0.0.1:`port` with cwd `workDir` (wrangler writes .wrangler/
 * there) and resolves once it answers HTTP: its proxy may accept connections before workerd runs.
 */
export async function startWrangler(
  args: string[],
  { port, workDir }: { port: number; workDir: string },
): Promise<RunningTarget> {
  const inspectorPort = await freePort();
  const child = spawnProcess(WRANGLER, [...args, ...localFlags(port, inspectorPort)], {
    cwd: workDir,
    env: offlineWranglerEnv(workDir),
  });
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
