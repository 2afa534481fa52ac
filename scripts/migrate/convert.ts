// The service's answers turned into the source data: the records the build validates and the
// files of data/ in the sample's layout. Each record is kept as the service shows it, with two
// exceptions that the format needs (docs/data.md): a fair lists its events by id,
// with only what it shows differently from the event record; and an event record holds the
// short_code the fairs show for it.

import path from 'node:path';
import type { SourceRecord } from '../builder/pipeline/load.ts';
import { Float, type Json, pythonFloat } from '../contract/json.ts';
import { compareStrings } from '../contract/ordering.ts';
import { type ResourceName, TEXTURES } from '../contract/routes.ts';

/** The records of the service's four lists, parsed, each list in the order the service gave it. */
export interface ServiceRecords {
  companies: readonly unknown[];
  events: readonly unknown[];
  fairs: readonly unknown[];
  /** Every page's results, in page order. */
  textures: readonly unknown[];
}

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

/** What a fair shows of an event besides its id, in the API's order; the record's `logo` is shown as `event_logo`. */
const FAIR_EVENT_FIELDS = ['slug', 'name', 'short_code', 'start_date', 'event_logo'] as const;
const recordFieldOf = (field: (typeof FAIR_EVENT_FIELDS)[number]) => (field === 'event_logo' ? 'logo' : field);

const COMPANIES_FILE = 'company/companies.json';
const EVENTS_FILE = 'event/events.json';
const FAIRS_FILE = 'virtualfair/fairs.json';

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
 * The short_code most fairs show for each event, so that the fewest fairs need an object to show
 * another one; on a tie, the one the earliest fair shows. Null for an event no fair shows.
 */
