// The build, one line of values: read and check the sources → render them into a `Site` (the
// answers and documents, with the targets' files inside the output: site.ts) → each selected
// target's folder from it → write, each folder swapped in whole. The CLI's commands, the import's
// proof and the bench run it through build(); the live preview runs the same render with its own
// writer. It sits at the top of builder/, above the rooms it runs (pipeline/, documents/, site.ts).

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ResourceSettings } from '../contract/query.ts';
import type { Resource } from '../contract/resources/resource.ts';
import type { Route } from '../contract/routes.ts';
import { readCommitTimesOf, subfolderTimes } from '../shared/commit-times.ts';
import { SETTINGS_FILE } from '../shared/folders.ts';
import { replaceFiles } from '../shared/replace-files.ts';
import { recoverOutput } from '../shared/swap.ts';
import { writeOutput } from '../shared/write.ts';
import { startBundler } from '../targets/bundle.ts';
import type { CloudflarePlan } from '../targets/limits.ts';
import { askTargets, judgeTargets, selectTargets } from '../targets/selection.ts';
import type { Target } from '../targets/target.ts';
import { readCatalogue, withPath } from './pipeline/catalogue.ts';
import { filterRoutesOf } from './pipeline/prerendered-filters.ts';
import { declaredWithQueries, renderSite, type SiteSettings, targetContext } from './site.ts';

export interface BuildOptions {
  /** The resources declared (contract/resources/). */
  resources: readonly Resource[];
  /** The settings file's `resources` section (filters, search, ordering), checked in its form; none when absent. */
  resourceSettings?: Readonly<Record<string, ResourceSettings>>;
  /** The settings file, as its messages name it. */
  configPath?: string;
  dataDir: string;
  outDir: string;
  /** The project's `_headers`, copied into the output. */
  headersPath: string;
  baseUrl: string;
  pageSize: number;
  /** Where the deploy targets' files go, one folder per target (targets/<name>/). */
  targetsDir: string;
  /**
   * Deploy targets to write files for; all of them when absent, none when empty (a preview).
   * Named targets must take the catalogue within their hosts' limits, or the build stops; of
   * all of them, one that cannot is left out with a warning.
   */
  targets?: readonly string[];
  /** The Cloudflare plan whose limits the Cloudflare targets are checked against; free when absent. */
  cloudflarePlan?: CloudflarePlan;
  /** The worker's CPU time per request (ms) on the paid plan, written into wrangler.jsonc; the plan's default when absent. */
  cpuMs?: number;
  /** Where the source files' JSON Schemas and the API's OpenAPI document go; not written when absent. */
  schemasDir?: string;
  /** The editor's settings file whose mapping of source files to schemas the build keeps (EDITOR_SETTINGS); not written when absent. */
  editorSettings?: string;
  /** Write the API reference page (`/_reference/`, builder/documents/reference.ts) beside the API; off when absent. */
  reference?: boolean;
  /** Write each answer's precompressed `.br` and `.gz` siblings (shared/compress.ts); on when absent. */
  precompress?: boolean;
  /** Validate and render only; write nothing. */
  check?: boolean;
  /** Build a data folder without a record (an API of empty lists) rather than stop; off when absent. */
  allowEmpty?: boolean;
}

