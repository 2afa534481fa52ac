// `npm start`: build the source data into a folder of .preview/ (which git ignores) with links on
// the served origin, then serve it.

import { runCommand } from './fail.ts';
import { openPreview } from './preview.ts';
import { runBuild } from './run-build.ts';
import { settingsOrExit } from './settings.ts';

await runCommand(async () => {
  const settings = settingsOrExit('start');
  const preview = await openPreview(settings);
  if (!(await runBuild(preview.buildOptions(settings)))) process.exit(1);
  preview.serve();
  console.error(preview.banner);
});
