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

/**
 * Resolves once the child has printed `text`; fails if it exits first or after `timeoutMs`. A
 * port that accepts connections may be another program's (taken between freePort() and the
 * child's own bind, which then fails): the child's own word that it listens is not.
 */
export async function waitForOutput(spawned: Spawned, text: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!spawned.output().includes(text)) {
    if (spawned.child.exitCode !== null || spawned.child.signalCode !== null)
      throw new Error(`server exited before it said "${text}":\n${spawned.output()}`);
    if (Date.now() > deadline)
      throw new Error(`server did not say "${text}" within ${timeoutMs} ms:\n${spawned.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The ports the tests' servers are started on: below the range the kernel hands out for port 0
 * and for outgoing connections (from 32768 on Linux, 49152 on macOS), in a block of each test
 * process's own (Vitest's VITEST_POOL_ID, Playwright's TEST_PARALLEL_INDEX), each handed out once.
 * A port the kernel picked could be picked again by another test process before the server that
 * was to take it had started (wrangler takes seconds), and the test would talk to that other
 * process's server.
 */
const PORTS_FROM = 20_000;
const PORTS_PER_PROCESS = 500;
const PROCESS_BLOCKS = 24;
let portsGiven = 0;

function listensOn(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = net.createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

/** A port of this process's block that is free now and that this process has not handed out before. */
export async function freePort(): Promise<number> {
  // TEST_PORT_BLOCKS_FROM shifts the blocks for runs of two checkouts side by side.
  const first = Number(process.env.TEST_PORT_BLOCKS_FROM ?? 0);
  const block = (first + Number(process.env.VITEST_POOL_ID ?? process.env.TEST_PARALLEL_INDEX ?? 0)) % PROCESS_BLOCKS;
  while (portsGiven < PORTS_PER_PROCESS) {
    const port = PORTS_FROM + block * PORTS_PER_PROCESS + portsGiven++;
    if (await listensOn(port)) return port;
  }
  throw new Error(`no free port left in ${PORTS_FROM + block * PORTS_PER_PROCESS} and the next ${PORTS_PER_PROCESS}`);
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
