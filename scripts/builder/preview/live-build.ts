// The live preview's build (`npm run dev`): the catalogue stays in memory (live-sources.ts), and
// after a change only the answers whose bytes it can alter are rendered again, by render.ts's
// own renderers, and only the files whose bytes changed are written, each replaced in place
// (shared/replace-files.ts) in the folder being served. It runs the build's render (../site.ts)
// with its own writer: its first publication renders the whole output and writes it whole, as
// build() does; every later one renders what a change alters and leaves the folder with the same
// files and bytes as a full build of the data then (test/unit/dev-live.test.ts holds it to that).

import type { HeaderRule } from '../../contract/headers.ts';
import { pageCount } from '../../contract/pagination.ts';
import type { ResourceSettings } from '../../contract/query.ts';
import type { Resource } from '../../contract/resources/resource.ts';
import type { Route } from '../../contract/routes.ts';
import { type FileBody, sameBody, sizeOf } from '../../shared/file-body.ts';
import { SETTINGS_FILE } from '../../shared/folders.ts';
import { replaceFiles, writeSiblingsOf } from '../../shared/replace-files.ts';
import { writeOutput } from '../../shared/write.ts';
import { readHeaders } from '../pipeline/catalogue.ts';
import type { DataError } from '../pipeline/errors.ts';
import { filterRoutesOf } from '../pipeline/prerendered-filters.ts';
import { pageShown, recordTexts, resortedOf, routesOf, sortedOf } from '../pipeline/render.ts';
import { recordsOf } from '../pipeline/validate.ts';
import {
  changedAnswers,
  declaredWithQueries,
  renderSite,
  type Site,
  type SiteChange,
  type SiteSettings,
  type SiteSource,
  siteAfter,
  targetContext,
} from '../site.ts';
import { LiveSources } from './live-sources.ts';

export interface LiveBuildOptions extends SiteSettings {
  dataDir: string;
  /** The folder served, which the preview writes. */
  outDir: string;
  /** The project's `_headers`, copied into the output. */
  headersPath: string;
  /** The settings file's `resources` section (filters, search, ordering); none when absent. */
  resourceSettings?: Readonly<Record<string, ResourceSettings>>;
  /** The settings file, as its messages name it. */
  configPath?: string;
  /** Write each answer's precompressed `.br` and `.gz` siblings (shared/compress.ts); on when absent. */
  precompress?: boolean;
  /** Build a data folder without a record (an API of empty lists) rather than stop; off when absent. */
  allowEmpty?: boolean;
}

export interface Published {
  routes: number;
  records: number;
  /** How many files the output holds. */
  outputFiles: number;
  /** How many files this publication wrote or removed. */
  changedFiles: number;
}

/**
 * How much of the changed answers (in UTF-16 code units, about bytes) is rendered before it is
 * written: a large answer alone, as soon as it is rendered; texture pages of 2 to 3 KiB a few
 * dozen at a time, about as many as replaceFiles() keeps in flight.
 */
const WRITE_BATCH_BYTES = 64 * 1024;

/** The answers a resource's records appear in: its own, and those of the resources that embed it (an event in the fairs). */
function shownIn(resource: string, resources: readonly Resource[]): string[] {
  return [resource, ...resources.filter((one) => one.embeds?.resource === resource).map((one) => one.name)];
}

/** Whether the live build keeps the resource's records in their order between publications. */
const keptSorted = (resource: Resource) => resource.order !== 'source' && resource.orderingFields.length === 0;

/** The changes that turn `before` into `after`: each file whose bytes differ, and null for each one gone. */
function changesBetween(
  before: ReadonlyMap<string, FileBody>,
  after: ReadonlyMap<string, FileBody>,
): Map<string, FileBody | null> {
  const changes = new Map<string, FileBody | null>();
  for (const [file, body] of after) if (!sameBody(before.get(file), body)) changes.set(file, body);
  for (const file of before.keys()) if (!after.has(file)) changes.set(file, null);
  return changes;
}

export class LiveBuild {
  /** What `outDir` holds, which later changes are applied to; none until it holds this build's output. */
  private site: Site | undefined;
  private routes: Route[] = [];
  /**
   * Of each resource kept sorted, its records in their order as last published, and the records
   * gone and come since: a change sorts only those, and rewrites only the pages whose items moved.
   */
  private sorted = new Map<string, readonly object[]>();
  private readonly gone = new Map<string, Set<object>>();
  private readonly come = new Map<string, Set<object>>();
  /** The resources changed since the last publication. */
  private readonly dirty = new Set<string>();
  /** Each company's and event's text, kept while its record is: a change encodes only its own records. */
  private readonly texts = recordTexts();

