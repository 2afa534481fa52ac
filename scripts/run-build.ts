// Runs the build for a command line: progress and every data problem on stderr.

import { build } from './pipeline/build.ts';
import { DataErrors, formatDataError } from './pipeline/errors.ts';
import type { readSettings } from './settings.ts';

/** Runs the build with the CLI's settings; prints every data problem and returns false on bad input. */
export async function runBuild(settings: ReturnType<typeof readSettings>): Promise<boolean> {
  try {
    const result = await build({ ...settings, log: (line) => console.error(line) });
    const verb = settings.check ? 'checked' : `wrote ${settings.outDir}/ with`;
    console.error(`${verb} ${result.files.size} files for ${result.routes.length} routes from ${result.records} records`);
    return true;
  } catch (error) {
    if (!(error instanceof DataErrors)) throw error;
    for (const problem of error.errors) console.error(formatDataError(problem));
    console.error(`\n${error.message}; ${settings.check ? 'nothing was written' : `${settings.outDir}/ was left as it was`}.`);
    return false;
  }
}
