// Apache httpd (Debian's apache2, or httpd elsewhere), started with the command of
// targets/apache/README.md on the httpd.conf the build wrote around api.conf, its Listen and
// <VirtualHost> on the test's port. Every path Apache writes (pid, lock, error log) is in workDir.

import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { LOCAL_PORT } from '../../../scripts/targets/web-servers/local-run.ts';
import { waitForPort } from './process.ts';
import { startFromReadme } from './readme-command.ts';
import { serverBinary } from './server-binary.ts';
import type { ProgramNeed, Target } from './target.ts';

const NEEDS: ProgramNeed = { what: 'Apache httpd', names: ['apache2', 'httpd'] };

/**
 * Apache gives a file changed within the last second a weak ETag (W/"…"), and a strong one a
 * moment later, so a GET and a HEAD right after the build would differ. A deployed site's files
 * are older than that: wait until the newest file of the fresh build is.
 */
async function waitUntilSettled(dir: string): Promise<void> {
  const entries = await readdir(dir, { recursive: true });
  const times = await Promise.all(entries.map(async (entry) => (await stat(path.join(dir, entry))).mtimeMs));
  const wait = Math.max(0, ...times) + 1_100 - Date.now();
  if (wait > 0) await new Promise((done) => setTimeout(done, wait));
}

export const apache: Target = {
  name: 'apache',
  needs: NEEDS,
  async start({ publicDir, targetsDir, port, workDir }) {
    await waitUntilSettled(publicDir);
    const child = await startFromReadme({
      server: 'apache',
      publicDir,
      targetsDir,
      workDir,
      program: { named: '/usr/sbin/apache2', found: serverBinary(NEEDS.names) },
      edits: [{ file: 'httpd.conf', from: `127.0.0.1:${LOCAL_PORT}`, to: `127.0.0.1:${port}` }],
    });
    await waitForPort(port, child);
    return { origin: `http://127.0.0.1:${port}`, stop: child.stop };
  },
};
