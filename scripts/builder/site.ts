// The middle of the line that the build and the live preview share: a checked catalogue rendered
// into a `Site` (the answers and documents, and the whole output with the targets' files inside
// it), or, of a change, the answers it alters. Each stage is a function of its inputs; where the
// output goes is the caller's (build.ts writes it whole, preview/ replaces the files that changed).

import type { HeaderRule } from '../contract/headers.ts';
import type { ResourceSettings } from '../contract/query.ts';
import type { Resource } from '../contract/resources/resource.ts';
import { FILTERS_FOLDER, type FilterRoute, planDocuments, type Route, routingOf } from '../contract/routes.ts';
import { type FileBody, sameBody } from '../shared/file-body.ts';
import { TARGETS } from '../targets/index.ts';
import type { TargetContext } from '../targets/target.ts';
import { filterFiles } from './pipeline/prerendered-filters.ts';
import { withQuerySettings } from './pipeline/query-fields.ts';
import { recordsParts } from './pipeline/records-parts.ts';
import { type Prepared, render, renderLists } from './pipeline/render.ts';
import type { Catalogue } from './pipeline/validate.ts';

/** What the render reads of the settings. */
export interface SiteSettings {
  resources: readonly Resource[];
  baseUrl: string;
  pageSize: number;
  /** Write the API reference page (`/_reference/`, builder/documents/reference.ts) beside the API; off when absent. */
  reference?: boolean;
}

/**
 * The declarations carrying the settings file's filters, search and ordering
 * (builder/pipeline/query-fields.ts checks each field against the record schema).
 */
export function declaredWithQueries(
  resources: readonly Resource[],
  resourceSettings: Readonly<Record<string, ResourceSettings>> | undefined,
  configPath: string,
): readonly Resource[] {
  return resourceSettings === undefined ? resources : withQuerySettings(resources, resourceSettings, configPath);
}

/** What the targets are given of a build: its routes, its documents, the `_headers` rules and the resources. */
export function targetContext(
  routes: readonly Route[],
  headerRules: readonly HeaderRule[],
  settings: Pick<SiteSettings, 'reference' | 'resources'> & { cpuMs?: number | undefined },
  filterRoutes: readonly FilterRoute[] = [],
): TargetContext {
  return {
    routes,
    documents: planDocuments({ reference: settings.reference ?? false }),
    headerRules,
    resources: routingOf(settings.resources),
    ...(filterRoutes.length > 0 ? { filterRoutes } : {}),
    ...(settings.cpuMs === undefined ? {} : { cpuMs: settings.cpuMs }),
  };
}

/** What the output is made from. */
export interface SiteSource {
  catalogue: Catalogue;
  context: TargetContext;
  headersText: string;
  /** What a caller that renders again keeps of the render (render.ts). */
  prepared: Prepared;
}

/** The output: its answers and documents, and all its files. */
export interface Site {
  /** The answers and documents: what a change renders again in part. */
  answers: ReadonlyMap<string, FileBody>;
  /** Every file of the output: the answers, and the targets' files inside it made from them. */
  files: ReadonlyMap<string, FileBody>;
}

/** What a change renders again of the last publication: the answers it can alter. */
export interface SiteChange {
  /** The last publication's output. */
  site: Site;
  /** The last publication's routes: the file of a route gone goes with it. */
  routes: readonly Route[];
  /** The routes of the lists whose answers the change can alter. */
  lists: readonly Route[];
  /** The resources changed, whose records' files and pre-rendered filters are made again. */
  resources: ReadonlySet<string>;
}

/** The documents beside the API (the reference page, when on). */
async function documentsOf(settings: SiteSettings, headersText: string): Promise<Map<string, string>> {
  if (!settings.reference) return new Map();
  // Loaded only here, with the OpenAPI writer it is made from: a build without the page loads neither.
  const { referenceFiles } = await import('./documents/reference.ts');
  return referenceFiles(settings, headersText);
}

