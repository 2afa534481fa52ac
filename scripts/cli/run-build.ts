// `npm run build`, `check` and `start`: the build, then the deploy targets' files, then the
// writes; progress and every data problem on stderr.

import path from 'node:path';
import { readCatalogue } from '../build/catalogue.ts';
import { DataErrors, formatDataError } from '../build/errors.ts';
import { render } from '../build/render.ts';
import { writeOutput } from '../build/write.ts';
import type { Route } from '../contract/routes.ts';
import { TARGETS } from '../targets/index.ts';

export interface BuildOptions {
  dataDir: string;
  outDir: string;
  /** The project's `_headers`, copied into the output. */
  headersPath: string;
  baseUrl: string;
  pageSize: number;
  /** Where the deploy targets' files go, one folder per target (targets/<name>/). */
  targetsDir: string;
  /** Deploy targets to write files for; all of them when absent. */
  targets?: readonly string[];
  /** Validate and render only; write nothing. */
  check?: boolean;
  /** Receives one line per finished stage, for progress on long builds. */
  log?: (line: string) => void;
}

export interface BuildResult {
  routes: Route[];
  records: number;
  sourceFiles: number;
  sourceBytes: number;
  /** How many files the output folder holds (or, with `check`, would hold). */
  outputFiles: number;
}

/** Times the stages: each call logs the line with the time since the previous call. */
function stageLogger(log: (line: string) => void): (line: string) => void {
  let started = performance.now();
  return (line) => {
    const now = performance.now();
    log(`${line} (${Math.round(now - started)} ms)`);
    started = now;
  };
}

/** Builds and writes the output and the selected targets' files; throws DataErrors on bad input. */
export async function build(options: BuildOptions): Promise<BuildResult> {
  const step = stageLogger(options.log ?? (() => {}));
  const { catalogue, routes, headerRules, headersText, ...source } = await readCatalogue(options, step);
  const context = { routes, headerRules };
  const selected = TARGETS.filter((target) => !options.targets || options.targets.includes(target.name));
  // Asked first: esbuild bundles in a process of its own while this one renders.
  const targetFiles = Promise.all(selected.map((target) => target.files(context)));
  // Awaited below; when rendering fails, that is the error to report.
  targetFiles.catch(() => {});
  const files = render(catalogue, routes, headersText, options);
  // Every target's files inside the output, whichever are selected: public/ never depends on --target.
  for (const target of TARGETS) for (const [file, text] of target.siteFiles?.(context) ?? []) files.set(file, text);
  step(`render: ${routes.length} routes, ${files.size} files`);
  const made = await targetFiles;
  const targetFileCount = made.reduce((sum, filesOfTarget) => sum + filesOfTarget.size, 0);
  step(`targets: ${targetFileCount} files for ${selected.map((target) => target.name).join(', ')}`);
  const result = { routes, ...source, outputFiles: files.size };
  if (options.check) return result;
  await writeOutput(options.outDir, files);
  for (const [index, target] of selected.entries()) {
    await writeOutput(path.join(options.targetsDir, target.name), made[index] as Map<string, string>);
  }
  step(`write: ${files.size + targetFileCount} files into ${options.outDir}/ and ${options.targetsDir}/`);
  return result;
}

/** Runs the build with the CLI's settings; prints every data problem and returns false on bad input. */
export async function runBuild(settings: BuildOptions): Promise<boolean> {
  try {
    const result = await build({ ...settings, log: (line) => console.error(line) });
    const verb = settings.check ? 'checked' : `wrote ${settings.outDir}/ with`;
    console.error(
      `${verb} ${result.outputFiles} files for ${result.routes.length} routes from ${result.records} records`,
    );
    return true;
  } catch (error) {
    if (!(error instanceof DataErrors)) throw error;
    for (const problem of error.errors) console.error(formatDataError(problem));
    const outcome = settings.check ? 'nothing was written' : `${settings.outDir}/ was left as it was`;
    console.error(`\n${error.message}; ${outcome}.`);
    return false;
  }
}
