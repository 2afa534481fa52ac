// `wrangler dev` on targets/cloudflare-workers, as its wrangler.jsonc tells a user to run it, after
// a build of every target: wrangler reads `_redirects` and `_headers` from the assets folder as
// Cloudflare's own, so the output must hold no file of another target's format there. It prints
// no error or warning about them, and the worker answers.

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TARGET_NAMES } from '../../scripts/targets/index.ts';
import { fetchFromEmulator } from '../e2e/lib/emulator.ts';
import { cloudflareWorkers } from '../e2e/targets/cloudflare-workers.ts';
import { freePort } from '../e2e/targets/process.ts';
import type { RunningTarget } from '../e2e/targets/target.ts';
import { builtSample } from '../unit/helpers/sample-output.ts';

describe('wrangler dev on the cloudflare-workers target', () => {
  let dir: string;
  let running: RunningTarget;
  // Every try within the test's 30 s.
  const ANSWER_OPTIONS = { timeoutMs: 5_000, output: () => running.output?.() ?? '' };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'workers-dev-'));
    const publicDir = path.join(dir, 'public');
    const targetsDir = path.join(dir, 'targets');
    await builtSample(dir, { targets: [...TARGET_NAMES], baseUrl: 'http://127.0.0.1:8000' });
    await mkdir(path.join(dir, 'work'));
    running = await cloudflareWorkers.start({
      publicDir,
      targetsDir,
      port: await freePort(),
      workDir: path.join(dir, 'work'),
    });
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('prints nothing about _redirects or _headers, and the worker answers', async () => {
    const { response } = await fetchFromEmulator(`${running.origin}/company/`, {}, ANSWER_OPTIONS);
    expect(response.status).toBe(200);
    const output = running.output?.() ?? '';
    expect(output).not.toMatch(/whitespace-separated tokens/);
    expect(output).not.toMatch(/_redirects|_headers/);
    expect(output).not.toMatch(/\[ERROR\]|\[WARNING\]|✘|▲/);
  });
});
