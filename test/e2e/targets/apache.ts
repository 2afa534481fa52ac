// Debian's Apache httpd, started in the foreground (-DFOREGROUND) from a server config in the
// work folder: its own ServerRoot, pid file, runtime dir and loopback Listen, the modules the
// built config needs, and one <VirtualHost> that includes targets/apache/api.conf after defining
// API_ROOT, exactly as its README tells a user to.

import { chmod, copyFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnProcess, waitForPort } from './process.ts';
import { serverBinary } from './server-binary.ts';
import type { Target } from './target.ts';

const MODULES_DIR = '/usr/lib/apache2/modules';
/** Modules the built api.conf uses, plus an MPM and authz_core for `Require`. */
const MODULES = ['mpm_event', 'authz_core', 'mime', 'headers', 'rewrite'];

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

function httpdConf(workDir: string, publicDir: string, port: number): string {
  const asRoot = process.getuid?.() === 0;
  return `# Written by test/e2e/targets/apache.ts for one test run.
ServerRoot ${workDir}
DefaultRuntimeDir ${workDir}
PidFile ${path.join(workDir, 'httpd.pid')}
Mutex file:${workDir}
# A file: Apache cannot open /dev/stderr when it is the pipe of a child process (ENXIO).
ErrorLog ${path.join(workDir, 'error.log')}
LogLevel warn
Listen 127.0.0.1:${port}
ServerName 127.0.0.1
${asRoot ? '# Started as root, the children run as nobody (Apache refuses to serve as root).\nUser #65534\nGroup #65534' : ''}
${MODULES.map((name) => `LoadModule ${name}_module ${MODULES_DIR}/mod_${name}.so`).join('\n')}
# No mime.types lookup in ServerRoot: the built config sets the type of every answer.
TypesConfig /dev/null

<VirtualHost 127.0.0.1:${port}>
    Define API_ROOT ${publicDir}
    Include ${path.join(workDir, 'api.conf')}
</VirtualHost>
`;
}

export const apache: Target = {
  name: 'apache',
  async start({ publicDir, targetsDir, port, workDir }) {
    const binary = await serverBinary('apache2');
    if (process.getuid?.() === 0) {
      // The children run as nobody: the fixture's private temp folder must let them through
      // (search only, no listing) to the world-readable build output.
      await chmod(path.dirname(publicDir), 0o711);
    }
    await copyFile(path.join(targetsDir, 'apache', 'api.conf'), path.join(workDir, 'api.conf'));
    const conf = path.join(workDir, 'httpd.conf');
    await writeFile(conf, httpdConf(workDir, publicDir, port));
    await waitUntilSettled(publicDir);
    const child = spawnProcess(binary, ['-f', conf, '-DFOREGROUND']);
    await waitForPort(port, child);
    return { origin: `http://127.0.0.1:${port}`, stop: child.stop };
  },
};
