// The service's answers turned into the source data: the records the build validates and the
// files of data/ (which file each record goes in: layout.ts), each from the declarations. Each record is kept as the
// service shows it, with two exceptions that the format needs (docs/data.md): a record that
// embeds another's (a fair, its events) lists them by id, with only what it shows differently
// from the embedded record; and an embedded record holds the fields its own list does not show
// but the embedding records do (an event's short_code).

import path from 'node:path';
import { z } from 'zod';
import type { SourceRecord } from '../builder/pipeline/load.ts';
import { Float, type Json, pythonFloat } from '../contract/json.ts';
import { compareStrings } from '../contract/ordering.ts';
import { fieldKinds } from '../contract/resources/fields.ts';
import type { Embed, Resource } from '../contract/resources/resource.ts';
import { layoutOf } from './layout.ts';

/**
 * The records of the service's lists, parsed, by resource name, each list in the order the
 * service gave it (a paginated list's pages joined in page order).
 */
export type ServiceRecords = ReadonlyMap<string, readonly unknown[]>;

export interface ConvertedData {
  /** The records as the build's loader would read them from the files, in its order. */
  records: SourceRecord[];
  /**
   * The files of data/: path inside the data folder → text. Once only: the records are let go
   * as their texts are made, so that a large catalogue is not held twice while it is written.
   */
  texts: () => Map<string, string>;
}

type Fields = Record<string, unknown>;

/** The fields a record shows of an embedded one besides its id, in the API's order (`event_logo`, the record's `logo`). */
const shownFields = (embed: Embed) => Object.keys(embed.shows).filter((field) => field !== 'id');

/** A field of a record that its list does not show (an event's `short_code`), and the field it follows in the record. */
interface Unlisted {
  field: string;
  after: string | undefined;
}

/** The fields of a record that its list does not show: the embedding records show them. */
function unlistedFields(resource: Resource): Unlisted[] {
  if (resource.listed === undefined) return [];
  const record = resource.record(fieldKinds(z)) as unknown as { shape?: Record<string, unknown> };
  const keys = Object.keys(record.shape ?? {});
  return keys
    .map((field, i) => ({ field, after: keys[i - 1] }))
    .filter(({ field }) => !resource.listed?.includes(field));
}

function isFields(value: unknown): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Equal as JSON values: the service's fields are strings, null or small objects. */
function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));
}

/** Ids in numeric order when they are numbers, as the sample keeps companies and events. */
function byId(a: unknown, b: unknown): number {
  const x = isFields(a) ? a.id : undefined;
  const y = isFields(b) ? b.id : undefined;
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  if (typeof x === 'number') return -1;
  if (typeof y === 'number') return 1;
  return compareStrings(String(x), String(y));
}

/**
 * The value most embedding records show of `field` for each embedded record (the short_code most
 * fairs show for each event), so that the fewest need an object to show another one; on a tie,
 * the one the earliest shows. Null for a record none shows.
 */
function mostShown(owners: readonly unknown[], embed: Embed, field: string): Map<unknown, unknown> {
  const tallies = new Map<unknown, Map<string, { value: unknown; count: number }>>();
  for (const owner of owners) {
    const shown = isFields(owner) && Array.isArray(owner[embed.field]) ? (owner[embed.field] as unknown[]) : [];
    for (const item of shown) {
      if (!isFields(item) || !(field in item)) continue;
      const tally = tallies.get(item.id) ?? new Map<string, { value: unknown; count: number }>();
      tallies.set(item.id, tally);
      const key = JSON.stringify(item[field]);
      const seen = tally.get(key);
      // A Map keeps insertion order, so the first owner's value is first among equal counts.
      if (seen) seen.count += 1;
      else tally.set(key, { value: item[field], count: 1 });
    }
  }
  const chosen = new Map<unknown, unknown>();
  for (const [id, tally] of tallies) {
    let best: { value: unknown; count: number } | undefined;
    for (const candidate of tally.values()) if (!best || candidate.count > best.count) best = candidate;
    chosen.set(id, best?.value ?? null);
  }
  return chosen;
}

/**
 * A record as its list shows it, with the fields the list does not show (an event's `short_code`)
 * after the field they follow in the record, as in the sample; at the end when that one is missing.
 */
function withUnlisted(record: unknown, unlisted: readonly Unlisted[], given: (field: string) => unknown): unknown {
  if (!isFields(record) || unlisted.length === 0) return record;
  const full: Fields = {};
  for (const [key, value] of Object.entries(record)) {
    full[key] = value;
    for (const { field, after } of unlisted) if (after === key) full[field] = given(field);
  }
  for (const { field } of unlisted) if (!(field in full)) full[field] = given(field);
  return full;
}

/**
 * An embedded item as the data holds it (a fair's event): the id alone when the embedded record
 * gives everything shown, else an object with what is shown differently (every field when there
 * is no record). An item without an integer id is kept whole, for the build to report.
 */
function embeddedItem(shown: unknown, embed: Embed, records: ReadonlyMap<unknown, Fields>): unknown {
  if (!isFields(shown) || typeof shown.id !== 'number') return shown;
  const record = records.get(shown.id);
  const item: Fields = { id: shown.id };
  const fields = shownFields(embed);
  for (const field of fields) {
    if (!(field in shown)) continue;
    if (!record || !sameValue(shown[field], record[embed.shows[field] as string])) item[field] = shown[field];
  }
  for (const [key, value] of Object.entries(shown)) {
    if (key !== 'id' && !fields.includes(key)) item[key] = value;
  }
  return Object.keys(item).length === 1 ? shown.id : item;
}

