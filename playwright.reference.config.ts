// The API reference page in a browser (test/browser/): Debian's Chromium, which Playwright
// drives but cannot download here, against the project's own server on 127.0.0.1. Apart from
// playwright.config.ts, whose projects are the deploy targets and whose report feeds the
// targets' table. `npm run test:e2e` runs both.

import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'test/browser',
  testMatch: '**/*.spec.ts',
  workers: 1,
  timeout: 30_000,
  globalTimeout: 5 * 60_000,
  forbidOnly: Boolean(process.env.CI),
  reporter: [['list']],
  outputDir: 'test-results/browser',
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      // No sandbox (root in CI), and none of the browser's own calls home: the test's network
      // log must hold the page's requests only.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
});
