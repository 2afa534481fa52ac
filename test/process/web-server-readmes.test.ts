// The command each web server's README gives for this machine, run as written by an unprivileged
// user (nobody, when the tests run as root) on what a fresh clone of a project holds: the sample
// built into public/ and targets/<server>/ (no precompressed sibling, which git does not keep),
// only the example's port 8080 swapped for a free one. It serves
// the API with no other edit, writes nothing to the HOME and XDG folders it was given (all of
// them in the test's folder), and Caddy's default address is plain HTTP: no certificate, no
// change to the machine's trust store.

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_PORT } from '../../scripts/targets/web-servers/local-run.ts';
import { Answer } from '../e2e/lib/http.ts';
import { sendRaw } from '../e2e/lib/raw-http.ts';
import { freePort, type Spawned, waitForPort } from '../e2e/targets/process.ts';
import { type LocalServer, startFromReadme } from '../e2e/targets/readme-command.ts';
import { findProgram } from '../installed.ts';
import { builtSample } from '../unit/helpers/sample-output.ts';
import { installedWebServers } from '../unit/helpers/web-servers.ts';

/** How each README names its program, and the file and text that hold the example's address. */
const SERVERS: Record<LocalServer, { named: string; names: string[]; file: string; address: string }> = {
  nginx: { named: '/usr/sbin/nginx', names: ['nginx'], file: 'nginx.conf', address: `127.0.0.1:${LOCAL_PORT}` },
  caddy: { named: 'caddy run', names: ['caddy'], file: 'api.caddyfile', address: `http://localhost:${LOCAL_PORT}` },
  apache: {
    named: '/usr/sbin/apache2',
    names: ['apache2', 'httpd'],
    file: 'httpd.conf',
    address: `127.0.0.1:${LOCAL_PORT}`,
  },
};

const installed = installedWebServers("the README's command for this machine").map(
  (server) => server.name as LocalServer,
);

describe.each(installed)("%s: the README's command for this machine", (server) => {
  const { named, names, file, address } = SERVERS[server];
  let dir: string;
  let workDir: string;
  let child: Spawned;
  let origin: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), `readme-${server}-`));
    const publicDir = path.join(dir, 'public');
    const targetsDir = path.join(dir, 'targets');
    await builtSample(dir, { targets: [server], precompress: false });
    workDir = path.join(dir, 'clone');
    await mkdir(workDir);
    const port = await freePort();
    const served = address.replace(String(LOCAL_PORT), String(port));
    origin = served.startsWith('http://') ? served : `http://${served}`;
    child = await startFromReadme({
      server,
      publicDir,
      targetsDir,
      workDir,
      program: { named, found: named.replace(/^\S*?(?=\s|$)/, findProgram(names) as string) },
      edits: [{ file, from: address, to: served }],
    });
    await waitForPort(port, child);
  }, 60_000);

  afterAll(async () => {
    await child?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('serves the API over plain HTTP', async () => {
    const answer = await sendRaw(origin, { method: 'GET', target: '/company/', headers: [] });
    expect(answer, child.output()).toBeInstanceOf(Answer);
    expect((answer as Answer).status, child.output()).toBe(200);
    const built = await readFile(path.join(dir, 'public/company/index.json'));
    expect((answer as Answer).body.equals(built)).toBe(true);
  });

  it('writes nothing to the HOME and XDG folders it was given', async () => {
    expect(await readdir(path.join(workDir, 'home'))).toEqual([]);
  });

  it.runIf(server === 'caddy')('makes no certificate authority and installs no root certificate', () => {
    expect(child.output()).toContain('server running');
    // What Caddy logs when its automatic HTTPS starts for localhost (run as root, it installs).
    expect(child.output()).not.toMatch(/automatic HTTP|"logger":"pki|root certificate|certificate installed/);
    expect(existsSync(path.join(workDir, '.caddy/caddy/pki'))).toBe(false);
  });
});
