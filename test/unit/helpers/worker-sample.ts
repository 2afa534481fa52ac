// The sample built for cloudflare-workers and served twice, by the worker under wrangler dev and
// by the local server from the same output, for the tests that compare their answers.

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { BuildOptions } from '../../../scripts/builder/build.ts';
import { createApiServer, listen } from '../../../scripts/respond/node-server.ts';
import { cloudflareWorkers } from '../../e2e/targets/cloudflare-workers.ts';
import { freePort } from '../../e2e/targets/process.ts';
import type { RunningTarget } from '../../e2e/targets/target.ts';
import { API } from '../../fixtures/sample.ts';
import { builtSample } from './sample-output.ts';

export interface WorkerBesideLocal {
  worker: RunningTarget;
  localOrigin: string;
  /** Stops both servers and removes the folder. */
  stop(): Promise<void>;
}

/** The sample with `options` (given the worker's port), served by the worker and the local server. */
export async function workerBesideLocal(
  prefix: string,
  options: (port: number) => Partial<BuildOptions> = () => ({}),
): Promise<WorkerBesideLocal> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  let worker: RunningTarget | undefined;
  let local: http.Server | undefined;
  const stop = async () => {
    await worker?.stop();
    await new Promise((done) => (local ? local.close(done) : done(undefined)));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const port = await freePort();
    const publicDir = await builtSample(dir, { ...options(port), targets: ['cloudflare-workers'] });
    await mkdir(path.join(dir, 'work'));
    const targetsDir = path.join(dir, 'targets');
    worker = await cloudflareWorkers.start({ publicDir, targetsDir, port, workDir: path.join(dir, 'work') });
    local = createApiServer(publicDir, API);
    return { worker, localOrigin: await listen(local, '127.0.0.1', 0), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
