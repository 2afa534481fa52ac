// The records of each resource on one side, and how they changed between two sides, matched by
// `id`: the three plain lists, and the textures' pages joined in page order.

import type { PlainJson } from '../contract/json.ts';
import { diffValues, type FieldChange, idOf, sameJson } from './values.ts';

export const RESOURCE_NAMES = ['company', 'virtualfair', 'event', 'virtualbooth-texture'] as const;
export type ResourceName = (typeof RESOURCE_NAMES)[number];

export const TEXTURES = 'virtualbooth-texture';

export interface Page {
  count: number;
  next: string | null;
  previous: string | null;
  results: PlainJson[];
}

/** Each side's files parsed once, whichever part of the comparison asks first. */
const parsedFiles = new WeakMap<ReadonlyMap<string, string>, Map<string, unknown>>();

/** Parses an answer file (once per side); undefined when the side lacks it. */
export function parsed<T = PlainJson>(files: ReadonlyMap<string, string>, file: string): T | undefined {
  const text = files.get(file);
  if (text === undefined) return undefined;
  let cache = parsedFiles.get(files);
  if (cache === undefined) {
    cache = new Map();
    parsedFiles.set(files, cache);
  }
  if (!cache.has(file)) cache.set(file, JSON.parse(text));
  return cache.get(file) as T;
}

/** The file of page `n` of the textures without `format` (page 1 is the list itself). */
export function pageFile(n: number, format = ''): string {
  const folder = format ? `${TEXTURES}/format=${format}` : TEXTURES;
  if (n === 1) return format ? `${folder}.json` : `${folder}/index.json`;
  return `${folder}/page=${n}.json`;
}

/** The textures' pages without `format`, in order, from page 1 to the last one the side has. */
export function texturePages(files: ReadonlyMap<string, string>): Page[] {
  const pages: Page[] = [];
  for (let n = 1; ; n++) {
    const page = parsed<Page>(files, pageFile(n));
    if (page === undefined) return pages;
    pages.push(page);
  }
}

/** The records of a resource in the order its list answers them. */
export function recordsOf(files: ReadonlyMap<string, string>, resource: ResourceName): PlainJson[] {
  if (resource === TEXTURES) return texturePages(files).flatMap((page) => page.results);
  return parsed<PlainJson[]>(files, `${resource}/index.json`) ?? [];
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
