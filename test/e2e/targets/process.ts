// Starting and stopping the servers under test: each is our own child process, stopped by its
// PID (and its process group, for servers that start workers) even when a test fails.

import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

/** The project folder: commands and relative paths are resolved from here, whatever the cwd. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface Spawned {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

export interface SpawnOptions {
  env?: NodeJS.ProcessEnv;
  /** Working directory of the child; default the project folder. */
  cwd?: string;
}

export function spawnProcess(command: string, args: string[], options: SpawnOptions = {}): Spawned {
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    cwd: options.cwd ?? REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    const leaderGone = child.exitCode !== null || child.signalCode !== null;
    try {
      // The whole group: a server that exited early can leave its own children (workerd) behind.
      process.kill(-(child.pid as number), 'SIGTERM');
    } catch {
      return;
    }
    if (leaderGone) return;
    const timer = setTimeout(() => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // already gone
      }
    }, 5000);
    await exited;
    clearTimeout(timer);
  };
  return { child, output: () => output, stop };
}

/** Resolves once something accepts connections on the port; fails if the child exits first. */
export async function waitForPort(port: number, spawned: Spawned, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (spawned.child.exitCode !== null) throw new Error(`server exited early:\n${spawned.output()}`);
    const open = await new Promise<boolean>((done) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  await spawned.stop();
  throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms:\n${spawned.output()}`);
}

/** A port that was free a moment ago (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = net.createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => done(port));
    });
  });
}

/**
 * Resolves once `url` answers so that `ready(response)` holds: some runtimes accept
 * connections before they can answer (wrangler's proxy before workerd, netlify dev before its
 * functions). Fails with the server's output after `timeoutMs`.
 */
export async function waitForAnswer(
  url: string,
  init: RequestInit,
  ready: (response: Response) => boolean,
  spawned: Spawned,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answered = await fetch(url, { ...init, signal: AbortSignal.timeout(5_000) }).then(
      async (response) => {
        await response.arrayBuffer();
        return ready(response);
      },
      () => false,
    );
    if (answered) return;
    if (Date.now() > deadline)
      throw new Error(`${url} did not answer as expected within ${timeoutMs} ms:\n${spawned.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
