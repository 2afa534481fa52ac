// The quick set's guard (helpers/process-guard.ts), which the set's setup file installs on
// node:child_process for every file of test/unit/: it refuses any program but the build's own
// helpers, and remembers the refusal even when the code that asked swallowed the error.

import { execFileSync, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { guardStarters, takeStarted } from './helpers/process-guard.ts';

describe('the guard of test/unit/', () => {
  it('is on node:child_process in this file: a program is refused and remembered', () => {
    expect(() => spawn('sleep', ['1'])).toThrow('spawn(sleep): a test of test/unit/ starts no process');
    expect(() => execFileSync('/usr/bin/true')).toThrow('belongs in test/process/');
    try {
      execFileSync('wrangler', ['--version']);
    } catch {}
    // Taken here, so that this file does not fail for the refusals it asked for.
    expect(takeStarted()).toEqual(['sleep', '/usr/bin/true', 'wrangler']);
  });

  it("lets the build's own helpers run: git", () => {
    expect(execFileSync('git', ['--version'], { encoding: 'utf8' })).toMatch(/^git version /);
    expect(takeStarted()).toEqual([]);
  });

  it('names the program of each starter', () => {
    const calls: string[] = [];
    const module: Record<string, unknown> = {};
    for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'])
      module[name] = (...args: unknown[]) => calls.push(`${name} ${String(args[0])}`);
    const refused: string[] = [];
    guardStarters(module, (program) => refused.push(program));
    const call = (name: string, ...args: unknown[]) => (module[name] as (...args: unknown[]) => unknown)(...args);
    expect(() => call('exec', 'postgres -D data')).toThrow('exec(postgres)');
    expect(() => call('execSync', '  gunicorn app')).toThrow('execSync(gunicorn)');
    expect(() => call('fork', 'scripts/command.mjs')).toThrow('fork(node scripts/command.mjs)');
    expect(() => call('spawnSync', 'python3', ['-c', ''])).toThrow('spawnSync(python3)');
    call('spawn', '/usr/bin/perl', ['-e', '']);
    call('execFile', 'git', ['status']);
    call('spawn', '/work/node_modules/@esbuild/linux-x64/bin/esbuild', ['--service']);
    expect(refused).toEqual(['postgres', 'gunicorn', 'node scripts/command.mjs', 'python3']);
    expect(calls).toEqual([
      'spawn /usr/bin/perl',
      'execFile git',
      'spawn /work/node_modules/@esbuild/linux-x64/bin/esbuild',
    ]);
  });
});
