// The setup file of test/unit/ (vitest.config.ts): guards node:child_process (./process-guard.ts)
// before each file runs, and fails the file at its end if it tried to start a process, even where
// the code that asked swallowed the error.

import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { afterAll } from 'vitest';
import { guardStarters, guardState, REFUSAL, setGuardState, takeStarted } from './process-guard.ts';

const installed = guardState();
if (installed === undefined) {
  const state = { started: [] as string[] };
  setGuardState(state);
  guardStarters(childProcess as unknown as Record<string, unknown>, (program) => state.started.push(program));
  // Named imports of node:child_process in ES modules see the guarded functions too.
  syncBuiltinESMExports();
} else {
  installed.started = [];
}

afterAll(() => {
  const started = takeStarted();
  if (started.length > 0) throw new Error(`this file started ${[...new Set(started)].join(', ')}: ${REFUSAL}`);
});
