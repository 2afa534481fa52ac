// The build: load → validate → render → write, once each, on one thread. It writes the output,
// the selected deploy targets' files and the schemas, each folder swapped in whole; the CLI's
// commands, the previews, the import's proof and the bench all run it through build().
// It sits at the top of builder/, above the two rooms it runs (pipeline/ and documents/), and
// below preview/, whose first publication is this build.

import path from 'node:path';
import type { HeaderRule } from '../contract/headers.ts';
import type { ResourceSettings } from '../contract/query.ts';
import { RESOURCES } from '../contract/resources/index.ts';
import type { Resource } from '../contract/resources/resource.ts';
import { type FilterRoute, planDocuments, type Route, routingOf } from '../contract/routes.ts';
import { readCommitTimes, subfolderTimes } from '../shared/commit-times.ts';
import { type FileBody, sizeOf } from '../shared/file-body.ts';
import { SETTINGS_FILE } from '../shared/settings-keys.ts';
import { recoverOutput } from '../shared/swap.ts';
import { writeOutput } from '../shared/write.ts';
import { LIMITS, TARGETS } from '../targets/index.ts';
import {
  type CloudflarePlan,
  checkLimits,
  DEFAULT_CLOUDFLARE_PLAN,
  formatFinding,
  LimitsError,
} from '../targets/limits.ts';
import type { Target, TargetContext } from '../targets/target.ts';
import { type CheckedCatalogue, readCatalogue, withPath } from './pipeline/catalogue.ts';
import { filterFiles, filterRoutesOf } from './pipeline/prerendered-filters.ts';
import { withQuerySettings } from './pipeline/query-fields.ts';
import { recordsParts } from './pipeline/records-parts.ts';
import { type Prepared, render } from './pipeline/render.ts';
import type { Catalogue } from './pipeline/validate.ts';

