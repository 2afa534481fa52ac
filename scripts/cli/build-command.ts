// `npm run build` and `npm run check` (the same with --check): validate data/, then write
// public/ and targets/ unless checking.

import { EXIT_STATUS } from './exit-status.ts';
import { runCommand } from './fail.ts';
import { runBuild } from './run-build.ts';
import { settingsOrExit } from './settings.ts';

await runCommand(async () => {
  const settings = settingsOrExit(process.argv.includes('--check') ? 'check' : 'build');
  process.exitCode = (await runBuild(settings)) ? EXIT_STATUS.done : EXIT_STATUS.failed;
});
