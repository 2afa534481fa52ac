// End-to-end HTTP suite: one Playwright project per target of test/e2e/targets/index.ts.
// E2E_TARGETS=local,nginx selects targets (default: all registered). The JSON report in
// test-results/e2e-results.json feeds the README's target × rule table: every test title
// starts with its rule id, and known differences show as expected failures ("fail" annotation).
// A target whose server or CLI is not installed is left out, with one line that the global setup
// says (and test/e2e/compat-table.ts then leaves the table alone); under CI=true the run fails.

import { defineConfig } from '@playwright/test';
import { KNOWN_BUGS, KNOWN_DIFFERENCES } from './test/e2e/expectations.ts';
import type { WorkerFixtures } from './test/e2e/fixtures.ts';
import { targetByName } from './test/e2e/targets/index.ts';
import { runnableTargets } from './test/e2e/targets/installed-targets.ts';

const selected = runnableTargets();

// A run on a fixture API (SAMPLE_API, test/fixtures/sample.ts) keeps its report and results apart:
// the targets' table is made from the sample's run alone.
const variant = process.env.SAMPLE_API ? `-${process.env.SAMPLE_API}` : '';

for (const name of [...Object.keys(KNOWN_DIFFERENCES), ...Object.keys(KNOWN_BUGS)]) targetByName(name);

export default defineConfig<object, Pick<WorkerFixtures, 'targetName'>>({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  workers: 2,
  fullyParallel: false,
  timeout: 20_000,
  globalTimeout: 15 * 60_000,
  forbidOnly: Boolean(process.env.CI),
  globalSetup: './test/e2e/targets/installed-targets.ts',
  reporter: [['list'], ['json', { outputFile: `test-results/e2e-results${variant}.json` }]],
  ...(variant ? { outputDir: `test-results/e2e${variant}` } : {}),
  // netlify dev runs the function for every request on a list path (and five times for a 404,
  // expectations.ts netlify-dev-404-retry): up to seconds a request on a loaded machine.
  projects: selected.map((target) => ({
    name: target.name,
    use: { targetName: target.name },
    ...(target.name === 'netlify' ? { timeout: 120_000 } : {}),
  })),
});
