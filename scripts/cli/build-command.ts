// `npm run build` and `npm run check` (the same with --check): validate data/, then write
// public/ and targets/ unless checking.

import { runCommand } from './fail.ts';
import { runBuild } from './run-build.ts';
import { settingsOrExit } from './settings.ts';

await runCommand({ command: process.argv.includes('--check') ? 'check' : 'build' }, async () => {
  const settings = settingsOrExit(process.argv.includes('--check') ? 'check' : 'build');
  process.exitCode = await runBuild(settings);
});
