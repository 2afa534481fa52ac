// The servers the unit tests run the built output on: nginx, Caddy and Apache where installed
// (a missing one is reported in one line, or fails the run under CI=true), and the local server
// in the test's own process, since a child would inherit vitest's BASE_URL.

import { createApiServer, listen } from '../../../scripts/respond/node-server.ts';
import { apache } from '../../e2e/targets/apache.ts';
import { caddy } from '../../e2e/targets/caddy.ts';
import { nginx } from '../../e2e/targets/nginx.ts';
import type { Target } from '../../e2e/targets/target.ts';
import { findProgram, reportMissing } from '../../installed.ts';

/** nginx, Caddy and Apache, those installed; `purpose` names what a missing one leaves untested. */
export function installedWebServers(purpose: string): Target[] {
  const servers = [nginx, caddy, apache];
  const installed = servers.filter((server) => findProgram(server.needs?.names ?? []) !== undefined);
  for (const server of servers) {
    if (!installed.includes(server)) reportMissing(server.needs?.what ?? server.name, `${purpose} on ${server.name}`);
  }
  return installed;
}

export const localInProcess: Target = {
  name: 'local',
  async start({ publicDir }) {
    const server = createApiServer(publicDir);
    const origin = await listen(server, '127.0.0.1', 0);
    return { origin, stop: () => new Promise((done) => server.close(() => done())) };
  },
};
