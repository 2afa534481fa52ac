// Runs one of the npm scripts' commands as the user would, in a process of its own: through
// scripts/command.mjs, as the npm scripts do, so a test runs the very code a command runs (one
// node process, so that the PID is the command's own).

import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { type CommandName, readSettings, type Settings } from '../../../scripts/cli/settings.ts';
import { SAMPLE_API_MODULE, SAMPLE_DIR } from '../../fixtures/sample.ts';

export const ROOT = path.resolve(import.meta.dirname, '../../..');
export const GOOD_DATA = path.join(ROOT, 'test/fixtures/good/data');

/** The settings a command reads, read in the sample project (its settings file, not the project's). */
export function readSampleSettings<C extends CommandName = 'build'>(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  command?: C,
): Settings<C> {
  return readSettings(argv, env, command, SAMPLE_DIR);
}

/** The flags that put every folder a build writes under `dir`: a test never writes into the project. */
export function outputArgs(dir: string): string[] {
  return [
    '--out',
    path.join(dir, 'public'),
    '--targets-dir',
    path.join(dir, 'targets'),
    '--schemas-dir',
    path.join(dir, 'schemas'),
  ];
}

/** Which declarations a command runs against: the sample's, or the project's own (test/process/project.test.ts). */
type Api = 'sample' | 'project';

/**
 * The environment without the settings' variables (vitest sets BASE_URL to "/"), with the
 * sample's declarations module as the command's declared API (API_MODULE) unless `api` is the
 * project's: a list the user adds to the project's declarations is no test's business.
 */
export function cleanEnv(extra: Record<string, string> = {}, api: Api = 'sample'): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    'BASE_URL',
    'PAGE_SIZE',
    'HOST',
    'PORT',
    'PRECOMPRESS',
    'DEBUG',
    'STATIC_API_PAUSE_AT',
    'API_MODULE',
  ])
    delete env[name];
  return { ...env, ...(api === 'sample' ? { API_MODULE: SAMPLE_API_MODULE } : {}), ...extra };
}

/** A command of the npm scripts, in scripts/cli/<name>-command.ts. */
type Command = 'build' | 'serve' | 'start' | 'dev' | 'import' | 'verify' | 'diff' | 'setup-git';

/** The launcher every npm script runs its command through. */
const LAUNCHER = path.join(ROOT, 'scripts/command.mjs');

/** node's arguments that run `command` as its npm script does: `[launcher, command, ...args]`. */
export function commandLine(command: Command, args: readonly string[] = []): string[] {
  return [LAUNCHER, command, ...args];
}

interface CommandOptions {
  /** Its working directory, which its default paths are relative to: the sample project unless given. */
  cwd?: string;
  /** Variables set on top of cleanEnv(). */
  env?: Record<string, string>;
  /** The declarations it runs against: the sample's unless given. */
  api?: Api;
}

export function startCommand(
  command: Command,
  args: readonly string[],
  { cwd = SAMPLE_DIR, env = {}, api }: CommandOptions = {},
): ChildProcess {
  return spawn(process.execPath, commandLine(command, args), {
    cwd,
    env: cleanEnv(env, api),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command to its end (killing it, by its PID, after `timeoutMs`). */
export function runCommand(
  command: Command,
  args: readonly string[],
  { timeoutMs = 15_000, ...options }: CommandOptions & { timeoutMs?: number } = {},
): Promise<Finished> {
  const child = startCommand(command, args, options);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((done) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** Whether the text holds a stack frame (`    at fn (file:line:col)`). */
export function hasStackTrace(text: string): boolean {
  return /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>)$/m.test(text);
}
