// `npm run build` and `npm run check` (the same with --check): validate data/, then write
// public/ and targets/ unless checking.

import { EDITOR_SETTINGS } from '../builder/build.ts';
import { runCommand } from './fail.ts';
import { runBuild } from './run-build.ts';
import { DEFAULTS, settingsOrExit } from './settings.ts';

const checking = process.argv.includes('--check');

await runCommand({ command: checking ? 'check' : 'build' }, async () => {
  if (checking) {
    // Nothing is written: the folders are the defaults, named only by the messages.
    const settings = settingsOrExit('check');
    process.exitCode = await runBuild({ ...settings, outDir: DEFAULTS.outDir, targetsDir: DEFAULTS.targetsDir });
    return;
  }
  const settings = settingsOrExit('build');
  // The editor's mapping names the schemas in their place in the project: kept only when they go there.
  const editorSettings = settings.schemasDir === DEFAULTS.schemasDir ? EDITOR_SETTINGS : undefined;
  process.exitCode = await runBuild({ ...settings, editorSettings });
});
