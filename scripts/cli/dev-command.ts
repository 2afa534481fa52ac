// `npm run dev`: a live preview. Builds and serves like `npm start`, then keeps the catalogue in
// memory and, on each change of the data, rewrites in place only the files whose bytes the change
// altered (builder/preview/live-build.ts); a change of the headers file or of the settings file renders
// everything again, and swaps the output in whole. A change with problems prints them as the
// build does, and the last good output stays served.

import path from 'node:path';
import { stageLogger } from '../builder/build.ts';
import { formatDataError } from '../builder/pipeline/errors.ts';
import { LiveBuild } from '../builder/preview/live-build.ts';
import { type Failure, failureOf, failureText, runCommand, type Stop } from './fail.ts';
import { openPreview, type Preview } from './preview.ts';
import { readSettings, type Settings, settingsOrExit } from './settings.ts';
import { type Changes, watchChanges } from './watch-changes.ts';

/**
 * How long a rebuild lets the server finish sending answers before it makes the files that no
 * preview request reads: a client asking for the changed answers gets them meanwhile, and one
 * that keeps asking does not hold the rebuild back for longer.
 */
const ANSWERS_FIRST_MS = 1000;

/** `data/company/companies.json changed`, `3 changes: data/a.json, data/b.json and _headers`. */
function describeChanges(paths: readonly string[]): string {
  if (paths.length === 1) return `${paths[0]} changed`;
  const named = paths.length > 3 ? [...paths.slice(0, 2), `${paths.length - 2} more`] : paths;
  return `${paths.length} changes: ${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
}

/** Whether every one of `paths` is inside the data folder: then the settings and the headers are as they were. */
function onlyData(paths: readonly string[], settings: Settings<'dev'>): boolean {
  const dataDir = path.resolve(settings.dataDir);
  const others = [settings.headersPath, settings.configPath].map((file) => path.resolve(file));
  return paths.every((named) => {
    const file = path.resolve(named);
    return !others.includes(file) && (file === dataDir || file.startsWith(`${dataDir}${path.sep}`));
  });
}

/**
 * Says why a build or a rebuild failed (fail.ts), when it is of one of `kinds`; any other failure
 * is thrown, and ends the command.
 */
function sayFailure(error: unknown, stop: Stop, kinds: readonly Failure['kind'][]): void {
  const failure = failureOf(error, { command: 'dev', ...stop });
  if (!kinds.includes(failure.kind)) throw error;
  console.error(failureText(error, failure));
}

/** The first build, a full one, printed as `npm run build` prints it; false when the data has problems. */
async function firstBuild(preview: Preview, settings: Settings<'dev'>): Promise<{ live: LiveBuild; served: boolean }> {
  const step = stageLogger((line) => console.error(line));
  const live = await LiveBuild.open(preview.buildOptions(settings));
  const { records, sourceFiles, sourceBytes } = live.sources.counts;
  for (const warning of live.sources.warnings) console.error(`warning: ${formatDataError(warning)}`);
  step(`load: ${records} records from ${sourceFiles} files, ${sourceBytes} bytes`);
  try {
    const published = await live.publish(step);
    console.error(
      `wrote ${preview.outDir}/ with ${published.outputFiles} files for ${published.routes} routes from ${published.records} records`,
    );
    return { live, served: true };
  } catch (error) {
    sayFailure(error, { left: `${preview.outDir}/ was left as it was` }, ['build']);
    return { live, served: false };
  }
}

await runCommand({ command: 'dev' }, async () => {
  let settings = settingsOrExit('dev');
  const preview = await openPreview(settings);
  const watched = [settings.dataDir, settings.headersPath, settings.configPath];
  let served = false;
  let live: LiveBuild | undefined;
  let started: Promise<unknown> | undefined;

  /** Shows `changes`, or prints the problems: resolves to whether it built everything again or the data only, or false. */
  const rebuild = async (changes: Changes): Promise<'full' | 'data' | false> => {
    const outcome = served ? 'the last good build is still served' : 'nothing is served yet';
    const full = live === undefined || !onlyData(changes.paths, settings);
    try {
      let current = live;
      if (current !== undefined && !full) await current.reload(changes.paths);
      else {
        settings = readSettings(process.argv.slice(2), process.env, 'dev');
        current = await LiveBuild.open(preview.buildOptions(settings), live?.sources, changes.paths);
        live = current;
      }
      await current.publish(undefined, () => preview.idle(ANSWERS_FIRST_MS));
    } catch (error) {
      // The settings file and the headers file may be mid-edit, or gone for a moment: not fatal here.
      sayFailure(error, { left: outcome, goesOn: true }, ['usage', 'refused', 'build', 'environment']);
      return false;
    }
    return full ? 'full' : 'data';
  };

  // Watching from before the first build, so that no save is missed; each rebuild waits for it.
  await watchChanges(watched, async (changes) => {
    await started;
    const rebuilt = await rebuild(changes);
    if (!rebuilt) return;
    // A full build may be of other settings: the server reads the lists' filters, search and orderings again.
    preview.serve(rebuilt === 'full');
    served = true;
    console.error(
      `rebuilt in ${Math.round(performance.now() - changes.firstSeenAt)} ms: ${describeChanges(changes.paths)}`,
    );
  });
  const first = firstBuild(preview, settings);
  started = first;
  ({ live, served } = await first);
  if (served) preview.serve();
  else {
    preview.failed();
    console.error('Nothing is served until the problems are fixed: every request gets a 503 meanwhile.');
  }
  console.error(preview.banner);
  console.error(
    `Watching ${settings.dataDir}/, ${settings.headersPath} and ${settings.configPath}: a change rebuilds ${preview.outDir}/`,
  );
});
