// Apache httpd (Debian's apache2, or httpd elsewhere), started in the foreground (-DFOREGROUND)
// from a server config in the work folder: its own ServerRoot, pid file, runtime dir and loopback
// Listen, the modules the built config needs, and one <VirtualHost> that includes
// targets/apache/api.conf after defining API_ROOT, exactly as its README tells a user to.

import { existsSync } from 'node:fs';
import { chmod, copyFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnProcess, waitForPort } from './process.ts';
import { serverBinary } from './server-binary.ts';
import type { ProgramNeed, Target } from './target.ts';

const NEEDS: ProgramNeed = { what: 'Apache httpd', names: ['apache2', 'httpd'] };

/**
 * Modules the built api.conf uses, plus an MPM, authz_core for `Require` and unixd for `User`.
 * Each is loaded when it is a shared object; otherwise it is built in (Debian builds in unixd).
 */
const MODULES = ['mpm_event', 'unixd', 'authz_core', 'mime', 'headers', 'rewrite'];

/**
 * Where the modules of the httpd at `binary` are: Debian's, then Fedora's and Arch's, Alpine's,
 * then beside a prefix install (Homebrew: <prefix>/bin/httpd, <prefix>/lib/httpd/modules) and
 * macOS's own (/usr/sbin/httpd, /usr/libexec/apache2). Only Debian's is tested.
 */
function modulesDir(binary: string): string {
  const prefix = path.dirname(path.dirname(binary));
  const candidates = [
    '/usr/lib/apache2/modules',
    '/usr/lib64/httpd/modules',
    '/usr/lib/httpd/modules',
    '/usr/lib/apache2',
    path.join(prefix, 'lib/httpd/modules'),
    path.join(prefix, 'libexec/apache2'),
    path.join(prefix, 'modules'),
  ];
  const found = candidates.find((dir) => existsSync(path.join(dir, 'mod_rewrite.so')));
  if (found === undefined) throw new Error(`${binary}: no mod_rewrite.so in ${candidates.join(', ')}`);
  return found;
}

function loadModules(moduleDir: string): string {
  const file = (name: string) => path.join(moduleDir, `mod_${name}.so`);
  return MODULES.filter((name) => existsSync(file(name)))
    .map((name) => `LoadModule ${name}_module ${file(name)}`)
    .join('\n');
}

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

function httpdConf(workDir: string, publicDir: string, port: number, moduleDir: string): string {
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
${loadModules(moduleDir)}
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
  needs: NEEDS,
  async start({ publicDir, targetsDir, port, workDir }) {
    const binary = serverBinary(NEEDS.names);
    if (process.getuid?.() === 0) {
      // The children run as nobody: the fixture's private temp folder must let them through
      // (search only, no listing) to the world-readable build output.
      await chmod(path.dirname(publicDir), 0o711);
    }
    await copyFile(path.join(targetsDir, 'apache', 'api.conf'), path.join(workDir, 'api.conf'));
    const conf = path.join(workDir, 'httpd.conf');
    await writeFile(conf, httpdConf(workDir, publicDir, port, modulesDir(binary)));
    await waitUntilSettled(publicDir);
    const child = spawnProcess(binary, ['-f', conf, '-DFOREGROUND']);
    await waitForPort(port, child);
    return { origin: `http://127.0.0.1:${port}`, stop: child.stop };
  },
};
