// The Cloudflare worker answers filters, search and ordering as the local server does: one build
// with the settings of test/fixtures/filters/, served by `wrangler dev` (workerd, the settings in
// the worker's bundle, the records read through the ASSETS binding) and by the local server
// (the settings read from `_records/`), each request's status and body compared byte for byte.

import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceSettings } from '../../scripts/contract/query.ts';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { cloudflareWorkers } from '../e2e/targets/cloudflare-workers.ts';
import { freePort } from '../e2e/targets/process.ts';
import type { RunningTarget } from '../e2e/targets/target.ts';
import { API } from '../fixtures/sample.ts';
import { ROOT } from '../unit/helpers/cli.ts';
import { builtSample } from '../unit/helpers/sample-output.ts';

const REQUESTS = [
  '/company/?country_name=Germany&platform_plus_status=true',
  '/company/?search=gmbh%2Czür&ordering=-city',
  '/company/?search=%C3%9F',
  '/company/?id=abc&phone=a%00b',
  '/company/?ordering=city',
  '/virtualbooth-texture/?search=a&page=2&format=json&x=1',
  '/virtualbooth-texture/?search=a&page=last&ordering=-name',
  '/virtualbooth-texture/?search=a&page=99',
  '/virtualbooth-texture/?id=nope',
];

describe('the Cloudflare worker with filters, search and ordering on', () => {
  let dir: string;
  let running: RunningTarget;
  let local: http.Server;
  let localOrigin: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'filters-worker-'));
    const publicDir = path.join(dir, 'public');
    const targetsDir = path.join(dir, 'targets');
    const settings = JSON.parse(
      await readFile(path.join(ROOT, 'test/fixtures/filters/static-api.config.json'), 'utf8'),
    ) as { resources: Record<string, ResourceSettings> };
    const port = await freePort();
    await builtSample(dir, {
      targets: ['cloudflare-workers'],
      baseUrl: 'http://127.0.0.1:8000',
      resourceSettings: settings.resources,
    });
    await mkdir(path.join(dir, 'work'));
    running = await cloudflareWorkers.start({ publicDir, targetsDir, port, workDir: path.join(dir, 'work') });
    local = createApiServer(publicDir, API);
    localOrigin = await listen(local, '127.0.0.1', 0);
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
    await new Promise((resolve) => (local ? local.close(resolve) : resolve(undefined)));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each(REQUESTS)('%s', async (target) => {
    const [worker, server] = await Promise.all([fetch(`${running.origin}${target}`), fetch(`${localOrigin}${target}`)]);
    const [workerBody, serverBody] = await Promise.all([worker.text(), server.text()]);
    expect(serverBody.length).toBeGreaterThan(2);
    expect([worker.status, workerBody]).toEqual([server.status, serverBody]);
  });
});
