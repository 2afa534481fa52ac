// The records of each resource on one side, and how they changed between two sides, matched by
// `id`: the three plain lists, and the textures' pages joined in page order.

import type { PlainJson } from '../contract/json.ts';
import { type ResourceName, TEXTURES } from '../contract/routes.ts';
import { diffValues, type FieldChange, idOf, sameJson } from './values.ts';

export interface Page {
  count: number;
  next: string | null;
  previous: string | null;
  results: PlainJson[];
}

/** A side's files: each one's bytes by path, decoded only when a comparison needs it. */
export type Files = ReadonlyMap<string, Buffer>;

/** Whether two files (either may be missing) hold the same bytes. */
export function sameBytes(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.equals(b);
}

/** Parses an answer file; undefined when the side lacks it. Nothing is kept: the caller drops it once used. */
export function parsed<T = PlainJson>(files: Files, file: string): T | undefined {
  const bytes = files.get(file);
  return bytes === undefined ? undefined : (JSON.parse(bytes.toString('utf8')) as T);
}

/** The file of page `n` of the textures without `format` (page 1 is the list itself). */
function pageFile(n: number): string {
  return n === 1 ? `${TEXTURES}/index.json` : `${TEXTURES}/page=${n}.json`;
}

/** The bytes of the textures' pages without `format`, in order, from page 1 to the last one the side has. */
export function pageBytes(files: Files): Buffer[] {
  const pages: Buffer[] = [];
  for (let n = 1; ; n++) {
    const bytes = files.get(pageFile(n));
    if (bytes === undefined) return pages;
    pages.push(bytes);
  }
}

/** The textures' pages, parsed from their bytes. */
export function texturePages(pages: readonly Buffer[]): Page[] {
  return pages.map((bytes) => JSON.parse(bytes.toString('utf8')) as Page);
}

/** The file that lists a resource's records, but for the textures, whose records are in pages. */
export function listFile(resource: Exclude<ResourceName, typeof TEXTURES>): string {
  return `${resource}/index.json`;
}

export interface Added {
  id: string;
  record: PlainJson;
}

export interface RecordChange {
  id: string;
  /** The record's `name` after the change, when it has one. */
  name?: string;
  fields: FieldChange[];
}

export interface ResourceDiff {
  resource: ResourceName;
  added: Added[];
  removed: Added[];
  changed: RecordChange[];
}

/** Records added, removed and changed, matched by id; added and changed in the after side's order. */
export function diffRecords(resource: ResourceName, before: PlainJson[], after: PlainJson[]): ResourceDiff {
  const byId = (records: PlainJson[]) => new Map(records.map((record) => [idOf(record) ?? '', record]));
  const old = byId(before);
  const now = byId(after);
  const diff: ResourceDiff = { resource, added: [], removed: [], changed: [] };
  for (const [id, record] of old) if (!now.has(id)) diff.removed.push({ id, record });
  for (const [id, record] of now) {
    const was = old.get(id);
    if (was === undefined) {
      diff.added.push({ id, record });
      continue;
    }
    if (sameJson(was, record)) continue;
    const fields: FieldChange[] = [];
    diffValues('', was, record, fields);
    const name = typeof record === 'object' && record !== null && !Array.isArray(record) ? record.name : undefined;
    if (fields.length > 0) diff.changed.push(typeof name === 'string' ? { id, name, fields } : { id, fields });
  }
  return diff;
}
