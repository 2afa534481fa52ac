// `npm run build` and `npm run check` (the same with --check): validate data/, then write
// public/ and targets/ unless checking.

import { runBuild } from './run-build.ts';
import { settingsOrExit } from './settings.ts';

process.exitCode = (await runBuild(settingsOrExit(process.argv.includes('--check') ? 'check' : 'build'))) ? 0 : 1;
