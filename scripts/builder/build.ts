// The build: load → validate → render → write, once each, on one thread. It writes the output,
// the selected deploy targets' files and the schemas, each folder swapped in whole; the CLI's
// commands, the previews, the import's proof and the bench all run it through build().
// It sits at the top of builder/, above the two rooms it runs (pipeline/ and documents/), and
// below preview/, whose first publication is this build.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { HeaderRule } from '../contract/headers.ts';
import type { ResourceSettings } from '../contract/query.ts';
import type { Resource } from '../contract/resources/resource.ts';
import { FILTERS_FOLDER, type FilterRoute, planDocuments, type Route, routingOf } from '../contract/routes.ts';
import { readCommitTimes, subfolderTimes } from '../shared/commit-times.ts';
import { bytesOf, type FileBody, sameBody } from '../shared/file-body.ts';
import { SETTINGS_FILE } from '../shared/folders.ts';
import { replaceFiles } from '../shared/replace-files.ts';
import { recoverOutput } from '../shared/swap.ts';
import { writeOutput } from '../shared/write.ts';
import { TARGETS } from '../targets/index.ts';
import type { CloudflarePlan } from '../targets/limits.ts';
import { askTargets, judgeTargets, selectTargets, type Verdict } from '../targets/selection.ts';
import type { Target, TargetContext } from '../targets/target.ts';
import { type CheckedCatalogue, readCatalogue, withPath } from './pipeline/catalogue.ts';
import { filterFiles, filterRoutesOf } from './pipeline/prerendered-filters.ts';
import { withQuerySettings } from './pipeline/query-fields.ts';
import { recordsParts } from './pipeline/records-parts.ts';
import { type Prepared, render, renderLists } from './pipeline/render.ts';
import type { Catalogue } from './pipeline/validate.ts';

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

/**
 * The options with the declarations carrying the settings file's filters, search and ordering
 * (builder/pipeline/query-fields.ts checks each field against the record schema).
 */