/** Where a build says how it goes. */
export interface BuildReport {
  /** Receives one line per finished stage, for progress on long builds. */
  log?: (line: string) => void;
  /** Receives one line per host limit that a target is near, or over when it is left out. */
  warn?: (line: string) => void;
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
export function stageLogger(log: (line: string) => void): (line: string) => void {
  let started = performance.now();
  return (line) => {
    const now = performance.now();
    log(`${line} (${Math.round(now - started)} ms)`);
    started = now;
  };
}

/** VS Code's workspace settings, where it finds which schema a source file follows. */
export const EDITOR_SETTINGS = '.vscode/settings.json';

/**
 * The editor's settings `file` mapping each resource's source files to its schema, keeping the
 * user's other settings; none when it holds that already.
 */
async function editorSettingsText(file: string, resources: readonly Resource[]): Promise<string | undefined> {
  const { editorSettingsText: withSchemas } = await import('./documents/json-schemas.ts');
  const before = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  const after = withSchemas(before, resources);
  return after === before ? undefined : after;
}

/**
 * Read → check → render, with the targets asked for their files meanwhile (esbuild bundles in a
 * process of its own while this one renders). The catalogue lives only in here: the targets are
 * judged and the output written without it.
 */
async function renderedSite(
  options: Pick<BuildOptions, 'dataDir' | 'headersPath' | 'allowEmpty' | 'targets' | 'cpuMs'>,
  settings: SiteSettings,
  selected: readonly Target[],
  step: (line: string) => void,
  warn: (line: string) => void,
) {
  const { dataDir, headersPath, allowEmpty } = options;
  const { resources, pageSize } = settings;
  const { catalogue, routes, headerRules, headersText, ...counts } = await readCatalogue(
    { dataDir, headersPath, pageSize, resources, allowEmpty },
    step,
    warn,
  ).catch((error: unknown) => withPath(error, headersPath));
  const context = targetContext(
    routes,
    headerRules,
    { ...settings, cpuMs: options.cpuMs },
    filterRoutesOf(catalogue, pageSize, resources),
  );
  const targetFiles = askTargets(selected, context, options.targets !== undefined);
  // Awaited once the output is made; when rendering fails, that is the error to report.
  targetFiles.catch(() => {});
  const site = await renderSite({ catalogue, context, headersText, prepared: {} }, settings);
  return { routes, counts, headersText, files: site.files, targetFiles };
}

/** The schema files, named as in schemasDir (`openapi.json`, ...). */
async function schemaFiles(settings: SiteSettings, headersText: string): Promise<Map<string, string>> {
  // Loaded only here: npm start, dev and check never write schemas.
  const { schemaFiles: ofProject } = await import('./documents/openapi.ts');
  const files = ofProject(settings, headersText, settings.resources);
  return new Map([...files].map(([file, text]) => [path.basename(file), text]));
}

/** Builds and writes the output and the selected targets' files; throws DataErrors on bad input. */
export async function build(options: BuildOptions, report: BuildReport = {}): Promise<BuildResult> {
  const resources = declaredWithQueries(
    options.resources,
    options.resourceSettings,
    options.configPath ?? SETTINGS_FILE,
  );
  const settings: SiteSettings = {
    resources,
    baseUrl: options.baseUrl,
    pageSize: options.pageSize,
    reference: options.reference,
  };
  const step = stageLogger(report.log ?? (() => {}));
  const warn = report.warn ?? (() => {});
  const selected = selectTargets(options.targets);
  // Started beside the load; a failure to start is the targets' to report, when they bundle.
  if (selected.length > 0) startBundler().catch(() => {});
  // First repair what a killed build left where this one writes, even if it stops on bad data.
  if (!options.check) {
    const outputs = [options.outDir, ...selected.map((target) => path.join(options.targetsDir, target.name))];
    if (options.schemasDir !== undefined) outputs.push(options.schemasDir);
    await Promise.all(outputs.map((dir) => recoverOutput(path.resolve(dir))));
  }
  // The commit times of the folders it writes, read as it starts: git then runs beside the load,
  // forked while this process is small (a fork costs more the larger the heap), not one process
  // after another between the writes.
  const [siteTimes, targetTimes, schemaTimes] = readCommitTimesOf(
    options.check
      ? []
      : [options.outDir, selected.length > 0 ? options.targetsDir : undefined, options.schemasDir].map(
          (folder) => folder && path.resolve(folder),
        ),
  );
  const { routes, counts, headersText, files, targetFiles } = await renderedSite(
    options,
    settings,
    selected,
    step,
    warn,
  );
  // The documents beside the output are rendered too, before anything is written: the write is the last stage.
  const schemasDir = options.check ? undefined : options.schemasDir;
  const editorSettings = options.check ? undefined : options.editorSettings;
  const schemas = schemasDir === undefined ? undefined : await schemaFiles(settings, headersText);
  const editorText = editorSettings === undefined ? undefined : await editorSettingsText(editorSettings, resources);
  step(`render: ${routes.length} routes, ${files.size} files`);
  const { written, leftOut } = judgeTargets(await targetFiles, {
    output: files,
    resources,
    plan: options.cloudflarePlan,
    ...(options.cpuMs === undefined ? {} : { cpuMs: options.cpuMs }),
    named: options.targets !== undefined,
    outDir: options.outDir,
    targetsDir: options.targetsDir,
    warn,
  });
  const targetFileCount = written.reduce((sum, { files: ofTarget }) => sum + ofTarget.size, 0);
  if (written.length > 0)
    step(`targets: ${targetFileCount} files for ${written.map(({ target }) => target.name).join(', ')}`);
  const result = { routes, ...counts, outputFiles: files.size };
  if (options.check) return result;
  await writeOutput(options.outDir, files, siteTimes, { precompress: options.precompress ?? true });
  // One read of the history for every target's folder, each under targetsDir. A left-out target's
  // folder from an earlier build would deploy an API that is no longer this one: it is written too.
  for (const { target, files: ofTarget } of [...written, ...leftOut]) {
    const times = targetTimes?.then((ofTargets) => ofTargets && subfolderTimes(ofTargets, target.name));
    await writeOutput(path.join(options.targetsDir, target.name), ofTarget, times);
  }
  const folders = [`${options.outDir}/`, ...(written.length + leftOut.length > 0 ? [`${options.targetsDir}/`] : [])];
  let count = files.size + targetFileCount;
  if (schemasDir !== undefined && schemas !== undefined) {
    await writeOutput(schemasDir, schemas, schemaTimes);
    folders.push(`${schemasDir}/`);
    count += schemas.size;
  }
  if (editorSettings !== undefined && editorText !== undefined) {
    await replaceFiles(path.dirname(editorSettings), new Map([[path.basename(editorSettings), editorText]]));
    folders.push(editorSettings);
    count += 1;
  }
  step(`write: ${count} files into ${folders.join(', ')}`);
  return result;
}
