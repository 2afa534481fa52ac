// How a command ends on an error: the one place that maps an error to the lines it prints and
// the exit status it gives (the statuses are named in exit-status.ts). A problem of the input or
// the environment is said in its own words, with exit status 1; a usage error or an input the
// command cannot take at all is status 2; anything else is a bug of the project, one line asking
// for a report, with the stack only under DEBUG=1 or --debug.

import { DataErrors, formatDataError } from '../builder/pipeline/errors.ts';
import { debugRequested } from '../shared/debug.ts';
import { errnoText, RefusedInput, UserFacingError } from '../shared/errors.ts';
import { OutputError } from '../shared/write.ts';
import { LimitsError } from '../targets/limits.ts';
import { EXIT_STATUS } from './exit-status.ts';
import { COMMANDS, type CommandName, UsageError } from './settings.ts';

/** --debug is this module's, not a setting: taken out before the settings are read. */
const debugFlag = process.argv.indexOf('--debug');
if (debugFlag !== -1) process.argv.splice(debugFlag, 1);
const debug = debugFlag !== -1 || debugRequested();

/**
 * The commands whose exit status 1 says a result (`diff --exit-code`: the sides differ) and
 * whose stdout is a report a script reads: each failure is status 2, its line named after the
 * command (`diff: ...`).
 */
const NAMED: ReadonlySet<CommandName> = new Set(['diff']);

/** Where a command stops, for the words of its failure. */
export interface Stop {
  command?: CommandName;
  /** What stays as it was, said after a data problem: `nothing was verified`, `public/ was left as it was`. */
  left?: string;
  /** The command goes on after it (`npm run dev`'s rebuild): every reason is said with `left`, none with the help. */
  goesOn?: boolean;
}

export interface Failure {
  lines: string[];
  status: (typeof EXIT_STATUS)[keyof typeof EXIT_STATUS];
  /**
   * `usage` and `refused`: what the user asked cannot be done; `build`: the build stopped on the
   * data, a host's limits or its write; `environment`: a file, a port or a service; `bug`: not the
   * user's to fix, the one line asks for a report. --debug or DEBUG shows the stack of the last two.
   */
  kind: 'usage' | 'refused' | 'build' | 'environment' | 'bug';
}

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

/** The lines `error` ends the command with, and its exit status. */
export function failureOf(error: unknown, stop: Stop = {}): Failure {
  const command = error instanceof UsageError ? (error.command ?? stop.command) : stop.command;
  const named = command !== undefined && NAMED.has(command);
  const prefix = named ? `${command}: ` : '';
  const failed = named ? EXIT_STATUS.refused : EXIT_STATUS.failed;
  const ends = (kind: Failure['kind'], lines: string[], status: Failure['status'] = failed): Failure => ({
    lines,
    status,
    kind,
  });
  const left = (reason: string, otherwise?: string) =>
    stop.goesOn || otherwise === undefined ? `${reason}; ${stop.left}.` : `${reason}; ${otherwise}.`;
  if (error instanceof UsageError) {
    if (stop.goesOn) return ends('usage', [left(error.message)], EXIT_STATUS.refused);
    const helps = error.pointsToHelp && command !== undefined;
    if (named) return ends('usage', [`${prefix}${error.message}${helps ? ' (see --help)' : ''}`], EXIT_STATUS.refused);
    const help = helps ? [`See \`${COMMANDS[command].name} -- --help\`.`] : [];
    return ends('usage', [error.message, ...help], EXIT_STATUS.refused);
  }
  if (error instanceof RefusedInput)
    return ends('refused', [`${command === undefined ? '' : `${command}: `}${error.message}`], EXIT_STATUS.refused);
  if (error instanceof DataErrors) {
    const problems = error.errors.map(formatDataError);
    return ends('build', [...problems, '', `${prefix}${error.message}; ${stop.left ?? 'nothing was written'}.`]);
  }
  if (error instanceof LimitsError) {
    // A line per reason: a host limit the target is over, or a target that runs no code where a list needs it.
    return ends('build', [...error.lines, '', 'The chosen targets cannot take this build; nothing was written.']);
  }
  if (error instanceof OutputError) return ends('build', [left(error.message, `${error.output}/ was left as it was`)]);
  const message = userMessage(error);
  if (message !== undefined) return ends('environment', [stop.goesOn ? left(message) : `${prefix}${message}`]);
  const text = error instanceof Error ? error.message : String(error);
  return {
    lines: [
      `${prefix}internal error: ${text.split('\n')[0]}. This is a bug: please report it with the command you ran${debug ? '.' : ' (DEBUG=1 or --debug shows the stack).'}`,
    ],
    status: failed,
    kind: 'bug',
  };
}

/** The failure's lines, then the stack where --debug or DEBUG asks for it. */
export function failureText(error: unknown, failure: Failure): string {
  const stack = debug && (failure.kind === 'environment' || failure.kind === 'bug') ? stackOf(error) : undefined;
  return [...failure.lines, ...(stack === undefined ? [] : [stack])].join('\n');
}

function stackOf(error: unknown): string | undefined {
  return error instanceof Error ? error.stack : String(error);
}

/** Prints `error` as the command's last words (or a rebuild's, with `goesOn`) and returns its exit status. */
export function reportFailure(error: unknown, stop: Stop = {}): Failure['status'] {
  const failure = failureOf(error, stop);
  console.error(failureText(error, failure));
  return failure.status;
}

/**
 * Runs a command's body, which `stop` names; any error it throws, or a later one (a server's),
 * ends the process with its lines and exit status.
 */
export async function runCommand(stop: Stop | (() => Promise<void>), body?: () => Promise<void>): Promise<void> {
  const [where, run] = typeof stop === 'function' ? [{}, stop] : [stop, body as () => Promise<void>];
  const fatal = (error: unknown) => {
    process.exit(reportFailure(error, where));
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
  try {
    await run();
  } catch (error) {
    fatal(error);
  }
}