export function withDeclaredQueries<T extends Pick<BuildOptions, 'resources' | 'resourceSettings' | 'configPath'>>(
  options: T,
): T {
  if (options.resourceSettings === undefined) return options;
  const resources = withQuerySettings(options.resources, options.resourceSettings, options.configPath ?? SETTINGS_FILE);
  return { ...options, resources, resourceSettings: undefined };
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

/**
 * The records' files as text, which is all the pre-rendered filters read: not the lists, which a
 * preview save holds as bytes (43 MB for the benchmark's companies).
 */
function recordsAsTexts(files: ReadonlyMap<string, FileBody>): Map<string, string> {
  const texts = new Map<string, string>();
  for (const [file, body] of files)
    if (file.startsWith('_records/')) texts.set(file, typeof body === 'string' ? body : bytesOf(body).toString('utf8'));
  return texts;
}

/** The documents beside the API (the reference page, when on). */
async function documentsOf(
  options: Pick<BuildOptions, 'reference' | 'baseUrl' | 'pageSize' | 'resources'>,
  headersText: string,
): Promise<Map<string, string>> {
  if (!options.reference) return new Map();
  // Loaded only here, with the OpenAPI writer it is made from: a build without the page loads neither.
  const { referenceFiles } = await import('./documents/reference.ts');
  return referenceFiles(options, headersText);
}

/**
 * Adds every target's files inside the output to `files` (the answers and documents), whichever
 * targets are selected: public/ never depends on --target. They are made from the files before
 * them, so a change of the answers makes them again from the whole output.
 */
function addSiteFiles(files: Map<string, FileBody>, context: TargetContext): void {
  for (const target of TARGETS)
    for (const [file, body] of target.siteFiles?.(context, files) ?? []) files.set(file, body);
}

/** What the targets are given of a build: its routes, its documents, the `_headers` rules and the resources. */
export function targetContext(
  routes: readonly Route[],
  headerRules: readonly HeaderRule[],
  options: Pick<BuildOptions, 'reference' | 'resources' | 'cpuMs'>,
  filterRoutes: readonly FilterRoute[] = [],
): TargetContext {
  return {
    routes,
    documents: planDocuments({ reference: options.reference ?? false }),
    headerRules,
    resources: routingOf(options.resources),
    ...(filterRoutes.length > 0 ? { filterRoutes } : {}),
    ...(options.cpuMs === undefined ? {} : { cpuMs: options.cpuMs }),
  };
}

/** What the output is made from. */
export interface SiteSource {
  /** The checked catalogue: let go of (undefined) once the answers are rendered, so the write runs without it. */
  catalogue: Catalogue | undefined;
  context: TargetContext;
  headersText: string;
  /** What a caller that renders again keeps of the render (render.ts). */
  prepared: Prepared;
}

/** What a publication renders again of the last one: the answers a change can alter. */
export interface SiteChange {
  /** The last publication's answers and documents. */
  answers: ReadonlyMap<string, FileBody>;
  /** The last publication's routes: the file of a route gone goes with it. */
  routes: readonly Route[];
  /** The routes of the lists whose answers the change can alter. */
  lists: readonly Route[];
  /** The resources changed, whose records' files and pre-rendered filters are made again. */
  resources: ReadonlySet<string>;
}

/**
 * Where publishSite() puts the output: the whole folder swapped in once made (build()), or the
 * files that changed, each replaced in place (the live preview).
 */
export interface SiteWriter {
  /** Each answer that changed, as soon as it is rendered (null: its file goes). */
  answer(file: string, body: FileBody | null): Promise<void>;
  /** Every answer rendered; `changes` are all those answer() was given. */
  answersDone(changes: ReadonlyMap<string, FileBody | null>): Promise<void>;
  /** The whole output, the targets' files inside it made from the answers. */
  site(files: ReadonlyMap<string, FileBody>): Promise<void>;
}

/** The folders of a resource's files made from its records besides its lists, which a change of it makes again whole. */
function recordFolders(resource: Resource): string[] {
  return [`_records/${resource.name}/`, `${resource.path.slice(1)}${FILTERS_FOLDER}/`];
}

/**
 * The render: every answer of the output, or of `change` the lists it can alter and the files made
 * from its resources' records, each yielded as it is made. `answers` is the output as the caller
 * fills it with what this yields: the pre-rendered filters are read from the records' files there.
 */
function* renderAnswers(
  source: SiteSource,
  options: Pick<BuildOptions, 'reference' | 'baseUrl' | 'pageSize' | 'resources'>,
  answers: ReadonlyMap<string, FileBody>,
  documents: ReadonlyMap<string, string>,
  change: SiteChange | undefined,
): Generator<[string, FileBody]> {
  const resources = options.resources;
  const { context, headersText, prepared } = source;
  const catalogue = source.catalogue as Catalogue;
  const changed = change && resources.filter((resource) => change.resources.has(resource.name));
  if (change === undefined) {
    yield* render(catalogue, context.routes, headersText, options, resources, prepared);
    yield* documents;
  } else yield* renderLists(catalogue, options, change.lists, resources, prepared);
  // The records a query is answered from go after the lists, which a client is more likely waiting for.
  const queried = (changed ?? resources).filter((resource) => resource.query !== undefined);
  yield* recordsParts(catalogue, options, queried, prepared);
  const filterRoutes = (context.filterRoutes ?? []).filter((route) =>
    queried.some((one) => one.name === route.resource),
  );
  const output = filterRoutes.length > 0 ? recordsAsTexts(answers) : new Map<string, string>();
  yield* filterFiles(filterRoutes, output, change ? queried : resources);
}

/**
 * The one way the output is made and written, for the build and the live preview alike: render →
 * the documents beside the API → the targets' files inside the output → the write, of the whole
 * output, or of `change` only what it can alter, the same stages on less. Returns the answers and
 * documents (what a change renders again in part) and the whole output.
 */
export async function publishSite(
  source: SiteSource,
  options: Pick<BuildOptions, 'reference' | 'baseUrl' | 'pageSize' | 'resources'>,
  writer: SiteWriter,
  change?: SiteChange,
): Promise<{ answers: Map<string, FileBody>; files: Map<string, FileBody> }> {
  const resources = options.resources;
  const { context } = source;
  const answers = new Map<string, FileBody>(change?.answers);
  const changes = new Map<string, FileBody | null>();
  const made = new Set<string>();
  const documents = change === undefined ? await documentsOf(options, source.headersText) : new Map<string, string>();
  for (const [file, body] of renderAnswers(source, options, answers, documents, change)) {
    made.add(file);
    const before = answers.get(file);
    answers.set(file, body);
    if (change !== undefined && sameBody(before, body)) continue;
    changes.set(file, body);
    await writer.answer(file, body);
  }
  // The write runs without the catalogue (the preview keeps its own).
  source.catalogue = undefined;
  if (change !== undefined) {
    const kept = new Set(context.routes.map((route) => route.file));
    const gone = change.routes.filter((route) => !kept.has(route.file)).map((route) => route.file);
    // A resource made again takes with it its records' files and filters it no longer has.
    const folders = resources.filter((resource) => change.resources.has(resource.name)).flatMap(recordFolders);
    for (const file of change.answers.keys())
      if (!made.has(file) && folders.some((folder) => file.startsWith(folder))) gone.push(file);
    for (const file of gone) {
      if (!answers.delete(file)) continue;
      changes.set(file, null);
      await writer.answer(file, null);
    }
  }
  await writer.answersDone(changes);
  const files = new Map(answers);
  if (change === undefined || changes.size > 0) addSiteFiles(files, context);
  await writer.site(files);
  return { answers, files };
}

/** VS Code's workspace settings, where it finds which schema a source file follows. */
export const EDITOR_SETTINGS = '.vscode/settings.json';

/**
 * Maps each resource's source files to its schema in the editor's settings `file`, keeping the
 * user's other settings; whether the file changed.
 */
async function writeEditorSettings(file: string, resources: readonly Resource[]): Promise<boolean> {
  const { editorSettingsText } = await import('./documents/json-schemas.ts');
  const before = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  const after = editorSettingsText(before, resources);
  if (after === before) return false;
  await replaceFiles(path.dirname(file), new Map([[path.basename(file), after]]));
  return true;
}

/** Writes the whole output into `outDir`, swapped in at once. */
function writeSite(options: Pick<BuildOptions, 'outDir' | 'precompress'>, files: ReadonlyMap<string, FileBody>) {
  return writeOutput(options.outDir, files, undefined, { precompress: options.precompress ?? true });
}

/**
 * What the live preview gives build() for its first publication: the catalogue it keeps (read
 * and checked already), what it keeps of the render, and where the rendered output goes.
 */
export interface KeptSources {
  checked: CheckedCatalogue;
  prepared: Prepared;
  /** The stage logger the preview times its own stages with. */
  step: (line: string) => void;
  /** Receives the rendered answers and the whole output, which later publications change in part. */
  rendered: (site: { answers: Map<string, FileBody>; files: Map<string, FileBody> }) => void;
}

/**
 * Load → validate, with the targets asked for their files meanwhile. Apart from build() so that
 * the catalogue is held by the source alone, which publishSite() lets go of before the write.
 */
async function readSources(
  options: BuildOptions,
  selected: readonly Target[],
  step: (line: string) => void,
  kept?: KeptSources,
) {
  const { catalogue, routes, headerRules, headersText, ...counts } =
    kept?.checked ??
    (await readCatalogue(options, step, options.warn).catch((error: unknown) => withPath(error, options.headersPath)));
  const resources = options.resources;
  const context = targetContext(routes, headerRules, options, filterRoutesOf(catalogue, options.pageSize, resources));
  // Asked first: esbuild bundles in a process of its own while this one renders.
  const targetFiles = askTargets(selected, context, options.targets !== undefined);
  // Awaited by build(); when rendering fails, that is the error to report.
  targetFiles.catch(() => {});
  const source: SiteSource = { catalogue, context, headersText, prepared: kept?.prepared ?? {} };
  return { source, routes, headersText, counts, targetFiles };
}

/**
 * Builds and writes the output and the selected targets' files; throws DataErrors on bad input.
 * `preview`: the live preview's first publication, from the catalogue it keeps in memory.
 */
export async function build(given: BuildOptions, preview?: KeptSources): Promise<BuildResult> {
  const options = withDeclaredQueries(given);
  const step = preview?.step ?? stageLogger(options.log ?? (() => {}));
  const selected = selectTargets(options.targets);
  // First repair what a killed build left where this one writes, even if it stops on bad data.
  if (!options.check) {
    const outputs = [options.outDir, ...selected.map((target) => path.join(options.targetsDir, target.name))];
    if (options.schemasDir !== undefined) outputs.push(options.schemasDir);
    await Promise.all(outputs.map((dir) => recoverOutput(path.resolve(dir))));
  }
  const { source, routes, headersText, counts, targetFiles } = await readSources(options, selected, step, preview);
  let verdict: Verdict = { written: [], leftOut: [] };
  let outputFiles = 0;
  // The whole output, written once it is made and the targets are judged against it.
  const wholeFolder: SiteWriter = {
    answer: async () => {},
    answersDone: async () => {},
    site: async (files) => {
      outputFiles = files.size;
      step(`render: ${routes.length} routes, ${files.size} files`);
      verdict = judgeTargets(await targetFiles, {
        output: files,
        resources: options.resources,
        plan: options.cloudflarePlan,
        ...(options.cpuMs === undefined ? {} : { cpuMs: options.cpuMs }),
        named: options.targets !== undefined,
        outDir: options.outDir,
        targetsDir: options.targetsDir,
        warn: options.warn ?? (() => {}),
      });
      if (verdict.written.length > 0) {
        const count = verdict.written.reduce((sum, { files: filesOfTarget }) => sum + filesOfTarget.size, 0);
        step(`targets: ${count} files for ${verdict.written.map(({ target }) => target.name).join(', ')}`);
      }
      if (!options.check) await writeSite(options, files);
    },
  };
  const site = await publishSite(source, options, wholeFolder);
  preview?.rendered(site);
  const result = { routes, ...counts, outputFiles };
  if (options.check) return result;
  const { written, leftOut } = verdict;
  const targetFileCount = written.reduce((sum, { files }) => sum + files.size, 0);
  // One read of the history for every target's folder, each under targetsDir.
  const targetTimes = written.length > 0 ? readCommitTimes(path.resolve(options.targetsDir)) : undefined;
  for (const { target, files } of written) {
    const times = targetTimes?.then((ofTargets) => ofTargets && subfolderTimes(ofTargets, target.name));
    await writeOutput(path.join(options.targetsDir, target.name), files, times);
  }
  // A left-out target's folder from an earlier build would deploy an API that is no longer this one.
  for (const { target, files } of leftOut) await writeOutput(path.join(options.targetsDir, target.name), files);
  const folders = [`${options.outDir}/`, ...(written.length + leftOut.length > 0 ? [`${options.targetsDir}/`] : [])];
  let count = outputFiles + targetFileCount;
  if (options.schemasDir !== undefined) {
    // Keyed by their place in the project (`schemas/openapi.json`): written into schemasDir.
    // Loaded only here: npm start, dev and check never write schemas.
    const { schemaFiles } = await import('./documents/openapi.ts');
    const schemas = [...schemaFiles(options, headersText, options.resources)].map(
      ([file, text]) => [path.basename(file), text] as const,
    );
    await writeOutput(options.schemasDir, new Map(schemas));
    folders.push(`${options.schemasDir}/`);
    count += schemas.length;
  }
  if (options.editorSettings !== undefined && (await writeEditorSettings(options.editorSettings, options.resources))) {
    folders.push(options.editorSettings);
    count += 1;
  }
  step(`write: ${count} files into ${folders.join(', ')}`);
  return result;
}
