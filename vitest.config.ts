// Vitest runs the unit tests only; the Playwright suite in test/e2e has its own runner.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    // The build tests start the CLI in a child process; give them room on a slow machine.
    testTimeout: 30_000,
    // Most files wait on child processes and servers rather than compute, so one worker per core
    // (Vitest's default keeps one core free: a single worker on a 2-core machine) halves the run.
    maxWorkers: '100%',
  },
});
