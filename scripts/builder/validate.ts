// Stage 2: check every record against its zod schema (schemas.ts holds every rule of a record),
// then the rules that span records (unique ids, fairs naming existing events that have a logo).
// Every problem is collected.

import type { z } from 'zod';
import { type HeaderRule, headersFor, parseHeadersFile } from '../contract/headers.ts';
import { RESOURCES, type ResourceName } from '../contract/routes.ts';
import { type DataError, pointerOf } from './errors.ts';
import type { SourceRecord } from './load.ts';
import { likelyMisspellings } from './misspellings.ts';
import { type Company, type Event, type Fair, SCHEMAS, type Texture } from './schemas.ts';

export interface Catalogue {
  companies: Company[];
  events: Event[];
  /** In source order: the API lists fairs in the order the data gives them. */
  fairs: Fair[];
  textures: Texture[];
}

/** The record's `id` as written, if the record is an object that has one. */
export function idOf(value: unknown): unknown {
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

/**
 * A record's issues as problems. An unknown field that likely misspells a missing one is
 * reported once, with the field it should be, and the missing field is not reported.
 */
function describeIssues(record: SourceRecord, issues: readonly z.core.$ZodIssue[]): DataError[] {
  const { meant, misspelt } = likelyMisspellings(issues);
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key): DataError => {
        const path = [...issue.path, key];
        const field = meant.get(pointerOf(path));
        const message =
          field === undefined
            ? `unexpected field "${key}" (expected only the documented fields)`
            : `unknown field "${key}": did you mean "${field}"?`;
        return { ...at(record, path, message), subject: 'key' };
      });
    }
    if (issue.code === 'invalid_type') {
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      if (issue.input === undefined) {
        if (misspelt.has(pointerOf(issue.path))) return [];
        return [at(record, issue.path, `missing field (expected ${expected})`)];
      }
      return [at(record, issue.path, `expected ${expected}, got ${snippet(issue.input)}`)];
    }
    const message = issue.message.replace(/^Invalid input: /, '');
    return [at(record, issue.path, `${message}, got ${snippet(issue.input)}`)];
  });
}

/** Checks a record against its resource's schema: zod's output when valid, else every problem. */
export function checkRecord(source: SourceRecord, errors: DataError[]): unknown {
  const schema = SCHEMAS[source.resource] as z.ZodType;
  const result = schema.safeParse(source.value);
  if (result.success) return result.data;
  // Parsed again for the messages only: reportInput (the bad value in each issue) makes zod
  // take its slow path, and a catalogue is almost always valid.
  const reported = schema.safeParse(source.value, { reportInput: true });
  errors.push(...describeIssues(source, reported.error?.issues ?? []));
  return undefined;
}

/** Whether an id takes part in the uniqueness rule: 5 and "5" are different ids, as in the source. */
export function isCheckedId(id: unknown): id is number | string {
  return typeof id === 'number' || typeof id === 'string';
}

/** The problem of `record`, which repeats the id that `earlier` (before it in source order) uses. */
export function repeatedIdError(record: SourceRecord, earlier: SourceRecord): DataError {
  return {
    ...at(record, ['id'], `expected a unique id, but ${snippet(idOf(record.value))} is also used by`),
    seeAlso: { file: earlier.file, pointer: pointerOf(earlier.index === null ? ['id'] : [earlier.index, 'id']) },
  };
}

/** Ids are unique per resource; each repeat names the record that used the id first. */
function checkUniqueIds(records: readonly SourceRecord[], errors: DataError[]): void {
  // Keyed by the id itself: 5 and "5" are different ids, as in the source.
  const first = new Map<unknown, SourceRecord>();
  for (const record of records) {
    const id = idOf(record.value);
    if (!isCheckedId(id)) continue;
    const earlier = first.get(id);
    if (!earlier) first.set(id, record);
    else errors.push(repeatedIdError(record, earlier));
  }
}

// What a fair event given as an object must hold itself when no event record has its id.
const FAIR_EVENT_FIELDS = ['slug', 'name', 'short_code', 'start_date', 'event_logo'] as const;
const EVERY_FAIR_EVENT_FIELD = 'slug, name, short_code, start_date and event_logo';

const isEventId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;

/** What the fair rules need to know of the event records. */
export interface EventLookup {
  /** Whether an event record (valid or not) has this id. */
  has(id: number): boolean;
  /** The logo of the valid event record with this id (the last one, if repeated). */
  logoOf(id: number): string | null | undefined;
}

/** Each item of a fair's `events` that names an event id, alone or in an object, with its index. */
function namedEvents(fair: unknown): Array<{ eventId: number; given: object | null; index: number }> {
  const items = (fair as { events?: unknown } | null)?.events;
  if (!Array.isArray(items)) return [];
  const named: Array<{ eventId: number; given: object | null; index: number }> = [];
  items.forEach((item: unknown, index) => {
    const given = item !== null && typeof item === 'object' && !Array.isArray(item) ? item : null;
    const eventId = given ? idOf(given) : item;
    if (isEventId(eventId)) named.push({ eventId, given, index });
  });
  return named;
}

