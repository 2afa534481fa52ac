// Debian's Caddy, run in the foreground on the Caddyfile the build wrote (targets/caddy/Caddyfile),
// after global options a test run needs: no admin endpoint and no automatic HTTPS (both would
// listen or reach out beyond the test's one loopback port). The site's root and address come
// from the environment variables the Caddyfile documents; Caddy's own state (autosave, certs)
// goes to the work folder through the XDG variables.

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnProcess, waitForPort } from './process.ts';
import { serverBinary } from './server-binary.ts';
import type { ProgramNeed, Target } from './target.ts';

const NEEDS: ProgramNeed = { what: 'Caddy', names: ['caddy'] };

const GLOBAL_OPTIONS = `# Written by test/e2e/targets/caddy.ts for one test run: global options, then the built Caddyfile.
{
\tadmin off
\tauto_https off
}
`;

export const caddy: Target = {
  name: 'caddy',
  needs: NEEDS,
  async start({ publicDir, targetsDir, port, workDir }) {
    const binary = serverBinary(NEEDS.names);
    const built = await readFile(path.join(targetsDir, 'caddy', 'Caddyfile'), 'utf8');
    const config = path.join(workDir, 'Caddyfile');
    await writeFile(config, `${GLOBAL_OPTIONS}\n${built}`);
    const env = {
      ...process.env,
      API_ROOT: publicDir,
      API_ADDRESS: `http://127.0.0.1:${port}`,
      XDG_CONFIG_HOME: path.join(workDir, 'config'),
      XDG_DATA_HOME: path.join(workDir, 'data'),
      HOME: workDir,
    };
    const child = spawnProcess(binary, ['run', '--config', config, '--adapter', 'caddyfile'], { env, cwd: workDir });
    await waitForPort(port, child);
    return { origin: `http://127.0.0.1:${port}`, stop: child.stop };
  },
};