  private constructor(
    readonly options: LiveBuildOptions,
    /** What the render reads of the options: the declarations with the settings file's queries. */
    private readonly settings: SiteSettings,
    readonly sources: LiveSources,
    private readonly headersText: string,
    private readonly headers: { rules: HeaderRule[]; errors: DataError[] },
  ) {}

  /**
   * Reads the headers file and the data. `previous`, the sources of the build this one replaces
   * (the settings or the headers changed), are kept when they are of the same data folder, and
   * brought up to date with the files of `changed`.
   */
  static async open(
    options: LiveBuildOptions,
    previous?: LiveSources,
    changed: readonly string[] = [],
  ): Promise<LiveBuild> {
    const { baseUrl, pageSize, reference } = options;
    const resources = declaredWithQueries(
      options.resources,
      options.resourceSettings,
      options.configPath ?? SETTINGS_FILE,
    );
    const { text: headersText, ...headers } = await readHeaders(options.headersPath, resources);
    let sources: LiveSources;
    if (previous?.dataDir === options.dataDir) {
      sources = previous;
      await sources.reload(changed);
    } else sources = await LiveSources.open(options.dataDir, resources);
    return new LiveBuild(options, { resources, baseUrl, pageSize, reference }, sources, headersText, headers);
  }

  /**
   * The declarations with the settings file's filters, search and ordering as they are now: the
   * sources, kept from the build this one replaces, may have been read under other settings.
   */
  private get resources(): readonly Resource[] {
    return this.settings.resources;
  }

  /** Takes in the changed files (or folders) of the data folder; publish() then shows them. */
  async reload(changed: readonly string[]): Promise<void> {
    const { resources, gone, come } = await this.sources.reload(changed);
    for (const resource of resources) this.dirty.add(resource);
    for (const [resource, records] of gone) {
      const cameSince = this.setOf(this.come, resource);
      const goneSince = this.setOf(this.gone, resource);
      // One read since the last publication, and gone again: the published order never had it.
      for (const record of records as object[]) if (!cameSince.delete(record)) goneSince.add(record);
    }
    for (const [resource, records] of come)
      for (const record of records as object[]) this.setOf(this.come, resource).add(record);
  }

  /**
   * Writes what changed since the last publication into `outDir`, or the whole output the first
   * time. Throws DataErrors, as the full build does, when the data has problems: nothing is
   * written then, and the last publication stays served. `answersWritten`, when given, is awaited
   * between the changed answers and what is made from them: their precompressed siblings, and the
   * targets' files inside the output, which no preview request reads. Making those takes the CPU
   * for a while on a large catalogue, which a server in this process can first use to send the
   * new answers.
   */
  async publish(
    step: (line: string) => void = () => {},
    answersWritten: () => Promise<void> = async () => {},
  ): Promise<Published> {
    const problems = await this.sources.problems(this.headers.errors, this.options.allowEmpty);
    if (problems) throw problems;
    step('validate: no problems');
    const catalogue = this.sources.catalogue();
    const resources = this.resources;
    const { pageSize } = this.options;
    const pageCounts = (sortedOf: (resource: Resource) => number) =>
      resources.filter((resource) => resource.paginated).map((resource) => pageCount(sortedOf(resource), pageSize));
    // The routes change only with the number of pages (thousands of routes to make again).
    const samePages =
      this.site !== undefined &&
      pageCounts((resource) => recordsOf(catalogue, resource.name).length).join() ===
        pageCounts((resource) => this.sorted.get(resource.name)?.length ?? 0).join();
    const routes = samePages ? this.routes : routesOf(catalogue, pageSize, resources);
    const sorted = new Map<string, readonly object[]>();
    for (const resource of resources.filter(keptSorted)) {
      const before = this.sorted.get(resource.name);
      sorted.set(
        resource.name,
        this.site === undefined || before === undefined
          ? sortedOf(resource, recordsOf(catalogue, resource.name) as object[])
          : resortedOf(resource, before, this.setOf(this.gone, resource.name), [
              ...this.setOf(this.come, resource.name),
            ]),
      );
    }
    const context = targetContext(
      routes,
      this.headers.rules,
      this.settings,
      filterRoutesOf(catalogue, pageSize, resources),
    );
    const source: SiteSource = {
      catalogue,
      context,
      headersText: this.headersText,
      prepared: { sorted, texts: this.texts },
    };
    let published: { site: Site; changedFiles: number };
    try {
      published =
        this.site === undefined
          ? await this.writeWhole(source, step)
          : await this.writeChanges(
              source,
              {
                site: this.site,
                routes: this.routes,
                lists: this.routesToRender(routes, sorted),
                resources: this.dirty,
              },
              answersWritten,
            );
    } catch (error) {
      // The folder may hold part of the changes: the next publication writes it whole.
      this.site = undefined;
      throw error;
    }
    this.site = published.site;
    this.routes = routes;
    this.sorted = sorted;
    this.gone.clear();
    this.come.clear();
    this.dirty.clear();
    return {
      routes: routes.length,
      records: this.sources.counts.records,
      outputFiles: published.site.files.size,
      changedFiles: published.changedFiles,
    };
  }

