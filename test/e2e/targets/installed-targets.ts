// Which targets this run can start. playwright.config.ts makes projects of `runnableTargets()`
// only, leaving out a target whose program (its `needs`) is not installed; the default export,
// the run's global setup, then says one line per target left out, or under CI=true fails the run.
// The lines are said there and not in the config, which Playwright loads again in each worker
// and knip loads to find the entry files.

import { findProgram, reportMissing } from '../../installed.ts';
import { TARGETS, targetByName } from './index.ts';
import type { Target } from './target.ts';

/** The targets of E2E_TARGETS=local,nginx, or every registered one. */
function chosenTargets(): readonly Target[] {
  const names = process.env.E2E_TARGETS?.trim();
  return names ? names.split(',').map((name) => targetByName(name.trim())) : TARGETS;
}

function missingTargets(): Target[] {
  return chosenTargets().filter(({ needs }) => needs !== undefined && findProgram(needs.names) === undefined);
}

export function runnableTargets(): Target[] {
  const missing = new Set(missingTargets());
  return chosenTargets().filter((target) => !missing.has(target));
}

export default function reportMissingTargets(): void {
  for (const { name, needs } of missingTargets()) reportMissing(needs?.what ?? name, `the e2e target ${name}`);
}
