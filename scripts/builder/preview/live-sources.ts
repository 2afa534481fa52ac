// The source data of the live preview (`npm run dev`), kept in memory between changes: each
// file's records, each record checked against its schema, and indexes for the rules across
// records (the records of each id; the fairs that name each event), so that a change reads only
// the files it touched and checks again only the records those rules tie to them. The checks are
// validate.ts's own, and the problems the same as the full build's, in the same order.

import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Embed, Resource } from '../../contract/resources/resource.ts';
import { mapLimited } from '../../shared/map-limited.ts';
import { dataProblems } from '../pipeline/catalogue.ts';
import type { DataError, DataErrors } from '../pipeline/errors.ts';
import { type LoadedFile, loadFile } from '../pipeline/load.ts';
import { type FoundSources, findSources, noRecordProblem, type Source } from '../pipeline/source-files.ts';
import {
  type Catalogue,
  checkEmbedded,
  checkRecord,
  type EmbeddedLookup,
  embeddedIds,
  emptyCatalogue,
  idOf,
  isCheckedId,
  repeatedIdError,
} from '../pipeline/validate.ts';

const READ_CONCURRENCY = 64;

interface SourceFile extends LoadedFile {
  source: Source;
  /** What stat() tells of the file (through a link, of its target): it changes when the file does. */
  version: string;
  /** zod's output of each record; undefined for an invalid one. */
  outputs: unknown[];
  /** Its records' problems with their schemas, in record order. */
  recordErrors: DataError[];
  /** Of a file of a resource that embeds another (a fair file): its records' problems with the embedded records. */
  embedErrors: DataError[];
  /** Its place in source order (path order), which the first record of a repeated id is taken in. */
  position: number;
}

/** A record by its place: the file it is in and its index in that file's records. */
interface RecordAt {
  file: SourceFile;
  index: number;
}

const inSourceOrder = (a: RecordAt, b: RecordAt) => a.file.position - b.file.position || a.index - b.index;

async function versionOf(file: string): Promise<string> {
  const stats = await stat(file).catch(() => undefined);
  return stats ? `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}` : '';
}

/** Whether `file` is one of `changed` or inside one of them (a folder made, removed or replaced). */
function isNamed(file: string, changed: readonly string[]): boolean {
  const absolute = path.resolve(file);
  return changed.some((named) => absolute === named || absolute.startsWith(`${named}${path.sep}`));
}

/** What a reload changed. */
export interface SourceChanges {
  /** The resources whose records may have changed. */
  resources: Set<string>;
  /** Of each resource, zod's outputs of the valid records gone (their files removed or read again). */
  gone: Map<string, unknown[]>;
  /** Of each resource, zod's outputs of the valid records read. */
  come: Map<string, unknown[]>;
}

export class LiveSources {
  private found: FoundSources = { sources: [], errors: [], warnings: [], incomplete: new Set() };
  /** By path, in source order. */
  private files = new Map<string, SourceFile>();
  /** Each resource's records by id (ids that the uniqueness rule checks), in source order. */
  private readonly byId = new Map<string, Map<number | string, RecordAt[]>>();
  /** The problems of each repeated id: one per record after the first. */
  private readonly repeats = new Map<string, Map<number | string, { error: DataError; at: RecordAt }[]>>();
  /** Of each resource that embeds another (the fairs), its files that name each embedded id. */
  private readonly naming = new Map<string, Map<number, Set<SourceFile>>>();
  /** Of each embedded resource, whether all its files could be read. */
  private readonly complete = new Map<string, boolean>();

  private constructor(
    readonly dataDir: string,
    readonly resources: readonly Resource[],
  ) {
    for (const resource of resources) {
      this.byId.set(resource.name, new Map());
      this.repeats.set(resource.name, new Map());
      if (resource.embeds) {
        this.naming.set(resource.name, new Map());
        this.complete.set(resource.embeds.resource, true);
      }
    }
  }

  /** Every source file of `dataDir`, read and checked, of the resources declared. */
  static async open(dataDir: string, resources: readonly Resource[]): Promise<LiveSources> {
    const sources = new LiveSources(dataDir, resources);
    await sources.reload([dataDir]);
    return sources;
  }

  /** Files skipped because nobody means them as data, as of the last reload. */
  get warnings(): readonly DataError[] {
    return this.found.warnings;
  }

