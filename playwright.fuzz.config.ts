// `npm run fuzz`'s long run: the request fuzzer (test/e2e/fuzz.spec.ts) alone, with thousands of
// requests per target (FUZZ_REQUESTS). The end-to-end config's projects and fixtures, but one
// target at a time (an emulator takes both cores of a small machine, and two at once made each
// answer slower than its budget), a global timeout that is the sum of the targets' own budgets
// (test/e2e/lib/fuzz-plan.ts) instead of the suite's ten minutes, and its own JSON report, so
// that the long run leaves the results behind docs/targets.md's table alone. A run of some targets
// (E2E_TARGETS) has a report and folder named after them, so that two such runs at once (an
// emulator's hour beside the web servers' minutes) keep both.

import { defineConfig } from '@playwright/test';
import base from './playwright.config.ts';
import { fuzzTimeoutMs } from './test/e2e/lib/fuzz-plan.ts';

const projects = base.projects ?? [];
const picked = process.env.E2E_TARGETS ? `-${process.env.E2E_TARGETS.replaceAll(',', '-')}` : '';

export default defineConfig({
  ...base,
  testMatch: '**/fuzz.spec.ts',
  workers: 1,
  // Each target's start (the fixture, up to two minutes) and its requests.
  globalTimeout: projects.reduce((sum, project) => sum + 120_000 + fuzzTimeoutMs(project.name ?? ''), 0),
  reporter: [['list'], ['json', { outputFile: `test-results/fuzz-results${picked}.json` }]],
  outputDir: `test-results/fuzz${picked}`,
});