/**
 * The answers and documents with every target's files inside the output, whichever targets are
 * selected: public/ never depends on --target. They are made from the answers, so a change of
 * the answers makes them again from the whole output.
 */
function withSiteFiles(answers: ReadonlyMap<string, FileBody>, context: TargetContext): Map<string, FileBody> {
  const files = new Map(answers);
  for (const target of TARGETS)
    for (const [file, body] of target.siteFiles?.(context, files) ?? []) files.set(file, body);
  return files;
}

/**
 * The render: every answer of the output and the documents, or of `change` the lists it can alter
 * and the files made from its resources' records, each yielded as it is made.
 */
function* renderAnswers(
  source: SiteSource,
  settings: SiteSettings,
  documents: ReadonlyMap<string, string>,
  change: SiteChange | undefined,
): Generator<[string, FileBody]> {
  const { catalogue, context, headersText, prepared } = source;
  const resources = settings.resources;
  if (change === undefined) {
    yield* render(catalogue, context.routes, headersText, settings, resources, prepared);
    yield* documents;
  } else yield* renderLists(catalogue, settings, change.lists, resources, prepared);
  // The records a query is answered from go after the lists, which a client is more likely waiting for.
  const changed = change && resources.filter((resource) => change.resources.has(resource.name));
  const queried = (changed ?? resources).filter((resource) => resource.query !== undefined);
  const records = recordsParts(catalogue, settings, queried, prepared);
  yield* records;
  // The pre-rendered filters are read from the records' files of the same resources.
  const filterRoutes = (context.filterRoutes ?? []).filter((route) =>
    queried.some((one) => one.name === route.resource),
  );
  yield* filterFiles(filterRoutes, records, change ? queried : resources);
}

/** The whole output of `source`: every answer and document, and the targets' files inside it. */
export async function renderSite(source: SiteSource, settings: SiteSettings): Promise<Site> {
  const documents = await documentsOf(settings, source.headersText);
  const answers = new Map(renderAnswers(source, settings, documents, undefined));
  return { answers, files: withSiteFiles(answers, source.context) };
}

/** The folders of a resource's files made from its records besides its lists, which a change of it makes again whole. */
function recordFolders(resource: Resource): string[] {
  return [`_records/${resource.name}/`, `${resource.path.slice(1)}${FILTERS_FOLDER}/`];
}

/**
 * The answers `change` alters, each as soon as it is rendered, then null for each file it takes
 * away: a route gone, or a file of a changed resource's records and filters no longer made.
 */
export function* changedAnswers(
  source: SiteSource,
  settings: SiteSettings,
  change: SiteChange,
): Generator<[string, FileBody | null]> {
  const before = change.site.answers;
  const made = new Set<string>();
  for (const [file, body] of renderAnswers(source, settings, new Map(), change)) {
    made.add(file);
    if (!sameBody(before.get(file), body)) yield [file, body];
  }
  const kept = new Set(source.context.routes.map((route) => route.file));
  const gone = new Set(change.routes.filter((route) => !kept.has(route.file)).map((route) => route.file));
  const folders = settings.resources.filter((resource) => change.resources.has(resource.name)).flatMap(recordFolders);
  for (const file of before.keys())
    if (!made.has(file) && folders.some((folder) => file.startsWith(folder))) gone.add(file);
  for (const file of gone) if (before.has(file)) yield [file, null];
}

/**
 * The output after `changes` (changedAnswers()'s, all of them): the answers with them, and the
 * targets' files inside the output made again from those.
 */
export function siteAfter(site: Site, changes: ReadonlyMap<string, FileBody | null>, context: TargetContext): Site {
  if (changes.size === 0) return site;
  const answers = new Map(site.answers);
  for (const [file, body] of changes) {
    if (body === null) answers.delete(file);
    else answers.set(file, body);
  }
  return { answers, files: withSiteFiles(answers, context) };
}
