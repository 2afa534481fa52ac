// The live preview's build (`npm run dev`): the catalogue stays in memory (live-sources.ts), and
// after a change only the answers whose bytes it can alter are rendered again, by render.ts's
// own renderers, and only the files whose bytes changed are written, each replaced in place
// (shared/replace-files.ts) in the folder being served. Its first publication is a full build,
// written whole as build() writes it; every later one leaves the folder with the same files and
// bytes as a full build of the data then (test/unit/dev-live.test.ts holds it to that).

import type { HeaderRule } from '../../contract/headers.ts';
import { pageCount } from '../../contract/pagination.ts';
import type { Resource } from '../../contract/resources/resource.ts';
import type { Route } from '../../contract/routes.ts';
import { type FileBody, sameBody, sizeOf } from '../../shared/file-body.ts';
import { replaceFiles, writeSiblingsOf } from '../../shared/replace-files.ts';
import {
  type BuildOptions,
  build,
  publishSite,
  type SiteWriter,
  targetContext,
  withDeclaredQueries,
} from '../build.ts';
import { readHeaders } from '../pipeline/catalogue.ts';
import type { DataError } from '../pipeline/errors.ts';
import { filterRoutesOf } from '../pipeline/prerendered-filters.ts';
import { pageShown, recordTexts, resortedOf, routesOf, sortedOf } from '../pipeline/render.ts';
import { recordsOf } from '../pipeline/validate.ts';
import { LiveSources } from './live-sources.ts';

export type LiveBuildOptions = Pick<
  BuildOptions,
  | 'dataDir'
  | 'outDir'
  | 'headersPath'
  | 'baseUrl'
  | 'pageSize'
  | 'reference'
  | 'precompress'
  | 'resources'
  | 'resourceSettings'
  | 'configPath'
  | 'allowEmpty'
>;

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
  /** Whether `outDir` holds this build's output, which later changes are applied to. */
  private published = false;
  /** The rendered answers and pages: what the targets' files inside the output are made from. */
  private answers = new Map<string, FileBody>();
  /** What `outDir` holds. */
  private written = new Map<string, FileBody>();
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
    options = withDeclaredQueries(options);
    const { text: headersText, ...headers } = await readHeaders(options.headersPath, options.resources);
    let sources: LiveSources;
    if (previous?.dataDir === options.dataDir) {
      sources = previous;
      await sources.reload(changed);
    } else sources = await LiveSources.open(options.dataDir, options.resources);
    return new LiveBuild(options, sources, headersText, headers);
  }

  /**
   * The declarations with the settings file's filters, search and ordering as they are now: the
   * sources, kept from the build this one replaces, may have been read under other settings.
   */
  private get resources(): readonly Resource[] {
    return this.options.resources;
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
      this.published &&
      pageCounts((resource) => recordsOf(catalogue, resource.name).length).join() ===
        pageCounts((resource) => this.sorted.get(resource.name)?.length ?? 0).join();
    const routes = samePages ? this.routes : routesOf(catalogue, pageSize, resources);
    const sorted = new Map<string, readonly object[]>();
    for (const resource of resources.filter(keptSorted)) {
      const before = this.sorted.get(resource.name);
      sorted.set(
        resource.name,
        !this.published || before === undefined
          ? sortedOf(resource, recordsOf(catalogue, resource.name) as object[])
          : resortedOf(resource, before, this.setOf(this.gone, resource.name), [
              ...this.setOf(this.come, resource.name),
            ]),
      );
    }
    const precompress = this.options.precompress ?? true;
    let changedFiles: number;
    try {
      if (!this.published) {
        // The first publication is the build itself, from the catalogue kept here.
        let output = new Map<string, FileBody>();
        await build(
          // Only the output: no target (whose folder is then not read) and no schemas.
          {
            ...this.options,
            targets: [],
            targetsDir: this.options.outDir,
            schemasDir: undefined,
            check: false,
            precompress,
          },
          {
            checked: {
              catalogue,
              routes,
              headersText: this.headersText,
              headerRules: this.headers.rules,
              ...this.sources.counts,
            },
            prepared: { sorted, texts: this.texts },
            step,
            rendered: (site) => {
              this.answers = site.answers;
              output = site.files;
            },
          },
        );
        this.written = output;
        changedFiles = output.size;
        this.published = true;
      } else {
        // The same stages as the build's, on what the changes can alter, each changed file replaced in place.
        const context = targetContext(
          routes,
          this.headers.rules,
          this.options,
          filterRoutesOf(catalogue, pageSize, resources),
        );
        const inPlace = this.inPlaceWriter(precompress, answersWritten);
        const site = await publishSite(
          { catalogue, context, headersText: this.headersText, prepared: { sorted, texts: this.texts } },
          this.options,
          inPlace.writer,
          {
            answers: this.answers,
            routes: this.routes,
            lists: this.routesToRender(routes, sorted),
            resources: this.dirty,
          },
        );
        this.answers = site.answers;
        changedFiles = inPlace.changedFiles();
      }
    } catch (error) {
      // The folder may hold part of the changes: the next publication writes it whole.
      this.published = false;
      throw error;
    }
    this.routes = routes;
    this.sorted = sorted;
    this.gone.clear();
    this.come.clear();
    this.dirty.clear();
    return {
      routes: routes.length,
      records: this.sources.counts.records,
      outputFiles: this.written.size,
      changedFiles,
    };
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

  /**
   * The writer of a change (publishSite's SiteWriter): the changed answers, which a client waits
   * for, written as they are rendered, in batches of WRITE_BATCH_BYTES (an event edit renders 15
   * lists of 2 MB on a large catalogue, and the first is sent while the others are rendered);
   * then, once `answersWritten`, their siblings and the files made from them that changed.
   */
  private inPlaceWriter(
    precompress: boolean,
    answersWritten: () => Promise<void>,
  ): { writer: SiteWriter; changedFiles: () => number } {
    let batch = new Map<string, FileBody | null>();
    let batchBytes = 0;
    let answerChanges = 0;
    let siteChanges = 0;
    const writer: SiteWriter = {
      answer: async (file, body) => {
        batch.set(file, body);
        batchBytes += body === null ? 0 : sizeOf(body);
        if (batchBytes < WRITE_BATCH_BYTES) return;
        await this.apply(batch, precompress);
        [batch, batchBytes] = [new Map(), 0];
      },
      answersDone: async (changes) => {
        await this.apply(batch, precompress);
        answerChanges = changes.size;
        if (changes.size === 0) return;
        await answersWritten();
        if (precompress) await writeSiblingsOf(this.options.outDir, changes);
      },
      site: async (files) => {
        if (answerChanges === 0) return;
        const changes = changesBetween(this.written, files);
        await this.apply(changes, precompress);
        if (precompress) await writeSiblingsOf(this.options.outDir, changes);
        siteChanges = changes.size;
      },
    };
    return { writer, changedFiles: () => answerChanges + siteChanges };
  }

  private async apply(changes: ReadonlyMap<string, FileBody | null>, precompress: boolean): Promise<void> {
    if (changes.size === 0) return;
    await replaceFiles(this.options.outDir, changes, { precompress });
    for (const [file, body] of changes) {
      if (body === null) this.written.delete(file);
      else this.written.set(file, body);
    }
  }
}
