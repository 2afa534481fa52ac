// `npm start`: build data/ into public/ with links on the served origin, then serve it.

import { runBuild } from './run-build.ts';
import { originHost, serveUntilStopped } from '../respond/node-server.ts';
import { settingsOrExit } from './settings.ts';

const settings = settingsOrExit();
// Absolute links must name the origin clients reach, which only the host and port tell here.
const baseUrl = settings.baseUrlGiven ? settings.baseUrl : `http://${originHost(settings.host)}:${settings.port}`;
if (!(await runBuild({ ...settings, baseUrl, check: false }))) process.exit(1);
await serveUntilStopped(settings.outDir, settings.host, settings.port);