function shortCodes(fairs: readonly unknown[]): Map<unknown, unknown> {
  const tallies = new Map<unknown, Map<string, { value: unknown; count: number }>>();
  for (const fair of fairs) {
    const shown = isFields(fair) && Array.isArray(fair.events) ? fair.events : [];
    for (const event of shown) {
      if (!isFields(event) || !('short_code' in event)) continue;
      const tally = tallies.get(event.id) ?? new Map<string, { value: unknown; count: number }>();
      tallies.set(event.id, tally);
      const key = JSON.stringify(event.short_code);
      const seen = tally.get(key);
      // A Map keeps insertion order, so the first fair's value is first among equal counts.
      if (seen) seen.count += 1;
      else tally.set(key, { value: event.short_code, count: 1 });
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

/** An event record: the fields /event/ shows, with `short_code` after `slug`, as in the sample. */
function eventRecord(event: unknown, shortCode: unknown): unknown {
  if (!isFields(event)) return event;
  const record: Fields = {};
  for (const [key, value] of Object.entries(event)) {
    record[key] = value;
    if (key === 'slug') record.short_code = shortCode;
  }
  if (!('short_code' in record)) record.short_code = shortCode;
  return record;
}

/**
 * A fair's event as the data holds it: the id alone when the event record gives everything the
 * fair shows, else an object with what this fair shows differently (every field when the event
 * has no record). A shown event without an integer id is kept whole, for the build to report.
 */
function fairEventItem(shown: unknown, records: ReadonlyMap<unknown, Fields>): unknown {
  if (!isFields(shown) || typeof shown.id !== 'number') return shown;
  const record = records.get(shown.id);
  const item: Fields = { id: shown.id };
  for (const field of FAIR_EVENT_FIELDS) {
    if (!(field in shown)) continue;
    if (!record || !sameValue(shown[field], record[recordFieldOf(field)])) item[field] = shown[field];
  }
  for (const [key, value] of Object.entries(shown)) {
    if (key !== 'id' && !(FAIR_EVENT_FIELDS as readonly string[]).includes(key)) item[key] = value;
  }
  return Object.keys(item).length === 1 ? shown.id : item;
}

function fairRecord(fair: unknown, records: ReadonlyMap<unknown, Fields>): unknown {
  if (!isFields(fair) || !Array.isArray(fair.events)) return fair;
  return { ...fair, events: fair.events.map((shown) => fairEventItem(shown, records)) };
}

/** A texture's file name: its name as a slug, then the start of its id, as in the sample (`cork-6a1351f2.json`). */
function textureStem(texture: unknown, idLength: number): string {
  const fields = isFields(texture) ? texture : {};
  const name = typeof fields.name === 'string' ? fields.name : '';
  const slug = slugOf(name).slice(0, 60).replace(/-+$/, '') || 'texture';
  const id = String(fields.id ?? '')
    .toLowerCase()
    .replace(/[^0-9a-z]/g, '');
  return `${slug}-${id.slice(0, idLength) || 'no-id'}`;
}

/** Lower-case ASCII letters and digits joined by hyphens; letters with marks lose them. */
function slugOf(name: string): string {
  return name
    .replace(/ß/g, 'ss')
    .replace(/[łŁ]/g, 'l')
    .replace(/[øØ]/g, 'o')
    .replace(/[æÆ]/g, 'ae')
    .replace(/[đĐ]/g, 'd')
    .replace(/ı/g, 'i')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * One file name per texture, the same at each import of the same textures: two textures whose
 * names and first 8 hex digits agree take their whole ids, and a name still shared (ids that
 * differ only in case or punctuation) gets a number, in the service's order.
 */
function textureFiles(textures: readonly unknown[]): string[] {
  const short = textures.map((texture) => textureStem(texture, 8));
  const taken = new Map<string, number>();
  for (const stem of short) taken.set(stem, (taken.get(stem) ?? 0) + 1);
  const long = textures.map((texture, i) =>
    (taken.get(short[i] as string) ?? 0) > 1 ? textureStem(texture, Number.POSITIVE_INFINITY) : (short[i] as string),
  );
  const used = new Map<string, number>();
  return long.map((stem) => {
    const seen = (used.get(stem) ?? 0) + 1;
    used.set(stem, seen);
    return `${TEXTURES}/${seen === 1 ? stem : `${stem}-${seen}`}.json`;
  });
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

function withFloats(fair: unknown): Json {
  if (!isFields(fair) || !isFields(fair.zoom) || typeof fair.zoom.translation_factor_7 !== 'number')
    return fair as Json;
  return { ...fair, zoom: { ...fair.zoom, translation_factor_7: new Float(fair.zoom.translation_factor_7) } } as Json;
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
  resource: ResourceName;
  /** Inside the data folder: `event/events.json`. */
  file: string;
  /** An array of records, or the one record of a texture's file. */
  content: unknown;
  text: (content: unknown) => string;
}

/** The fairs' zoom.translation_factor_7 is a Python float, written `2.0` as the API writes it and the sample keeps it. */
const fairsText = (fairs: unknown) =>
  `${escapeLineSeparators(prettyWithFloats((fairs as unknown[]).map(withFloats)))}\n`;

/**
 * The service's records as data/: `company/companies.json` and `event/events.json` in id order,
 * `virtualfair/fairs.json` in the service's order (the API keeps the data's order of fairs), and
 * one file per texture. Records are kept as shown, so that the build reports what breaks a rule.
 * The files' texts are made only when asked for, after the records have been checked: a large
 * catalogue then never holds both the service's answers and the texts.
 */
export function convert(service: ServiceRecords, dataDir: string): ConvertedData {
  const codes = shortCodes(service.fairs);
  const events = [...service.events]
    .sort(byId)
    .map((event) => eventRecord(event, codes.get(isFields(event) ? event.id : undefined) ?? null));
  const eventsById = new Map<unknown, Fields>();
  for (const event of events) if (isFields(event) && !eventsById.has(event.id)) eventsById.set(event.id, event);
  const textureNames = textureFiles(service.textures);
  const dataFiles: DataFile[] = [
    { resource: 'company', file: COMPANIES_FILE, content: [...service.companies].sort(byId), text: fileText },
    { resource: 'event', file: EVENTS_FILE, content: events, text: fileText },
    {
      resource: 'virtualfair',
      file: FAIRS_FILE,
      content: service.fairs.map((fair) => fairRecord(fair, eventsById)),
      text: fairsText,
    },
    ...service.textures.map(
      (texture, i): DataFile => ({
        resource: TEXTURES,
        file: textureNames[i] as string,
        content: texture,
        text: fileText,
      }),
    ),
  ];
  // The loader reads files in path order; the records follow it, so that a repeated id names the
  // same record as a build of the written files would.
  dataFiles.sort((a, b) => compareStrings(a.file, b.file));
  const records: SourceRecord[] = [];
  for (const { resource, file, content } of dataFiles) {
    const where = path.join(dataDir, file);
    if (Array.isArray(content)) {
      for (const [index, value] of content.entries()) records.push({ resource, file: where, index, value });
    } else records.push({ resource, file: where, index: null, value: content });
  }
  let pending: DataFile[] | undefined = dataFiles;
  const texts = () => {
    if (!pending) throw new Error('the texts of the data files were already made');
    const files = new Map(pending.map((data) => [data.file, data.text(data.content)]));
    pending = undefined;
    return files;
  };
  return { records, texts };
}
