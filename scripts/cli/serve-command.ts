// `npm run serve`: serve an already built output folder (default public/) like the DRF service.

import { serveUntilStopped } from '../respond/node-server.ts';
import { runCommand } from './fail.ts';
import { settingsOrExit } from './settings.ts';

await runCommand(async () => {
  const settings = settingsOrExit('serve');
  await serveUntilStopped(settings.outDir, settings.host, settings.port);
});
