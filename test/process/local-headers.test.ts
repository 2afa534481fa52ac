// The local server answers with the headers a deployed API sends: DRF's (docs/contract.md,
// section 2) and only those that the nginx target sends too, for every request verify asks.
// Headers that describe the connection rather than the answer are left out of the comparison.

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { verifyRequests } from '../../scripts/migrate/verify-requests.ts';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { nginx } from '../e2e/targets/nginx.ts';
import { freePort } from '../e2e/targets/process.ts';
import type { RunningTarget } from '../e2e/targets/target.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { findProgram, reportMissing } from '../installed.ts';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);
/** What identifies the server software, which the local server need not claim. */
const SERVER_ONLY = new Set(['server']);

const installed = findProgram(['nginx']) !== undefined;
if (!installed) reportMissing('nginx', 'the comparison of the local server with nginx');

/** The header names of one answer, sorted, without the connection's. */
function names(
  origin: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<string[]> {
  return new Promise((done, fail) => {
    const request = http.request(`${origin}/${target}`, { method, headers, agent: false }, (response) => {
      response.resume();
      response.once('end', () =>
        done(
          Object.keys(response.headers)
            .filter((name) => !HOP_BY_HOP.has(name))
            .sort(),
        ),
      );
    });
    request.once('error', fail);
    request.end();
  });
}

describe.skipIf(!installed)('the local server and the nginx target', () => {
  let dir: string;
  let local: http.Server;
  let localOrigin: string;
  let deployed: RunningTarget;
  let requests: ReturnType<typeof verifyRequests>;
  let routeCount: number;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'local-headers-'));
    const port = await freePort();
    const publicDir = path.join(dir, 'public');
    const targetsDir = path.join(dir, 'targets');
    const result = await build({
      resources: API,
      dataDir: SAMPLE_DATA,
      headersPath: SAMPLE_HEADERS,
      outDir: publicDir,
      targetsDir,
      targets: ['nginx'],
      baseUrl: `http://127.0.0.1:${port}`,
      pageSize: 10,
    });
    requests = verifyRequests(result.routes, API);
    routeCount = result.routes.length;
    await mkdir(path.join(dir, 'work'));
    deployed = await nginx.start({ publicDir, targetsDir, port, workDir: path.join(dir, 'work') });
    local = createApiServer(publicDir, API);
    localOrigin = await listen(local, '127.0.0.1', 0);
  }, 60_000);

  /** The header names of the same request on the local server and on nginx. */
  const bothNames = (method: string, target: string) =>
    Promise.all([names(localOrigin, method, target), names(deployed.origin, method, target)]);

  afterAll(async () => {
    await deployed?.stop();
    await new Promise((done) => local?.close(done));
    await rm(dir, { recursive: true, force: true });
  });

  it('send the same header names for every file of the route table, GET and HEAD', async () => {
    // verifyRequests() lists the route table's requests first, one per route.
    const answersFromFiles = [...requests.slice(0, routeCount), ...requests.filter(({ method }) => method === 'HEAD')];
    const differences: string[] = [];
    for (const { method, url } of answersFromFiles) {
      const [fromLocal, fromNginx] = await bothNames(method, url);
      const expected = fromNginx.filter((name) => !SERVER_ONLY.has(name));
      if (fromLocal.join() !== expected.join())
        differences.push(`${method} ${url}: local ${fromLocal.join(', ')}; nginx ${expected.join(', ')}`);
    }
    expect(differences).toEqual([]);
    expect(answersFromFiles.length).toBeGreaterThan(40);
  });

  // nginx also puts its file validators on the error, OPTIONS and sorted answers it serves from
  // files; the local server makes those answers in code, as DRF does, without them.
  it('send no header name that nginx does not, on every error, method and sorted answer too', async () => {
    const extra: string[] = [];
    for (const { method, url } of requests) {
      const [fromLocal, fromNginx] = await bothNames(method, url);
      const more = fromLocal.filter((name) => !fromNginx.includes(name));
      if (more.length > 0) extra.push(`${method} ${url}: ${more.join(', ')}`);
    }
    expect(extra).toEqual([]);
    expect(requests.length).toBeGreaterThan(70);
  });

  it('send no Content-Disposition on a list', async () => {
    expect(await names(localOrigin, 'GET', 'event/?ordering=-start_date')).not.toContain('content-disposition');
  });
});
