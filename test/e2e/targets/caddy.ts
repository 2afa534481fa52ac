// Debian's Caddy, started with the command of targets/caddy/README.md on the Caddyfile the build
// wrote, the site's address (API_ADDRESS) the test's port. The command keeps Caddy's state (its
// autosaved config) in the work folder, and the Caddyfile runs no admin endpoint.

import { waitForPort } from './process.ts';
import { startFromReadme } from './readme-command.ts';
import { serverBinary } from './server-binary.ts';
import type { ProgramNeed, Target } from './target.ts';

const NEEDS: ProgramNeed = { what: 'Caddy', names: ['caddy'] };

export const caddy: Target = {
  name: 'caddy',
  needs: NEEDS,
  async start({ publicDir, targetsDir, port, workDir }) {
    const child = await startFromReadme({
      server: 'caddy',
      publicDir,
      targetsDir,
      workDir,
      program: { named: 'caddy run', found: `${serverBinary(NEEDS.names)} run` },
      edits: [],
      env: { API_ADDRESS: `http://127.0.0.1:${port}` },
    });
    await waitForPort(port, child);
    return { origin: `http://127.0.0.1:${port}`, stop: child.stop };
  },
};
