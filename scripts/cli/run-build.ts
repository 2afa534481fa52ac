// `npm run build`, `check`, `start` and `dev` run the build with progress and every data problem
// on stderr.

import { type BuildOptions, build } from '../builder/build.ts';
import { DataErrors, formatDataError } from '../builder/pipeline/errors.ts';
import { OutputError } from '../shared/write.ts';
import { LimitsError } from '../targets/limits.ts';

/** Runs the build with the CLI's settings; prints every data problem and returns false on bad input. */
export async function runBuild(settings: BuildOptions): Promise<boolean> {
  try {
    const result = await build({
      ...settings,
      log: (line) => console.error(line),
      warn: (line) => console.error(`warning: ${line}`),
    });
    const verb = settings.check ? 'checked' : `wrote ${settings.outDir}/ with`;
    console.error(
      `${verb} ${result.outputFiles} files for ${result.routes.length} routes from ${result.records} records`,
    );
    return true;
  } catch (error) {
    printBuildFailure(error, settings.outDir, settings.check ? 'nothing was written' : undefined);
    return false;
  }
}

/**
 * Prints why a build stopped: each data problem in one line, each reason a chosen target cannot
 * take the build (a host limit it is over, no code where a list needs it), or the write the file
 * system refused,
 * then `outcome`, by default that the folder being written was left as it was. Rethrows any other
 * error, which is not the build's to explain.
 */
export function printBuildFailure(error: unknown, outDir: string, outcome?: string): void {
  if (error instanceof OutputError) {
    console.error(`${error.message}; ${outcome ?? `${error.output}/ was left as it was`}.`);
    return;
  }
  if (error instanceof LimitsError) {
    // A line per reason: a host limit the target is over, or a target that runs no code where a list needs it.
    for (const line of error.lines) console.error(line);
    console.error('\nThe chosen targets cannot take this build; nothing was written.');
    return;
  }
  if (!(error instanceof DataErrors)) throw error;
  for (const problem of error.errors) console.error(formatDataError(problem));
  console.error(`\n${error.message}; ${outcome ?? `${outDir}/ was left as it was`}.`);
}
