// A throwaway PostgreSQL cluster for the DRF service's database: made with initdb in a temporary
// folder (UTF-8, locale C.UTF-8, so that upper() and lower() fold every letter, as a production
// database does), listening only on a Unix socket in that folder, and stopped by its PID. initdb
// and postgres refuse to run as root, so under root both run as PostgreSQL's own account (which
// Debian's package makes) or else `nobody`, who own the folder for that time.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The user the cluster belongs to; the service connects as it, trusted on the socket. */
const SUPERUSER = 'postgres';

/** Under root, the unprivileged account the cluster runs as; undefined when not root. */
function clusterAccount(): { uid: number; gid: number; name: string } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const id = (flag: string) => spawnSync('id', [flag, name], { encoding: 'utf8' });
    const [uid, gid] = [id('-u'), id('-g')];
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout), gid: Number(gid.stdout), name };
  }
  throw new Error('running as root, and neither a postgres nor a nobody account exists to run PostgreSQL');
}

export interface Postgres {
  /** The server's PID. */
  pid: number;
  /** A new, empty database: its URL for the service's DATABASE_URL (test/drf-service/settings.py). */
  createDatabase: (name: string) => Promise<string>;
  /** Stops the server by its PID and removes its folder. */
  stop: () => Promise<void>;
}

function run(bin: string, program: string, args: string[], account: ReturnType<typeof clusterAccount>): void {
  const result = spawnSync(path.join(bin, program), args, {
    encoding: 'utf8',
    ...(account ? { uid: account.uid, gid: account.gid } : {}),
    // The account's home (Debian's /var/lib/postgresql, or none) is never read.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C.UTF-8' },
    cwd: os.tmpdir(),
  });
  if (result.status !== 0)
    throw new Error(
      `${program} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stderr}`,
    );
}

/** Starts a cluster with the server programs in `bin`; resolves once it accepts connections. */
export async function startPostgres(bin: string): Promise<Postgres> {
  const account = clusterAccount();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'postgres-'));
  if (account) await chown(dir, account.uid, account.gid);
  const data = path.join(dir, 'data');
  let server: ChildProcess | undefined;
  const stop = async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((done) => server?.once('exit', done));
      // SIGINT is PostgreSQL's fast shutdown: it ends the sessions and stops.
      process.kill(server.pid as number, 'SIGINT');
      const timer = setTimeout(() => process.kill(-(server?.pid as number), 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    run(
      bin,
      'initdb',
      ['-D', data, '-U', SUPERUSER, '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync'],
      account,
    );
    // No TCP: the socket in the folder is the only way in, so no port can clash.
    const settings = ['listen_addresses=', `unix_socket_directories=${dir}`, 'fsync=off', 'full_page_writes=off'];
    server = spawn(path.join(bin, 'postgres'), ['-D', data, ...settings.flatMap((setting) => ['-c', setting])], {
      ...(account ? { uid: account.uid, gid: account.gid } : {}),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C.UTF-8' },
      cwd: dir,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    server.stderr?.setEncoding('utf8').on('data', (text: string) => (log += text));
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`postgres exited at its start:\n${log}`);
      const ready = spawnSync(path.join(bin, 'pg_isready'), ['-q', '-h', dir, '-U', SUPERUSER]).status === 0;
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections within 30 s:\n${log}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const url = (name: string) => `postgresql://${SUPERUSER}@/${name}?host=${encodeURIComponent(dir)}`;
  return {
    pid: server.pid as number,
    createDatabase: async (name) => {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      run(bin, 'createdb', ['-h', dir, '-U', SUPERUSER, name], undefined);
      return url(name);
    },
    stop,
  };
}
