// Stage 2: check every record against its zod schema (file by file, as they are read), then
// the rules that span records (unique ids, fairs naming existing events that have a logo).
// Every problem is collected.

import type { z } from 'zod';
import { headersFor, parseHeadersFile, type HeaderRule } from '../contract/headers.ts';
import { RESOURCES, type ResourceName } from '../contract/routes.ts';
import { pointerOf, type DataError } from './errors.ts';
import type { SourceRecord } from './load.ts';
import { SCHEMAS, type Company, type Event, type Fair, type Texture } from './schemas.ts';

export interface Catalogue {
  companies: Company[];
  events: Event[];
  /** In source order: the API lists fairs in the order the data gives them. */
  fairs: Fair[];
  textures: Texture[];
}

/** The record's `id` as written, if the record is an object that has one. */
function idOf(value: unknown): unknown {
  return value !== null && typeof value === 'object' && 'id' in value ? value.id : undefined;
}

function recordLabel(record: SourceRecord): string {
  const raw = idOf(record.value);
  const id = raw === undefined ? '' : `id ${JSON.stringify(raw)}`;
  if (record.index === null) return id ? `record ${id}` : 'record';
  return id ? `record ${record.index}, ${id}` : `record ${record.index}`;
}

function at(record: SourceRecord, path: ReadonlyArray<PropertyKey>, message: string): DataError {
  const base = record.index === null ? [] : [record.index];
  return { file: record.file, pointer: pointerOf([...base, ...path]), record: recordLabel(record), message };
}

function snippet(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
};

function describeIssue(record: SourceRecord, issue: z.core.$ZodIssue): DataError[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => at(record, [...issue.path, key], `unexpected field "${key}" (expected only the documented fields)`));
  }
  if (issue.code === 'invalid_type') {
    const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
    if (issue.input === undefined) return [at(record, issue.path, `missing field (expected ${expected})`)];
    return [at(record, issue.path, `expected ${expected}, got ${snippet(issue.input)}`)];
  }
  const message = issue.message.replace(/^Invalid input: /, '');
  return [at(record, issue.path, `${message}, got ${snippet(issue.input)}`)];
}

/** Each string in `value` that holds a lone surrogate, with its path. */
function illFormed(value: unknown, path: PropertyKey[] = []): Array<[PropertyKey[], string]> {
  if (typeof value === 'string') return value.isWellFormed() ? [] : [[path, value]];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => illFormed(item, [...path, Array.isArray(value) ? Number(key) : key]));
}

/** The records of one file (or any records): their schema checks, and what the later rules need. */
export interface Checked {
  /** The records that passed their schema, with their keys in the schema's order (see `inSchemaOrder`). */
  valid: { [R in ResourceName]: unknown[] };
  /** Every record, reduced to what the rules across records read (see `slim`). */
  records: SourceRecord[];
  errors: DataError[];
}

/**
 * A record as the rules across records see it: where it is, its id and a fair's event ids.
 * Without the rest of the parsed value, which can then be collected while it is still young.
 */
function slim(record: SourceRecord): SourceRecord {
  const events = (record.value as { events?: unknown } | null)?.events;
  return { resource: record.resource, file: record.file, index: record.index, value: { id: idOf(record.value), events } };
}

const FIELDS = Object.fromEntries(RESOURCES.map(({ name }) => [name, Object.keys(SCHEMAS[name].shape)])) as Record<ResourceName, string[]>;

/**
 * Whether a valid record's own keys are its schema's, in the schema's order. Then it is kept as
 * parsed: zod's copy of it would hold the same values in the same order, and would be one more
 * object per record for the collector to move until the build ends (about 0.1 s of CPU on the
 * benchmark's 131,000 records). Data written by a program usually has its fields in one order.
 */
function inSchemaOrder(value: object, fields: readonly string[]): boolean {
  const keys = Object.keys(value);
  return keys.length === fields.length && keys.every((key, index) => key === fields[index]);
}

/** Checks each record against its resource's schema, as soon as its file is parsed. */
export function checkSchemas(records: readonly SourceRecord[]): Checked {
  const valid: Checked['valid'] = { company: [], virtualfair: [], event: [], 'virtualbooth-texture': [] };
  const errors: DataError[] = [];
  for (const source of records) {
    const schema = SCHEMAS[source.resource] as z.ZodType;
    const result = schema.safeParse(source.value);
    const broken = source.wellFormed ? [] : illFormed(source.value);
    if (result.success && broken.length === 0) {
      const value = source.value as object;
      valid[source.resource].push(inSchemaOrder(value, FIELDS[source.resource]) ? value : result.data);
      continue;
    }
    if (!result.success) {
      // Parsed again for the messages only: reportInput (the bad value in each issue) makes zod
      // take its slow path, about twice the time on a catalogue that is almost always valid.
      const reported = schema.safeParse(source.value, { reportInput: true });
      errors.push(...(reported.error?.issues ?? []).flatMap((issue) => describeIssue(source, issue)));
    }
    for (const [path, text] of broken) {
      errors.push(at(source, path, `expected well-formed Unicode text (no lone surrogates), got ${snippet(text)}`));
    }
  }
  return { valid, records: records.map(slim), errors };
}