  get counts(): { records: number; sourceFiles: number; sourceBytes: number } {
    let records = 0;
    let sourceBytes = 0;
    for (const file of this.files.values()) {
      records += file.records.length;
      sourceBytes += file.bytes;
    }
    return { records, sourceFiles: this.files.size, sourceBytes };
  }

  /**
   * Brings the records up to date after `changed` (files, or folders made, removed or replaced):
   * the folder is listed again, and a file is read again when it is new, named, or its stat()
   * changed (a file reached through a link changes under another name).
   */
  async reload(changed: readonly string[]): Promise<SourceChanges> {
    const named = changed.map((file) => path.resolve(file));
    // The files known are looked at while the folder is listed; a file new to the list is read anyway.
    const known = [...this.files.keys()];
    const [found, knownVersions] = await Promise.all([
      findSources(
        this.dataDir,
        this.resources.map((resource) => resource.name),
      ),
      mapLimited(known, READ_CONCURRENCY, versionOf),
    ]);
    this.found = found;
    const { sources } = found;
    const versions = new Map(known.map((file, index) => [file, knownVersions[index] as string]));
    const kept = new Map<string, SourceFile>();
    const toLoad: Source[] = [];
    for (const source of sources) {
      const previous = this.files.get(source.file);
      const unchanged =
        previous?.source.resource === source.resource &&
        previous.version === versions.get(source.file) &&
        !isNamed(source.file, named);
      if (unchanged) kept.set(source.file, previous);
      else toLoad.push(source);
    }
    const dirty = new Set<string>();
    const outputs = () => new Map<string, unknown[]>(this.resources.map((resource) => [resource.name, []]));
    const [gone, come] = [outputs(), outputs()];
    const touched = new Map<string, Set<number | string>>(this.resources.map((resource) => [resource.name, new Set()]));
    for (const [file, previous] of this.files) {
      if (kept.has(file)) continue;
      this.unindex(previous, touched);
      dirty.add(previous.source.resource);
      gone.get(previous.source.resource)?.push(...previous.outputs.filter((output) => output !== undefined));
    }
    const loaded = await mapLimited(toLoad, READ_CONCURRENCY, async (source): Promise<SourceFile> => {
      const recordErrors: DataError[] = [];
      // Before the read: a change after it shows as a new version at the next reload.
      const version = await versionOf(source.file);
      const file = await loadFile(source);
      const outputs = file.records.map((record) => checkRecord(record, recordErrors, this.resources));
      return { ...file, source, version, outputs, recordErrors, embedErrors: [], position: 0 };
    });
    const byPath = new Map(loaded.map((file) => [file.source.file, file]));
    this.files = new Map();
    sources.forEach((source, position) => {
      const file = (kept.get(source.file) ?? byPath.get(source.file)) as SourceFile;
      file.position = position;
      this.files.set(source.file, file);
    });
    for (const file of loaded) {
      this.index(file, touched);
      dirty.add(file.source.resource);
      come.get(file.source.resource)?.push(...file.outputs.filter((output) => output !== undefined));
    }
    for (const [resource, ids] of touched) for (const id of ids) this.checkRepeats(resource, id);

    for (const resource of this.resources) {
      const { embeds } = resource;
      if (embeds === undefined) continue;
      const embedded = embeds.resource;
      const complete =
        !this.found.incomplete.has(embedded) &&
        ![...this.files.values()].some((file) => file.failed && file.source.resource === embedded);
      const ofResource = (file: SourceFile) => file.source.resource === resource.name;
      const toCheck = new Set(loaded.filter(ofResource));
      if (complete !== this.complete.get(embedded)) {
        this.complete.set(embedded, complete);
        for (const file of this.files.values()) if (ofResource(file)) toCheck.add(file);
      }
      const naming = this.naming.get(resource.name);
      for (const id of touched.get(embedded) ?? []) {
        if (typeof id === 'number') for (const file of naming?.get(id) ?? []) toCheck.add(file);
      }
      const lookup = this.lookup(embedded);
      for (const file of toCheck) {
        file.embedErrors = [];
        for (const record of file.records) checkEmbedded(record, embeds, lookup, complete, file.embedErrors);
      }
    }
    return { resources: dirty, gone, come };
  }

  /** The valid records in source order, as validate() gives them. */
  catalogue(): Catalogue {
    const { catalogue, listOf } = emptyCatalogue(this.resources);
    for (const file of this.files.values()) {
      const list = listOf[file.source.resource] as unknown[];
      for (const output of file.outputs) if (output !== undefined) list.push(output);
    }
    return catalogue;
  }

