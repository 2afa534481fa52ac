// How two values of one record differ, field by field: nested objects by their keys, lists of
// objects by their own `id`, lists of plain values (a texture's `categories`) by value.

import type { PlainJson } from '../contract/json.ts';

/** One field that differs; `before` or `after` is absent when the value is added or removed. */
export interface FieldChange {
  /** `name`, `tiles.max_zoom`, `events[id=386].start_date`, `categories[]`. */
  path: string;
  before?: PlainJson;
  after?: PlainJson;
}

type JsonObject = { [key: string]: PlainJson };

function isObject(value: PlainJson | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality of two parsed JSON values (keys in the same order, as the API writes them). */
export function sameJson(a: PlainJson | undefined, b: PlainJson | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!sameJson(a[index], b[index])) return false;
    return true;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (!(key in b) || !sameJson(a[key], b[key])) return false;
  return true;
}

/** The record's id as a key: ids are numbers or strings, never both in one list. */
export function idOf(value: PlainJson | undefined): string | undefined {
  if (!isObject(value)) return undefined;
  const id = value.id;
  return typeof id === 'number' || typeof id === 'string' ? String(id) : undefined;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function diffById(path: string, before: PlainJson[], after: PlainJson[], out: FieldChange[]): void {
  const old = new Map(before.map((item) => [idOf(item) as string, item]));
  const now = new Map(after.map((item) => [idOf(item) as string, item]));
  for (const [id, item] of old) if (!now.has(id)) out.push({ path: `${path}[id=${id}]`, before: item });
  for (const [id, item] of now) {
    const was = old.get(id);
    if (was === undefined) out.push({ path: `${path}[id=${id}]`, after: item });
    else diffValues(`${path}[id=${id}]`, was, item, out);
  }
  const kept = (ids: Iterable<string>, other: Map<string, PlainJson>) => [...ids].filter((id) => other.has(id));
  const orderBefore = kept(old.keys(), now);
  const orderAfter = kept(now.keys(), old);
  if (orderBefore.join('\0') !== orderAfter.join('\0')) {
    out.push({ path: `${path} (order of ids)`, before: orderBefore, after: orderAfter });
  }
}

function diffByValue(path: string, before: PlainJson[], after: PlainJson[], out: FieldChange[]): void {
  const key = (item: PlainJson) => JSON.stringify(item);
  const old = new Set(before.map(key));
  const now = new Set(after.map(key));
  for (const item of before) if (!now.has(key(item))) out.push({ path: `${path}[]`, before: item });
  for (const item of after) if (!old.has(key(item))) out.push({ path: `${path}[]`, after: item });
  if (old.size === now.size && [...old].every((item) => now.has(item))) {
    out.push({ path: `${path} (order)`, before, after });
  }
}

/** Appends to `out` every difference between `before` and `after`, found under `path`. */
export function diffValues(path: string, before: PlainJson, after: PlainJson, out: FieldChange[]): void {
  if (sameJson(before, after)) return;
  if (Array.isArray(before) && Array.isArray(after)) {
    const all = [...before, ...after];
    if (all.length > 0 && all.every((item) => idOf(item) !== undefined)) diffById(path, before, after, out);
    else if (all.every((item) => !isObject(item) && !Array.isArray(item))) diffByValue(path, before, after, out);
    else out.push({ path, before, after });
    return;
  }
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(before)) {
      if (!(key in after)) out.push({ path: join(path, key), before: before[key] as PlainJson });
      else diffValues(join(path, key), before[key] as PlainJson, after[key] as PlainJson, out);
    }
    for (const key of Object.keys(after)) {
      if (!(key in before)) out.push({ path: join(path, key), after: after[key] as PlainJson });
    }
    return;
  }
  out.push({ path, before, after });
}
