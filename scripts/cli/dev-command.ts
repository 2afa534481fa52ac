// `npm run dev`: a live preview. Builds and serves like `npm start`, then rebuilds on every change
// of the data, the headers file or the settings file; each build is swapped in whole
// (build/write.ts), and a change with problems prints them as the build does while the last good
// build stays served.

import { build } from '../builder/build.ts';
import { runCommand, userMessage } from './fail.ts';
import { openPreview, type Preview } from './preview.ts';
import { printBuildFailure, runBuild } from './run-build.ts';
import { readSettings, settingsOrExit, UsageError } from './settings.ts';
import { type Changes, watchChanges } from './watch-changes.ts';

/** `data/company/companies.json changed`, `3 changes: data/a.json, data/b.json and _headers`. */
function describeChanges(paths: readonly string[]): string {
  if (paths.length === 1) return `${paths[0]} changed`;
  const named = paths.length > 3 ? [...paths.slice(0, 2), `${paths.length - 2} more`] : paths;
  return `${paths.length} changes: ${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
}

/** Builds with the settings as they are now, from `changes`; prints the outcome in one line, or the problems. */
async function rebuild(preview: Preview, changes: Changes, served: boolean): Promise<boolean> {
  const outcome = served ? 'the last good build is still served' : 'nothing is served yet';
  try {
    const settings = readSettings(process.argv.slice(2), process.env, 'dev');
    await build(preview.buildOptions(settings));
  } catch (error) {
    // The settings file and the headers file may be mid-edit, or gone for a moment: not fatal here.
    const line = error instanceof UsageError ? error.message : userMessage(error);
    if (line !== undefined) console.error(`${line}; ${outcome}.`);
    else printBuildFailure(error, preview.outDir, outcome);
    return false;
  }
  console.error(
    `rebuilt in ${Math.round(performance.now() - changes.firstSeenAt)} ms: ${describeChanges(changes.paths)}`,
  );
  return true;
}

await runCommand(async () => {
  const settings = settingsOrExit('dev');
  const preview = await openPreview(settings);
  const watched = [settings.dataDir, settings.headersPath, settings.configPath];
  let served = false;
  let firstBuild: Promise<boolean> | undefined;
  // Watching from before the first build, so that no save is missed; each rebuild waits for it.
  await watchChanges(watched, async (changes) => {
    await firstBuild;
    if (!(await rebuild(preview, changes, served))) return;
    preview.serve();
    served = true;
  });
  firstBuild = runBuild(preview.buildOptions(settings));
  served = await firstBuild;
  if (served) preview.serve();
  else console.error('Nothing is served until the problems are fixed: every request gets a 503 meanwhile.');
  console.error(preview.banner);
  console.error(
    `Watching ${settings.dataDir}/, ${settings.headersPath} and ${settings.configPath}: a change rebuilds ${preview.outDir}/`,
  );
});
