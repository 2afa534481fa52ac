// How a command ends on an error: a problem of the input or the environment is one line and
// exit status 1 (a usage error is status 2, in settings.ts); anything else is a bug of the
// project, one line asking for a report, with the stack only under DEBUG=1 or --debug.

import { debugRequested } from '../shared/debug.ts';
import { errnoText, UserFacingError } from '../shared/errors.ts';
import { EXIT_STATUS } from './exit-status.ts';

/** --debug is this module's, not a setting: taken out before the settings are read. */
const debugFlag = process.argv.indexOf('--debug');
if (debugFlag !== -1) process.argv.splice(debugFlag, 1);
const debug = debugFlag !== -1 || debugRequested();

/** The one line for an error of the user's input or environment; undefined for a bug. */
export function userMessage(error: unknown): string | undefined {
  if (error instanceof UserFacingError) return error.message;
  const failure = error as NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string };
  const code = failure?.code;
  if (typeof code !== 'string') return undefined;
  if (failure.syscall === 'listen' || failure.syscall === 'bind') {
    const where = `${failure.address ?? 'the address'}${failure.port === undefined ? '' : ` port ${failure.port}`}`;
    if (code === 'EADDRINUSE')
      return `cannot listen on ${where}: it is in use; stop the other server or choose another --port`;
    if (code === 'EACCES' || code === 'EPERM')
      return `cannot listen on ${where}: permission denied (ports below 1024 need privileges); choose another --port`;
    if (code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: this machine has no such address; check --host`;
    return `cannot listen on ${where}: ${failure.message}`;
  }
  if (failure.syscall === 'getaddrinfo')
    return `cannot listen on ${failure.hostname ?? 'the host'}: unknown host name; check --host`;
  if (typeof failure.path === 'string' && /^E[A-Z]+$/.test(code)) {
    return `${failure.path}: ${errnoText(code) ?? failure.message} (${code})`;
  }
  return undefined;
}

/** Prints `error` as the command's last words and sets exit status 1. */
export function reportFailure(error: unknown): void {
  const message = userMessage(error);
  if (message !== undefined) {
    console.error(message);
    if (debug && error instanceof Error && error.stack) console.error(error.stack);
  } else {
    const text = error instanceof Error ? error.message : String(error);
    console.error(
      `internal error: ${text.split('\n')[0]}. This is a bug: please report it with the command you ran${debug ? '.' : ' (DEBUG=1 or --debug shows the stack).'}`,
    );
    if (debug) console.error(error instanceof Error ? error.stack : error);
  }
  process.exitCode = EXIT_STATUS.failed;
}

/**
 * Runs a command's body; any error it throws, or a later one (a server's), ends the process
 * with one line and exit status 1.
 */
export async function runCommand(body: () => Promise<void>): Promise<void> {
  const fatal = (error: unknown) => {
    reportFailure(error);
    process.exit(EXIT_STATUS.failed);
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
  try {
    await body();
  } catch (error) {
    fatal(error);
  }
}
