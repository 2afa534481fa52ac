// `npm start`: build the source data into a folder of .preview/ (which git ignores) with links on
// the served origin, then serve it.

import { EXIT_STATUS } from './exit-status.ts';
import { runCommand } from './fail.ts';
import { openPreview } from './preview.ts';
import { runBuild } from './run-build.ts';
import { settingsOrExit } from './settings.ts';

await runCommand({ command: 'start' }, async () => {
  const settings = settingsOrExit('start');
  const preview = await openPreview(settings);
  const status = await runBuild(preview.buildOptions(settings));
  if (status !== EXIT_STATUS.done) process.exit(status);
  preview.serve();
  console.error(preview.banner);
});
