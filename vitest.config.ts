// Vitest runs the unit tests only; the Playwright suite in test/e2e has its own runner. Two sets:
// test/unit/, the tests that start no process (`npm run test:quick`, about a minute; its setup
// fails a file that starts one), and test/process/, those that run the CLI, a server, an emulator,
// PostgreSQL or Python. `vitest run` (`npm test`) runs both.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The process tests start the CLI in a child process; give them room on a slow machine.
    testTimeout: 30_000,
    // Most files wait on child processes and servers rather than compute, so one worker per core
    // (Vitest's default keeps one core free: a single worker on a 2-core machine) halves the run.
    maxWorkers: '100%',
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: ['test/unit/helpers/starts-no-process.ts'],
        },
      },
      { extends: true, test: { name: 'process', include: ['test/process/**/*.test.ts'] } },
    ],
  },
});