function embeddingRecord(owner: unknown, embed: Embed, records: ReadonlyMap<unknown, Fields>): unknown {
  if (!isFields(owner) || !Array.isArray(owner[embed.field])) return owner;
  return {
    ...owner,
    [embed.field]: (owner[embed.field] as unknown[]).map((shown) => embeddedItem(shown, embed, records)),
  };
}

/** A data file's text as the sample writes it: two-space indents and a final newline. */
function fileText(value: unknown): string {
  return `${escapeLineSeparators(JSON.stringify(value, null, 2))}\n`;
}

/** U+2028 and U+2029 escaped, as the sample writes them: raw, an editor shows them as nothing or as a line break. */
function escapeLineSeparators(text: string): string {
  if (!text.includes('\u2028') && !text.includes('\u2029')) return text;
  return text.replace(/[\u2028\u2029]/g, (char) => (char === '\u2028' ? '\\u2028' : '\\u2029'));
}

/** The value with the number at the dotted `field` made a Float; unchanged when there is none. */
function withFloat(value: unknown, field: string): unknown {
  const [key, ...rest] = field.split('.') as [string, ...string[]];
  if (!isFields(value) || !(key in value)) return value;
  const inner = value[key];
  if (rest.length > 0) {
    const changed = withFloat(inner, rest.join('.'));
    return changed === inner ? value : { ...value, [key]: changed };
  }
  return typeof inner === 'number' ? { ...value, [key]: new Float(inner) } : value;
}

/** JSON.stringify(value, null, 2), but a Float keeps its Python form: how a file of data/ is written. */
export function prettyWithFloats(value: Json, indent = ''): string {
  if (value instanceof Float) return pythonFloat(value.value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => inner + prettyWithFloats(item, inner)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const lines = entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${prettyWithFloats(item, inner)}`);
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

/** A file of data/: where it goes, what it holds, and how its text is written. */
interface DataFile {
  resource: string;
  /** Inside the data folder: `event/events.json`. */
  file: string;
  records: unknown[];
  text: (records: unknown[]) => string;
}

/**
 * A list's text with its float fields (a fair's zoom.translation_factor_7) written as Python
 * floats, `2.0`, as the API writes them and the sample keeps them.
 */
const floatsText = (floats: readonly string[]) => (records: unknown[]) =>
  `${escapeLineSeparators(prettyWithFloats(records.map((record) => floats.reduce(withFloat, record) as Json)))}\n`;

/** The ids' records of a converted list, the first of each id. */
function byIdOf(records: readonly unknown[]): Map<unknown, Fields> {
  const found = new Map<unknown, Fields>();
  for (const record of records) if (isFields(record) && !found.has(record.id)) found.set(record.id, record);
  return found;
}

/**
 * A list's records as data/ holds them: in the service's order for a list in the data's order,
 * else by id; with the fields its list does not show, as its embedding records show them.
 */
function dataRecords(resource: Resource, service: ServiceRecords, resources: readonly Resource[]): unknown[] {
  const shown = service.get(resource.name) ?? [];
  const records = resource.order === 'source' ? [...shown] : [...shown].sort(byId);
  const unlisted = unlistedFields(resource);
  if (unlisted.length === 0) return records;
  const owner = resources.find((other) => other.embeds?.resource === resource.name);
  const embed = owner?.embeds;
  const values = new Map(
    unlisted.map(({ field }) => {
      const shownAs = embed && Object.keys(embed.shows).find((key) => embed.shows[key] === field);
      const chosen = owner && embed && shownAs ? mostShown(service.get(owner.name) ?? [], embed, shownAs) : new Map();
      return [field, chosen] as const;
    }),
  );
  return records.map((record) =>
    withUnlisted(record, unlisted, (field) => values.get(field)?.get(isFields(record) ? record.id : undefined) ?? null),
  );
}

/**
 * The service's records as data/: each list by id unless the API keeps the data's order, in the
 * files layout.ts gives it. Records are kept as shown, so that the build reports what breaks a rule.
 * The files' texts are made only when asked for, after the records have been checked: a large
 * catalogue then never holds both the service's answers and the texts.
 */
export function convert(service: ServiceRecords, dataDir: string, resources: readonly Resource[]): ConvertedData {
  const listed = new Map<string, unknown[]>();
  for (const resource of resources) listed.set(resource.name, dataRecords(resource, service, resources));
  // A record that embeds another's lists what it shows differently from the embedded record.
  for (const { name, embeds } of resources) {
    if (embeds === undefined) continue;
    const embedded = byIdOf(listed.get(embeds.resource) ?? []);
    listed.set(
      name,
      (listed.get(name) ?? []).map((owner) => embeddingRecord(owner, embeds, embedded)),
    );
  }
  const dataFiles: DataFile[] = resources.flatMap((resource) => {
    const text = resource.floats?.length ? floatsText(resource.floats) : fileText;
    return layoutOf(resource, listed.get(resource.name) ?? []).map(({ file, records }) => ({
      resource: resource.name,
      file,
      records,
      text,
    }));
  });
  // The loader reads files in path order; the records follow it, so that a repeated id names the
  // same record as a build of the written files would.
  dataFiles.sort((a, b) => compareStrings(a.file, b.file));
  const records: SourceRecord[] = [];
  for (const { resource, file, records: values } of dataFiles) {
    const where = path.join(dataDir, file);
    for (const [index, value] of values.entries()) records.push({ resource, file: where, index, value });
  }
  let pending: DataFile[] | undefined = dataFiles;
  const texts = () => {
    if (!pending) throw new Error('the texts of the data files were already made');
    const files = new Map(pending.map((data) => [data.file, data.text(data.records)]));
    pending = undefined;
    return files;
  };
  return { records, texts };
}
