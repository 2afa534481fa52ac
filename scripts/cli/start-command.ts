// `npm start`: build data/ into public/ with links on the served origin, then serve it.

import { serveUntilStopped } from '../respond/node-server.ts';
import { runCommand } from './fail.ts';
import { runBuild } from './run-build.ts';
import { settingsOrExit } from './settings.ts';

/** The host name of the page links: `localhost` for a loopback or wildcard address, as the committed public/ has. */
function linkHost(host: string): string {
  if (['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost'].includes(host)) return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

await runCommand(async () => {
  const settings = settingsOrExit('start');
  // Absolute links must name the origin clients reach, which only the host and port tell here.
  const baseUrl = settings.baseUrlGiven ? settings.baseUrl : `http://${linkHost(settings.host)}:${settings.port}`;
  if (!(await runBuild({ ...settings, baseUrl, check: false }))) process.exit(1);
  await serveUntilStopped(settings.outDir, settings.host, settings.port);
});
