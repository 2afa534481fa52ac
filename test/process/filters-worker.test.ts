// The Cloudflare worker answers filters, search and ordering as the local server does: one build
// with the settings of test/fixtures/filters/, served by `wrangler dev` (workerd, the settings in
// the worker's bundle, the records read through the ASSETS binding) and by the local server
// (the settings read from `_records/`), each request's status and body compared byte for byte.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceSettings } from '../../scripts/contract/query.ts';
import { ROOT } from '../unit/helpers/cli.ts';
import { type WorkerBesideLocal, workerBesideLocal } from '../unit/helpers/worker-sample.ts';

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
  let served: WorkerBesideLocal;

  beforeAll(async () => {
    const settings = JSON.parse(
      await readFile(path.join(ROOT, 'test/fixtures/filters/static-api.config.json'), 'utf8'),
    ) as { resources: Record<string, ResourceSettings> };
    served = await workerBesideLocal('filters-worker-', () => ({
      baseUrl: 'http://127.0.0.1:8000',
      resourceSettings: settings.resources,
    }));
  }, 120_000);

  afterAll(() => served?.stop());

  it.each(REQUESTS)('%s', async (target) => {
    const [worker, server] = await Promise.all([
      fetch(`${served.worker.origin}${target}`),
      fetch(`${served.localOrigin}${target}`),
    ]);
    const [workerBody, serverBody] = await Promise.all([worker.text(), server.text()]);
    expect(serverBody.length).toBeGreaterThan(2);
    expect([worker.status, workerBody]).toEqual([server.status, serverBody]);
  });
});