/** Ids are unique per resource; each repeat names the record that used the id first. */
function checkUniqueIds(records: readonly SourceRecord[], errors: DataError[]): void {
  // Keyed by the id itself: 5 and "5" are different ids, as in the source.
  const first = new Map<unknown, SourceRecord>();
  for (const record of records) {
    const id = idOf(record.value);
    if (typeof id !== 'number' && typeof id !== 'string') continue;
    const earlier = first.get(id);
    if (!earlier) first.set(id, record);
    else {
      const where = earlier.index === null ? earlier.file : `${earlier.file}#/${earlier.index}`;
      errors.push(at(record, ['id'], `expected a unique id, but ${snippet(id)} is also used by ${where}`));
    }
  }
}

/**
 * Checks the event ids of every fair, also of fairs that break another rule, so that one run
 * reports all. When an event file could not be read, unknown ids are not reported: they would
 * only repeat that problem.
 */
function checkFairEvents(
  fairRecords: readonly SourceRecord[],
  eventRecords: readonly SourceRecord[],
  events: readonly Event[],
  eventsComplete: boolean,
  errors: DataError[],
): void {
  const known = new Set(eventRecords.map((r) => idOf(r.value)));
  const byId = new Map(events.map((event) => [event.id, event]));
  for (const source of fairRecords) {
    const ids = (source.value as { events?: unknown }).events;
    if (!Array.isArray(ids)) continue;
    ids.forEach((eventId: unknown, i) => {
      if (typeof eventId !== 'number' || !Number.isSafeInteger(eventId) || eventId < 1) return;
      if (known.has(eventId)) {
        if (byId.get(eventId)?.logo === null) {
          errors.push(at(source, ['events', i], `expected an event with a logo (a fair shows event_logo), but event ${eventId} has logo null`));
        }
      } else if (eventsComplete) {
        errors.push(at(source, ['events', i], `expected the id of an event in the event data, got ${eventId}`));
      }
    });
  }
}

/**
 * The rules across records, over the schema checks of every file in source order (so that
 * the API keeps the order of the data, and a repeated id names the earlier record).
 * `eventsComplete` is false when an event file could not be read (see checkFairEvents).
 */
export function checkCatalogue(parts: readonly Checked[], eventsComplete = true): { catalogue: Catalogue; errors: DataError[] } {
  const errors = parts.flatMap((part) => part.errors);
  const valid = <T>(resource: ResourceName) => parts.flatMap((part) => part.valid[resource]) as T[];
  const catalogue: Catalogue = {
    companies: valid<Company>('company'),
    events: valid<Event>('event'),
    fairs: valid<Fair>('virtualfair'),
    textures: valid<Texture>('virtualbooth-texture'),
  };
  const of = new Map<ResourceName, SourceRecord[]>(RESOURCES.map((r) => [r.name, []]));
  for (const part of parts) for (const record of part.records) of.get(record.resource)?.push(record);
  const sources = (resource: ResourceName) => of.get(resource) ?? [];
  for (const resource of of.keys()) checkUniqueIds(sources(resource), errors);
  checkFairEvents(sources('virtualfair'), sources('event'), catalogue.events, eventsComplete, errors);
  return { catalogue, errors };
}

/** Every check of the records at once; the build checks each file as it is read instead. */
export function validate(records: readonly SourceRecord[], eventsComplete = true): { catalogue: Catalogue; errors: DataError[] } {
  // A part per resource, so that schema problems are listed resource by resource.
  const order: ResourceName[] = ['company', 'event', 'virtualfair', 'virtualbooth-texture'];
  const parts = order.map((resource) => checkSchemas(records.filter((record) => record.resource === resource)));
  return checkCatalogue(parts, eventsComplete);
}

/** The headers every list must carry for the API to answer as DRF does (CONTRACT section 2). */
export const REQUIRED_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'application/json',
  Vary: 'Accept',
  Allow: 'GET, HEAD, OPTIONS',
};

/** Checks `_headers`: its syntax, and that each API path gets the headers the contract needs. */
export function validateHeadersFile(file: string, text: string): { rules: HeaderRule[]; errors: DataError[] } {
  const { rules, errors: syntax } = parseHeadersFile(text);
  const errors: DataError[] = syntax.map((e) => ({ file, pointer: '', message: e.message }));
  for (const { path } of RESOURCES) {
    const headers = headersFor(rules, path);
    for (const [name, value] of Object.entries(REQUIRED_HEADERS)) {
      const actual = Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
      if (actual !== value) {
        errors.push({ file, pointer: '', message: `expected the rules for ${path} to set "${name}: ${value}", got ${actual === undefined ? 'none' : `"${actual}"`}` });
      }
    }
  }
  return { rules, errors };
}