export interface BuildOptions {
  /** The resources declared (contract/resources/): the API's when absent. */
  resources?: readonly Resource[];
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
  /** Where the source files' JSON Schemas and the API's OpenAPI document go; not written when absent. */
  schemasDir?: string;
  /** Write the API reference page (`/_reference/`, builder/documents/reference.ts) beside the API; off when absent. */
  reference?: boolean;
  /** Write each answer's precompressed `.br` and `.gz` siblings (shared/compress.ts); on when absent. */
  precompress?: boolean;
  /** Validate and render only; write nothing. */
  check?: boolean;
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
  const resources = withQuerySettings(
    options.resources ?? RESOURCES,
    options.resourceSettings,
    options.configPath ?? SETTINGS_FILE,
  );
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

/** The paths of the lists the settings file gives filters, search or orderings. */
function queriedLists(resources: readonly Resource[]): string[] {
  return resources
    .filter(({ query }) => query && query.filters.length + query.search.length + query.ordering.length > 0)
    .map((resource) => resource.path);
}

/**
 * Why a target that neither runs code nor answers from pre-rendered filters is left out when the
 * settings file asks for answers made at request time.
 */
function cannotQuery(target: string, paths: readonly string[]): string {
  const able = TARGETS.filter((each) => each.runsHandler || each.prerendersFilters).map((each) => each.name);
  return `${target}: routes on the path alone, so it cannot answer or refuse the filters, search and orderings the settings file gives ${paths.join(', ')} (it would send the whole list); use ${able.join(', ')}, or remove those settings`;
}

/**
 * The targets (by their index in `selected`) that take this build: within their hosts' limits,
 * and running code where a list has filters, search or orderings. A target named by the user
 * that cannot stops the build (LimitsError, one line per reason); otherwise it is left out, with
 * a warning. Nothing has been written yet: the previous output stays whole either way.
 */
function withinLimits(
  selected: readonly Target[],
  made: readonly Map<string, string>[],
  output: ReadonlyMap<string, FileBody>,
  options: BuildOptions,
): number[] {
  const warn = options.warn ?? (() => {});
  const sizes = new Map([...output].map(([file, body]) => [file, sizeOf(body)]));
  const plan = options.cloudflarePlan ?? DEFAULT_CLOUDFLARE_PLAN;
  const resources = options.resources ?? RESOURCES;
  const queried = queriedLists(resources);
  const breaches: string[] = [];
  const kept: number[] = [];
  for (const [index, target] of selected.entries()) {
    const targetDir = path.join(options.targetsDir, target.name);
    const limits = LIMITS[target.name as keyof typeof LIMITS] ?? [];
    const built = {
      output,
      sizes,
      targetFiles: made[index] as Map<string, string>,
      plan,
      resources,
    };
    const findings = checkLimits(target.name, limits, built, { outDir: options.outDir, targetDir });
    for (const finding of findings.filter((found) => !found.over)) warn(formatFinding(finding));
    const over = findings.filter((found) => found.over).map(formatFinding);
    if (queried.length > 0 && !target.runsHandler && !target.prerendersFilters)
      over.push(cannotQuery(target.name, queried));
    if (over.length === 0) kept.push(index);
    else if (options.targets !== undefined) breaches.push(...over);
    else {
      for (const line of over) warn(line);
      warn(`${target.name} is left out: ${targetDir}/ was not written (--target ${target.name} makes this an error)`);
    }
  }
  if (breaches.length > 0) throw new LimitsError(breaches);
  return kept;
}

/** Adds the pages beside the API (the reference, when on) to the rendered `files`, which it returns. */
export async function addPages(
  files: Map<string, string>,
  options: Pick<BuildOptions, 'reference' | 'baseUrl' | 'pageSize' | 'resources'>,
  headersText: string,
): Promise<Map<string, string>> {
  if (options.reference) {
    // Loaded only here, with the OpenAPI writer it is made from: a build without the page loads neither.
    const { referenceFiles } = await import('./documents/reference.ts');
    for (const [file, text] of referenceFiles(options, headersText)) files.set(file, text);
  }
  return files;
}

/**
 * Adds every target's files inside the output to `files` (the answers and pages), whichever
 * targets are selected: public/ never depends on --target. They are made from the files before
 * them, so the live preview makes them again from its whole output.
 */
export function addSiteFiles(files: Map<string, FileBody>, context: TargetContext): void {
  for (const target of TARGETS)
    for (const [file, body] of target.siteFiles?.(context, files) ?? []) files.set(file, body);
}

/** What the targets are given of a build: its routes, its pages, the `_headers` rules and the resources. */
export function targetContext(
  routes: readonly Route[],
  headerRules: readonly HeaderRule[],
  options: Pick<BuildOptions, 'reference' | 'resources'>,
  filterRoutes: readonly FilterRoute[] = [],
): TargetContext {
  return {
    routes,
    documents: planDocuments({ reference: options.reference ?? false }),
    headerRules,
    resources: routingOf(options.resources ?? RESOURCES),
    ...(filterRoutes.length > 0 ? { filterRoutes } : {}),
  };
}

/**
 * The one way the output is made, for the build and the live preview alike: render → the pages
 * beside the API → the targets' files inside the output. `answers` are the rendered answers and
 * pages (what the preview renders again in part), `files` the whole output.
 */
export async function renderSite(
  catalogue: Catalogue,
  context: TargetContext,
  headersText: string,
  options: Pick<BuildOptions, 'reference' | 'baseUrl' | 'pageSize' | 'resources'>,
  prepared: Prepared = {},
): Promise<{ answers: Map<string, string>; files: Map<string, FileBody> }> {
  const resources = options.resources ?? RESOURCES;
  const answers = await addPages(
    render(catalogue, context.routes, headersText, options, prepared, resources),
    options,
    headersText,
  );
  for (const [file, text] of recordsParts(catalogue, options, resources, prepared)) answers.set(file, text);
  for (const [file, text] of filterFiles(context.filterRoutes ?? [], answers, resources)) answers.set(file, text);
  const files = new Map<string, FileBody>(answers);
  addSiteFiles(files, context);
  return { answers, files };
}

/** Writes the whole output into `outDir`, swapped in at once. */
export function writeSite(options: Pick<BuildOptions, 'outDir' | 'precompress'>, files: ReadonlyMap<string, FileBody>) {
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
  rendered: (site: { answers: Map<string, string>; files: Map<string, FileBody> }) => void;
}

/**
 * Load → validate → render, with the targets asked for their files meanwhile. Apart from build()
 * so that the catalogue is garbage once the files are rendered: the write runs without it.
 */
async function readAndRender(
  options: BuildOptions,
  selected: readonly Target[],
  step: (line: string) => void,
  kept?: KeptSources,
) {
  const { catalogue, routes, headerRules, headersText, ...source } =
    kept?.checked ??
    (await readCatalogue(options, step, options.warn).catch((error: unknown) => withPath(error, options.headersPath)));
  const resources = options.resources ?? RESOURCES;
  const context = targetContext(routes, headerRules, options, filterRoutesOf(catalogue, options.pageSize, resources));
  // Asked first: esbuild bundles in a process of its own while this one renders.
  const targetFiles = Promise.all(selected.map((target) => target.files(context)));
  // Awaited by build(); when rendering fails, that is the error to report.
  targetFiles.catch(() => {});
  const site = await renderSite(catalogue, context, headersText, options, kept?.prepared);
  kept?.rendered(site);
  const { files } = site;
  step(`render: ${routes.length} routes, ${files.size} files`);
  return { routes, headersText, source, targetFiles, files };
}

/**
 * Builds and writes the output and the selected targets' files; throws DataErrors on bad input.
 * `preview`: the live preview's first publication, from the catalogue it keeps in memory.
 */
export async function build(given: BuildOptions, preview?: KeptSources): Promise<BuildResult> {
  const options = withDeclaredQueries(given);
  const step = preview?.step ?? stageLogger(options.log ?? (() => {}));
  const selected = TARGETS.filter((target) => !options.targets || options.targets.includes(target.name));
  // First repair what a killed build left where this one writes, even if it stops on bad data.
  if (!options.check) {
    const outputs = [options.outDir, ...selected.map((target) => path.join(options.targetsDir, target.name))];
    if (options.schemasDir !== undefined) outputs.push(options.schemasDir);
    await Promise.all(outputs.map((dir) => recoverOutput(path.resolve(dir))));
  }
  const { routes, headersText, source, targetFiles, files } = await readAndRender(options, selected, step, preview);
  const allMade = await targetFiles;
  const kept = withinLimits(selected, allMade, files, options);
  const written = kept.map((index) => selected[index] as Target);
  const made = kept.map((index) => allMade[index] as Map<string, string>);
  const targetFileCount = made.reduce((sum, filesOfTarget) => sum + filesOfTarget.size, 0);
  if (written.length > 0) {
    step(`targets: ${targetFileCount} files for ${written.map((target) => target.name).join(', ')}`);
  }
  const result = { routes, ...source, outputFiles: files.size };
  if (options.check) return result;
  await writeSite(options, files);
  // One read of the history for every target's folder, each under targetsDir.
  const targetTimes = written.length > 0 ? readCommitTimes(path.resolve(options.targetsDir)) : undefined;
  for (const [index, target] of written.entries()) {
    const times = targetTimes?.then((ofTargets) => ofTargets && subfolderTimes(ofTargets, target.name));
    await writeOutput(path.join(options.targetsDir, target.name), made[index] as Map<string, string>, times);
  }
  const folders = [`${options.outDir}/`, ...(written.length > 0 ? [`${options.targetsDir}/`] : [])];
  let count = files.size + targetFileCount;
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
  step(`write: ${count} files into ${folders.join(', ')}`);
  return result;
}
