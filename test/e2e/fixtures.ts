// The suite's fixtures. Per worker: build the sample (test/fixtures/sample.ts, SAMPLE_API) with the filters,
// search and orderings of test/e2e/static-api.config.json into a fresh temp folder with links on
// http://127.0.0.1:<free port>, start the project's target on that port, and tear both down
// afterwards, even on failure. A target the build refuses while a list has those settings
// (cloudflare-pages-static routes on the path alone) is built without them, and so is every
// target for a spec that sets `querySettings: false`. Per test: the known-differences check.

import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test as base, expect } from '@playwright/test';
import { type BuildResult, build } from '../../scripts/builder/build.ts';
import { checkResourceSettings } from '../../scripts/cli/settings-file.ts';
import type { ResourceSettings } from '../../scripts/contract/query.ts';
import { TARGETS as DEPLOY_TARGETS } from '../../scripts/targets/index.ts';
import { answersQueries } from '../../scripts/targets/selection.ts';
import { API, declares, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { documentedDifference, expectedFailure, type ReasonId } from './expectations.ts';
import { PAGE_SIZE } from './lib/contract.ts';
import { Client } from './lib/http.ts';
import { targetByName } from './targets/index.ts';
import { freePort, REPO_ROOT } from './targets/process.ts';
import type { RunningTarget } from './targets/target.ts';

export interface Site {
  /** Name of the target serving the build (the Playwright project name). */
  target: string;
  /** Where requests go: http://127.0.0.1:<port>. */
  origin: string;
  /** The public origin the build wrote into absolute links. */
  baseUrl: string;
  publicDir: string;
  /** The route table and every output file's exact text (relative path → text). */
  build: BuildResult;
  /** The settings file's `resources` the build was given; undefined when built without them. */
  resourceSettings: Readonly<Record<string, ResourceSettings>> | undefined;
}

/** The settings file of the suite's builds. */
const SETTINGS_FILE = path.join(REPO_ROOT, 'test/e2e/static-api.config.json');

/**
 * The settings file's `resources`, of the lists the run declares: the file is written for the
 * trade-fair catalogue, and a fixture API with a list fewer leaves that list's settings out.
 */
function declaredQuerySettings(): Record<string, ResourceSettings> {
  const { resources } = JSON.parse(readFileSync(SETTINGS_FILE, 'utf8')) as { resources: Record<string, unknown> };
  const declared = Object.fromEntries(Object.entries(resources).filter(([name]) => declares(name)));
  return checkResourceSettings(declared, SETTINGS_FILE, API);
}

/** Whether the build takes filters, search and orderings for `target`: it refuses a target that routes on the path alone. */
function takesQuerySettings(target: string): boolean {
  const deploy = DEPLOY_TARGETS.find((each) => each.name === target);
  return deploy === undefined || answersQueries(deploy);
}

export interface WorkerFixtures {
  /** Set per project by playwright.config.ts. */
  targetName: string;
  /** Build with the settings file's filters, search and orderings where the target takes them; on unless a spec says otherwise. */
  querySettings: boolean;
  site: Site;
  api: Client;
}

// biome-ignore lint/suspicious/noConfusingVoidType: Playwright types a fixture that gives no value as void.
export const test = base.extend<{ knownDifferences: void; documented: ReasonId | undefined }, WorkerFixtures>({
  targetName: ['local', { option: true, scope: 'worker' }],
  querySettings: [true, { option: true, scope: 'worker' }],

  site: [
    async ({ targetName, querySettings: wanted }, use) => {
      const target = targetByName(targetName);
      const querySettings = wanted && takesQuerySettings(targetName) ? declaredQuerySettings() : undefined;
      const tmps: string[] = [];
      let running: RunningTarget | undefined;
      try {
        // A port is free when picked, but another server (the other worker's, or workerd's own
        // helpers) can take it before the target binds it: then build and start on a new one.
        for (let attempt = 1; ; attempt++) {
          const port = await freePort();
          const baseUrl = `http://127.0.0.1:${port}`;
          const tmp = await mkdtemp(path.join(os.tmpdir(), `e2e-${targetName}-`));
          tmps.push(tmp);
          const publicDir = path.join(tmp, 'public');
          const targetsDir = path.join(tmp, 'targets');
          const workDir = path.join(tmp, 'work');
          await mkdir(workDir);
          const result = await build({
            resources: API,
            dataDir: SAMPLE_DATA,
            headersPath: SAMPLE_HEADERS,
            outDir: publicDir,
            targetsDir,
            baseUrl,
            pageSize: PAGE_SIZE,
            resourceSettings: querySettings,
            configPath: SETTINGS_FILE,
          });
          try {
            running = await target.start({ publicDir, targetsDir, port, workDir });
          } catch (error) {
            if (
              attempt < 3 &&
              /EADDRINUSE|address already in use|Could not acquire required 'port'/i.test(String(error))
            )
              continue;
            throw error;
          }
          // All traffic of the suite stays on this machine.
          if (new URL(running.origin).hostname !== '127.0.0.1')
            throw new Error(`target origin must be on 127.0.0.1: ${running.origin}`);
          await use({
            target: targetName,
            origin: running.origin,
            baseUrl,
            publicDir,
            build: result,
            resourceSettings: querySettings,
          });
          break;
        }
      } finally {
        await running?.stop();
        for (const tmp of tmps) await rm(tmp, { recursive: true, force: true });
      }
    },
    // Some targets' runtimes (wrangler, netlify dev) take a while to start.
    { scope: 'worker', timeout: 120_000 },
  ],

  api: [
    async ({ playwright, site }, use) => {
      const context = await playwright.request.newContext();
      try {
        await use(new Client(context, site.origin));
      } finally {
        await context.dispose();
      }
    },
    { scope: 'worker' },
  ],

  // Runs before every test: a rule the target is known not to meet becomes an expected failure.
  knownDifferences: [
    async ({ targetName }, use, testInfo) => {
      const reason = expectedFailure(targetName, testInfo.title);
      if (reason !== undefined) testInfo.fail(true, reason);
      await use();
    },
    { auto: true },
  ],

  // The answer a target documents instead of DRF's (a refusal, for one), which the test then
  // asserts as strictly; its annotation makes the rule's cell "no" in docs/targets.md.
  documented: [
    async ({ targetName }, use, testInfo) => {
      const difference = documentedDifference(targetName, testInfo.title);
      if (difference !== undefined) testInfo.annotations.push({ type: 'documented', description: difference.text });
      await use(difference?.reason);
    },
    { auto: true },
  ],
});

export { expect };
