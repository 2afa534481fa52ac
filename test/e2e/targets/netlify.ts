// Netlify, run by `netlify dev --offline` (netlify-cli 26.2.0, installed apart by
// `npm run setup:targets`) on a folder assembled as the deploy recipe of
// targets/netlify/README.md says: netlify.toml, a copy of the build output as public/ with the
// target's _redirects, and the two functions. netlify dev runs Netlify's redirect engine and the functions as Netlify would; its
// static server is its own (express), so headers and methods on files are not production's.
// What it answers differently is in ../expectations.ts.

import { cp, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { freePort, REPO_ROOT, spawnProcess, waitForAnswer, waitForOutput } from './process.ts';
import { serverBinary } from './server-binary.ts';
import type { ProgramNeed, Target } from './target.ts';

const NEEDS: ProgramNeed = {
  what: 'netlify-cli',
  names: [path.join(REPO_ROOT, 'node_modules/.cache/netlify-cli/node_modules/.bin/netlify')],
};

/** It loads the functions after the port opens; about 5 s here, more on a cold cache. */
const READY_TIMEOUT_MS = 240_000;

/**
 * Off the network and out of $HOME: no telemetry or update check, its config (and .netlify/)
 * in the work folder, no browser. Edge functions stay off: without the hidden flag the first
 * request downloads Deno from edge.netlify.com and the CLI exits when that fails.
 */
function offlineEnv(workDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOME: workDir,
    XDG_CONFIG_HOME: path.join(workDir, '.config'),
    NETLIFY_TELEMETRY_DISABLED: '1',
    BROWSER: 'none',
    CI: 'true',
    FORCE_COLOR: '0',
  };
}

export const netlify: Target = {
  name: 'netlify',
  needs: NEEDS,
  async start({ publicDir, targetsDir, port, workDir }) {
    const binary = serverBinary(NEEDS.names);
    const site = path.join(workDir, 'site');
    await mkdir(site);
    await cp(publicDir, path.join(site, 'public'), { recursive: true });
    await cp(path.join(targetsDir, 'netlify', '_redirects'), path.join(site, 'public', '_redirects'));
    await cp(path.join(targetsDir, 'netlify', 'netlify.toml'), path.join(site, 'netlify.toml'));
    await cp(path.join(targetsDir, 'netlify', 'netlify'), path.join(site, 'netlify'), { recursive: true });
    const functionsPort = await freePort();
    // The static server's port is otherwise always 3999, which two targets at once would share.
    const staticPort = await freePort();
    const child = spawnProcess(
      binary,
      [
        'dev',
        '--offline',
        '--internal-disable-edge-functions',
        '--dir',
        'public',
        '--port',
        String(port),
        '--functions-port',
        String(functionsPort),
        '--staticServerPort',
        String(staticPort),
        '--no-open',
        '--skip-gitignore',
      ],
      { cwd: site, env: offlineEnv(workDir) },
    );
    const origin = `http://127.0.0.1:${port}`;
    try {
      // Its banner, printed once its proxy listens on the port: an open port alone may be another
      // program's, taken between freePort() and netlify dev's bind (netlify dev then exits with
      // "Could not acquire required 'port'"), and that program's answers would pass for
      // Netlify's, a text/html 404 for /_reference/ among them.
      await waitForOutput(child, `Local dev server ready: http://localhost:${port}`, READY_TIMEOUT_MS);
      // The proxy listens before the functions are loaded: wait until one answers.
      const functionAnswers = (response: Response) =>
        response.status === 200 && response.headers.get('content-type') === 'application/json';
      await waitForAnswer(`${origin}/company/`, { method: 'OPTIONS' }, functionAnswers, child, READY_TIMEOUT_MS);
    } catch (error) {
      await child.stop();
      throw error;
    }
    return { origin, stop: child.stop };
  },
};