/** The event ids a fair record names: the events whose records its rules read. */
export function fairEventIds(fair: unknown): number[] {
  return namedEvents(fair).map(({ eventId }) => eventId);
}

/**
 * Checks the events of one fair against the event records, also of a fair that breaks another
 * rule, so that one run reports all: each event id, alone or in an object, names an event
 * record whose logo the fair shows, unless the object gives event_logo; an object whose id no
 * event record has gives every field itself. When an event file could not be read, unknown ids
 * are not reported: they would only repeat that problem.
 */
export function checkFairEvents(
  source: SourceRecord,
  events: EventLookup,
  eventsComplete: boolean,
  errors: DataError[],
): void {
  const seen = new Set<number>();
  for (const { eventId, given, index: i } of namedEvents(source.value)) {
    // A repeated one is reported once: the schema reports it.
    if (seen.has(eventId)) continue;
    seen.add(eventId);
    const gives = (field: string) => given !== null && Object.hasOwn(given, field);
    if (events.has(eventId)) {
      if (events.logoOf(eventId) === null && !gives('event_logo')) {
        const hint = given ? ', and this fair event gives no event_logo' : '';
        errors.push(
          at(
            source,
            ['events', i],
            `expected an event with a logo (a fair shows event_logo), but event ${eventId} has logo null${hint}`,
          ),
        );
      }
    } else if (eventsComplete && given) {
      // At the missing field's place, as the schema reports a missing field.
      for (const field of FAIR_EVENT_FIELDS.filter((name) => !gives(name))) {
        errors.push(
          at(
            source,
            ['events', i, field],
            `expected "${field}" here: event ${eventId} is not in the event data, so this fair event must give ${EVERY_FAIR_EVENT_FIELD}`,
          ),
        );
      }
    } else if (eventsComplete) {
      errors.push(at(source, ['events', i], `expected the id of an event in the event data, got ${eventId}`));
    }
  }
}

/** An empty catalogue, and the list in it that each resource's valid records go to, in source order. */
export function emptyCatalogue(): { catalogue: Catalogue; listOf: { [R in ResourceName]: unknown[] } } {
  const catalogue: Catalogue = { companies: [], events: [], fairs: [], textures: [] };
  const listOf = {
    company: catalogue.companies,
    event: catalogue.events,
    virtualfair: catalogue.fairs,
    'virtualbooth-texture': catalogue.textures,
  };
  return { catalogue, listOf };
}

/**
 * Stage 2: every record against its schema, then the rules across records. The catalogue holds
 * zod's output of each valid record, in source order (so that the API keeps the order of the
 * data, and a repeated id names the earlier record). `eventsComplete` is false when an event
 * file could not be read (see checkFairEvents).
 */
export function validate(
  records: readonly SourceRecord[],
  eventsComplete = true,
): { catalogue: Catalogue; errors: DataError[] } {
  const errors: DataError[] = [];
  const { catalogue, listOf: validList } = emptyCatalogue();
  const byResource = new Map<ResourceName, SourceRecord[]>(RESOURCES.map((resource) => [resource.name, []]));
  for (const source of records) {
    const output = checkRecord(source, errors);
    if (output !== undefined) validList[source.resource].push(output);
    byResource.get(source.resource)?.push(source);
  }
  const recordsOf = (resource: ResourceName) => byResource.get(resource) ?? [];
  for (const resource of byResource.keys()) checkUniqueIds(recordsOf(resource), errors);
  const known = new Set(recordsOf('event').map((record) => idOf(record.value)));
  const byId = new Map(catalogue.events.map((event) => [event.id, event]));
  const events: EventLookup = { has: (id) => known.has(id), logoOf: (id) => byId.get(id)?.logo };
  for (const fair of recordsOf('virtualfair')) checkFairEvents(fair, events, eventsComplete, errors);
  return { catalogue, errors };
}

/** The headers every list must carry for the API to answer as DRF does (docs/contract.md, section 2). */
export const REQUIRED_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'application/json',
  Vary: 'Accept',
  Allow: 'GET, HEAD, OPTIONS',
};

/** Checks `_headers`: its syntax, and that each API path gets the headers the contract needs. */
export function validateHeadersFile(file: string, text: string): { rules: HeaderRule[]; errors: DataError[] } {
  const { rules, errors: syntax } = parseHeadersFile(text);
  const errors: DataError[] = syntax.map((problem) => ({ file, pointer: '', message: problem.message }));
  for (const { path } of RESOURCES) {
    const headers = headersFor(rules, path);
    for (const [name, value] of Object.entries(REQUIRED_HEADERS)) {
      const actual = Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
      if (actual !== value) {
        errors.push({
          file,
          pointer: '',
          message: `expected the rules for ${path} to set "${name}: ${value}", got ${actual === undefined ? 'none' : `"${actual}"`}`,
        });
      }
    }
  }
  return { rules, errors };
}
