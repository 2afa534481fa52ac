// The guard of test/unit/, the quick set: its tests start no process, so that they answer in about
// a minute and wait on no server, emulator or database. starts-no-process.ts, the set's setup
// file, puts it on node:child_process itself, so it holds for the product's code and for packages
// alike. A test that starts a process belongs in test/process/.
//
// Allowed: the three short helpers any in-process build runs, which a quick test of the build
// cannot avoid: git (the output's commit times), perl (the atomic exchange of two folders) and
// esbuild's service (the targets' bundles).

import path from 'node:path';

export const ALLOWED_PROGRAMS: ReadonlySet<string> = new Set(['git', 'perl', 'esbuild']);

export const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
type Starter = (...args: unknown[]) => unknown;

export const REFUSAL = 'a test of test/unit/ starts no process; one that does belongs in test/process/';

/** The program a call of `starter` runs: the file, the first word of a shell command, or node for fork(). */
function programOf(starter: (typeof STARTERS)[number], first: unknown): string {
  const command = String(first);
  if (starter === 'fork') return `node ${command}`;
  return starter === 'exec' || starter === 'execSync' ? (command.trim().split(/\s+/)[0] ?? command) : command;
}

/**
 * Wraps each process starter of `module` (node:child_process or a stand-in): a program outside
 * ALLOWED_PROGRAMS is recorded and refused with an error, an allowed one starts as before.
 */
export function guardStarters(module: Record<string, unknown>, record: (program: string) => void): void {
  for (const starter of STARTERS) {
    const original = module[starter] as Starter;
    module[starter] = function guarded(this: unknown, ...args: unknown[]) {
      const program = programOf(starter, args[0]);
      if (starter !== 'fork' && ALLOWED_PROGRAMS.has(path.basename(program))) return original.apply(this, args);
      record(program);
      throw new Error(`${starter}(${program}): ${REFUSAL}`);
    };
  }
}

/** One guard per worker process (Vitest runs several files in one), with the current file's refusals. */
const STATE = Symbol.for('static-drf-api.process-guard');
type State = { started: string[] };

export function guardState(): State | undefined {
  return (globalThis as { [STATE]?: State })[STATE];
}

export function setGuardState(state: State): void {
  (globalThis as { [STATE]?: State })[STATE] = state;
}

/** The programs refused since the last call, forgotten; throws where no guard is installed. */
export function takeStarted(): string[] {
  const state = guardState();
  if (state === undefined) throw new Error('node:child_process is not guarded: test/unit/ runs without its setup file');
  return state.started.splice(0);
}
