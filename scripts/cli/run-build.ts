// `npm run build`, `check`, `start` and `dev` run the build with progress and every data problem
// on stderr.

import { type BuildOptions, build } from '../builder/build.ts';
import { EXIT_STATUS } from './exit-status.ts';
import { reportFailure } from './fail.ts';

/** Runs the build with the CLI's settings; prints every problem (fail.ts) and returns the exit status. */
export async function runBuild(settings: BuildOptions): Promise<number> {
  try {
    const result = await build(settings, {
      log: (line) => console.error(line),
      warn: (line) => console.error(`warning: ${line}`),
    });
    const verb = settings.check ? 'checked' : `wrote ${settings.outDir}/ with`;
    console.error(
      `${verb} ${result.outputFiles} files for ${result.routes.length} routes from ${result.records} records`,
    );
    return EXIT_STATUS.done;
  } catch (error) {
    return reportFailure(error, {
      left: settings.check ? 'nothing was written' : `${settings.outDir}/ was left as it was`,
    });
  }
}
