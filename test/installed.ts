// What some tests run that `npm install` does not bring: the self-hosted targets' web servers,
// netlify-cli, a DRF service under gunicorn and PostgreSQL for its database. `npm run setup:targets` installs them. A test
// whose program is missing is skipped with one line that says so, so that `npm test` passes on
// a contributor's machine without root; under CI=true it fails instead, so CI proves every one.

import { accessSync, constants, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';

export const SETUP_COMMAND = 'npm run setup:targets';

// Debian puts nginx and apache2 in /usr/sbin, which a non-root PATH may lack.
const SEARCH = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), '/usr/sbin', '/usr/bin', '/sbin'];

/** The first of `names` (a bare name, or a path) that is an executable file, or undefined. */
export function findProgram(names: readonly string[]): string | undefined {
  for (const name of names) {
    const candidates = path.isAbsolute(name) ? [name] : SEARCH.map((dir) => path.join(dir, name));
    for (const candidate of candidates) {
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/**
 * The folder of PostgreSQL's programs the tests run (initdb, postgres, pg_isready, createdb), or undefined: on the
 * PATH, else where Debian (/usr/lib/postgresql/<major>/bin, newest first) or Homebrew keeps them.
 */
export function findPostgres(): string | undefined {
  const majors = (dir: string) => {
    try {
      return readdirSync(dir)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a));
    } catch {
      return [];
    }
  };
  const folders = [
    ...majors('/usr/lib/postgresql').map((major) => `/usr/lib/postgresql/${major}/bin`),
    '/opt/homebrew/bin',
    '/usr/local/bin',
  ];
  const initdb = findProgram(['initdb', ...folders.map((dir) => path.join(dir, 'initdb'))]);
  if (initdb === undefined) return undefined;
  // A link on the PATH (/usr/local/bin/initdb) leads to the folder that holds the others.
  const bin = path.dirname(realpathSync(initdb));
  const needed = ['postgres', 'pg_isready', 'createdb'];
  return needed.every((program) => findProgram([path.join(bin, program)])) ? bin : undefined;
}

/** The one line said of a missing program: what it is for, and the command that installs it. */
export function missingLine(what: string, usedBy: string): string {
  return `skipped ${usedBy}: ${what} is not installed (${SETUP_COMMAND} installs it)`;
}

/**
 * Says that `what` is missing: under CI=true by throwing, elsewhere with one line on stderr.
 * The caller then skips what needs it.
 */
export function reportMissing(what: string, usedBy: string): void {
  if (process.env.CI === 'true')
    throw new Error(`${what} is not installed, and CI must run ${usedBy}: run ${SETUP_COMMAND}`);
  process.stderr.write(`${missingLine(what, usedBy)}\n`);
}