  /**
   * Every problem of the data and of `headerErrors`, as the full build reports them, or undefined
   * when there is none. They are gathered in the order validate() finds them (each record's own,
   * then the repeated ids, then the fairs' events), which the sort by place keeps within a record.
   */
  problems(headerErrors: readonly DataError[], allowEmpty = false): Promise<DataErrors | undefined> {
    const files = [...this.files.values()];
    const loadErrors = [...this.found.errors, ...files.flatMap((file) => file.errors)];
    const names = this.resources.map((resource) => resource.name);
    loadErrors.push(...noRecordProblem(this.dataDir, names, this.counts.records, loadErrors, allowEmpty));
    const repeats = this.resources.flatMap(({ name }) =>
      [...(this.repeats.get(name)?.values() ?? [])].flat().sort((a, b) => inSourceOrder(a.at, b.at)),
    );
    const validateErrors = [
      ...files.flatMap((file) => file.recordErrors),
      ...repeats.map(({ error }) => error),
      ...files.flatMap((file) => file.embedErrors),
    ];
    return dataProblems(headerErrors, loadErrors, validateErrors);
  }

  /** What the rules of an embed read of the `resource` records: any record with the id, and the values of the last valid one. */
  private lookup(resource: string): EmbeddedLookup {
    const records = this.byId.get(resource) as Map<number | string, RecordAt[]>;
    return {
      has: (id) => (records.get(id)?.length ?? 0) > 0,
      valueOf: (id, field) => {
        const ofId = records.get(id) ?? [];
        for (let i = ofId.length - 1; i >= 0; i--) {
          const { file, index } = ofId[i] as RecordAt;
          const output = file.outputs[index] as Record<string, unknown> | undefined;
          if (output !== undefined) return output[field];
        }
        return undefined;
      },
    };
  }

  /** The embed of `resource`, if it embeds another resource's records. */
  private embedOf(resource: string): Embed | undefined {
    return this.resources.find((one) => one.name === resource)?.embeds;
  }

  private index(file: SourceFile, touched: Map<string, Set<number | string>>): void {
    const { resource } = file.source;
    const [embed, naming] = [this.embedOf(resource), this.naming.get(resource)];
    const ids = this.byId.get(resource) as Map<number | string, RecordAt[]>;
    file.records.forEach((record, index) => {
      const id = idOf(record.value);
      if (isCheckedId(id)) {
        const records = ids.get(id);
        if (records) records.push({ file, index });
        else ids.set(id, [{ file, index }]);
        touched.get(resource)?.add(id);
      }
      if (embed && naming) {
        for (const embeddedId of embeddedIds(embed, record.value)) {
          const files = naming.get(embeddedId);
          if (files) files.add(file);
          else naming.set(embeddedId, new Set([file]));
        }
      }
    });
  }

  private unindex(file: SourceFile, touched: Map<string, Set<number | string>>): void {
    const { resource } = file.source;
    const [embed, naming] = [this.embedOf(resource), this.naming.get(resource)];
    const ids = this.byId.get(resource) as Map<number | string, RecordAt[]>;
    for (const record of file.records) {
      const id = idOf(record.value);
      if (isCheckedId(id)) {
        const left = (ids.get(id) ?? []).filter((at) => at.file !== file);
        if (left.length > 0) ids.set(id, left);
        else ids.delete(id);
        touched.get(resource)?.add(id);
      }
      if (embed && naming) {
        for (const embeddedId of embeddedIds(embed, record.value)) {
          const files = naming.get(embeddedId);
          files?.delete(file);
          if (files?.size === 0) naming.delete(embeddedId);
        }
      }
    }
  }

  /** The problems of one id of `resource`: each record after the first in source order repeats it. */
  private checkRepeats(resource: string, id: number | string): void {
    const repeats = this.repeats.get(resource) as Map<number | string, { error: DataError; at: RecordAt }[]>;
    const records = (this.byId.get(resource)?.get(id) ?? []).sort(inSourceOrder);
    const [first, ...others] = records;
    if (first === undefined || others.length === 0) {
      repeats.delete(id);
      return;
    }
    const record = (at: RecordAt) => at.file.records[at.index] as (typeof at.file.records)[number];
    repeats.set(
      id,
      others.map((at) => ({ error: repeatedIdError(record(at), record(first)), at })),
    );
  }
}