  /** The first publication, or one after a failure: the whole output rendered and written whole, as build() writes it. */
  private async writeWhole(
    source: SiteSource,
    step: (line: string) => void,
  ): Promise<{ site: Site; changedFiles: number }> {
    const site = await renderSite(source, this.settings);
    step(`render: ${source.context.routes.length} routes, ${site.files.size} files`);
    const { outDir } = this.options;
    await writeOutput(outDir, site.files, undefined, { precompress: this.options.precompress ?? true });
    step(`write: ${site.files.size} files into ${outDir}/`);
    return { site, changedFiles: site.files.size };
  }

  /**
   * A change, rendered by the build's stages on what it can alter, each changed file replaced in
   * place: the changed answers, which a client waits for, written as they are rendered, in
   * batches of WRITE_BATCH_BYTES (an event edit renders 15 lists of 2 MB on a large catalogue, and
   * the first is sent while the others are rendered); then, once `answersWritten`, their siblings
   * and the files made from them that changed.
   */
  private async writeChanges(
    source: SiteSource,
    change: SiteChange,
    answersWritten: () => Promise<void>,
  ): Promise<{ site: Site; changedFiles: number }> {
    const { outDir } = this.options;
    const precompress = this.options.precompress ?? true;
    const changes = new Map<string, FileBody | null>();
    let batch = new Map<string, FileBody | null>();
    let batchBytes = 0;
    for (const [file, body] of changedAnswers(source, this.settings, change)) {
      changes.set(file, body);
      batch.set(file, body);
      batchBytes += body === null ? 0 : sizeOf(body);
      if (batchBytes < WRITE_BATCH_BYTES) continue;
      await replaceFiles(outDir, batch, { precompress });
      [batch, batchBytes] = [new Map(), 0];
    }
    if (batch.size > 0) await replaceFiles(outDir, batch, { precompress });
    if (changes.size === 0) return { site: change.site, changedFiles: 0 };
    await answersWritten();
    if (precompress) await writeSiblingsOf(outDir, changes);
    const site = siteAfter(change.site, changes, source.context);
    // The answers are in place already: what is left are the files made from them.
    const made = changesBetween(change.site.files, site.files);
    for (const file of changes.keys()) made.delete(file);
    if (made.size > 0) await replaceFiles(outDir, made, { precompress });
    if (precompress) await writeSiblingsOf(outDir, made);
    return { site, changedFiles: changes.size + made.size };
  }

  /**
   * The routes whose answers the changes since the last publication can alter: every answer
   * showing a changed resource's records, but of a paginated list's pages only those whose items
   * moved, unless the count (which every page shows) changed.
   */
  private routesToRender(routes: readonly Route[], sorted: ReadonlyMap<string, readonly object[]>): Route[] {
    const resources = this.resources;
    const shown = new Set([...this.dirty].flatMap((resource) => shownIn(resource, resources)));
    const paginated = new Set(resources.filter((resource) => resource.paginated).map((resource) => resource.name));
    const chosen = routes.filter((route) => shown.has(route.resource) && !paginated.has(route.resource));
    for (const resource of paginated) {
      if (!shown.has(resource)) continue;
      const now = sorted.get(resource) ?? [];
      const before = this.sorted.get(resource) ?? [];
      const ofResource = routes.filter((route) => route.resource === resource);
      if (now.length !== before.length) {
        chosen.push(...ofResource);
        continue;
      }
      // Unchanged records keep their objects, so the pages from the first record moved to the last are the ones that differ.
      let first = 0;
      while (first < now.length && now[first] === before[first]) first++;
      if (first === now.length) continue;
      let last = now.length - 1;
      while (now[last] === before[last]) last--;
      const { pageSize } = this.options;
      const pages = pageCount(now.length, pageSize);
      const [from, to] = [Math.floor(first / pageSize) + 1, Math.floor(last / pageSize) + 1];
      chosen.push(
        ...ofResource.filter((route) => {
          const page = pageShown(route, pages);
          return page >= from && page <= to;
        }),
      );
    }
    return chosen;
  }

  /** The set of `resource` in `sets`, made when missing. */
  private setOf(sets: Map<string, Set<object>>, resource: string): Set<object> {
    let set = sets.get(resource);
    if (set === undefined) {
      set = new Set();
      sets.set(resource, set);
    }
    return set;
  }
}
