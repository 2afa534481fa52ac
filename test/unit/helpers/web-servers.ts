// The servers the unit tests run the built output on: nginx, Caddy and Apache where installed
// (a missing one is reported in one line, or fails the run under CI=true), and the local server
// in the test's own process, since a child would inherit vitest's BASE_URL.

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build } from '../../../scripts/builder/build.ts';
import type { Route } from '../../../scripts/contract/routes.ts';
import { createApiServer, listen } from '../../../scripts/respond/node-server.ts';
import { apache } from '../../e2e/targets/apache.ts';
import { caddy } from '../../e2e/targets/caddy.ts';
import { nginx } from '../../e2e/targets/nginx.ts';
import { freePort } from '../../e2e/targets/process.ts';
import type { RunningTarget, Target } from '../../e2e/targets/target.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../../fixtures/sample.ts';
import { findProgram, reportMissing } from '../../installed.ts';

/**
 * Those of `servers` (nginx, Caddy and Apache unless named) that are installed; `purpose` names
 * what a missing one leaves untested.
 */
export function installedWebServers(purpose: string, servers: readonly Target[] = [nginx, caddy, apache]): Target[] {
  const installed = servers.filter((server) => findProgram(server.needs?.names ?? []) !== undefined);
  for (const server of servers) {
    if (!installed.includes(server)) reportMissing(server.needs?.what ?? server.name, `${purpose} on ${server.name}`);
  }
  return installed;
}

export const localInProcess: Target = {
  name: 'local',
  async start({ publicDir }) {
    const server = createApiServer(publicDir, API);
    const origin = await listen(server, '127.0.0.1', 0);
    return { origin, stop: () => new Promise((done) => server.close(() => done())) };
  },
};

/** The sample built with the project's `_headers` and `extraLines` after it, served by each of `servers`. */
export interface ServedSample {
  dir: string;
  publicDir: string;
  targetsDir: string;
  /** The `_headers` text the build read. */
  headersText: string;
  /** The routes the build wrote. */
  routes: readonly Route[];
  running: Map<string, RunningTarget>;
  /** Stops every server and removes the folder. */
  stop(): Promise<void>;
}

/**
 * Builds the sample into a temporary folder with `extraLines` appended to the project's
 * `_headers`, for `servers` and the `alsoBuilt` targets whose files a test reads, then starts
 * each server on it.
 */
export async function serveSampleWithHeaders(
  prefix: string,
  extraLines: string,
  servers: readonly Target[],
  alsoBuilt: readonly string[] = [],
): Promise<ServedSample> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  const running = new Map<string, RunningTarget>();
  const stop = async () => {
    await Promise.all([...running.values()].map((server) => server.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const headersPath = path.join(dir, '_headers');
    const headersText = `${await readFile(SAMPLE_HEADERS, 'utf8')}${extraLines}`;
    await writeFile(headersPath, headersText);
    const publicDir = path.join(dir, 'public');
    const targetsDir = path.join(dir, 'targets');
    const { routes } = await build({
      resources: API,
      dataDir: SAMPLE_DATA,
      headersPath,
      outDir: publicDir,
      targetsDir,
      targets: [...servers.filter((server) => server !== localInProcess).map((server) => server.name), ...alsoBuilt],
      baseUrl: 'http://127.0.0.1:8000',
      pageSize: 10,
    });
    for (const server of servers) {
      const workDir = path.join(dir, `work-${server.name}`);
      await mkdir(workDir);
      running.set(server.name, await server.start({ publicDir, targetsDir, port: await freePort(), workDir }));
    }
    return { dir, publicDir, targetsDir, headersText, routes, running, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
