// Finds the program a target runs (nginx, caddy, apache2 or httpd, netlify-cli). playwright.config.ts
// leaves a target whose server is missing out of the run, so the error here is for a start
// outside the suite (another test that starts a target itself).

import { findProgram, SETUP_COMMAND } from '../../installed.ts';

export function serverBinary(names: readonly string[]): string {
  const found = findProgram(names);
  if (found === undefined) throw new Error(`${names.join(' or ')} is not installed: run ${SETUP_COMMAND}`);
  return found;
}
