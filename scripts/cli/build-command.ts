// `npm run build` (and `npm run check`): validate data/ and write public/ and targets/.

import { runBuild } from './run-build.ts';
import { settingsOrExit } from './settings.ts';

process.exitCode = (await runBuild(settingsOrExit())) ? 0 : 1;
