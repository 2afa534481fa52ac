// The records of each resource on one side, and how they changed between two sides, matched by
// `id`: a plain list as it is, a paginated one with its pages joined in page order.

import type { PlainJson } from '../contract/json.ts';
import { fileFor, type Routed } from '../contract/routes.ts';
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

/** The file of page `n` of a paginated list without `format` (page 1 is the list itself). */
function pageFile(resource: Routed, n: number): string {
  return fileFor(resource.path, n === 1 ? {} : { page: String(n) });
}

/** The bytes of a paginated list's pages without `format`, in order, from page 1 to the last one the side has. */
export function pageBytes(files: Files, resource: Routed): Buffer[] {
  const pages: Buffer[] = [];
  for (let n = 1; ; n++) {
    const bytes = files.get(pageFile(resource, n));
    if (bytes === undefined) return pages;
    pages.push(bytes);
  }
}

/** A paginated list's pages, parsed from their bytes. */
export function parsePages(pages: readonly Buffer[]): Page[] {
  return pages.map((bytes) => JSON.parse(bytes.toString('utf8')) as Page);
}

/** The file that lists the records of a list that is not paginated. */
export function listFile(resource: Routed): string {
  return fileFor(resource.path, {});
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
  /** The resource's name. */
  resource: string;
  added: Added[];
  removed: Added[];
  changed: RecordChange[];
}

/** Records added, removed and changed, matched by id; added and changed in the after side's order. */
export function diffRecords(resource: string, before: PlainJson[], after: PlainJson[]): ResourceDiff {
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
