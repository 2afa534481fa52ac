// Stage 2: check every record against its validator (validators.ts holds every rule of a record),
// then the rules that span records (unique ids, fairs naming existing events that have a logo).
// Every problem is collected.

import type { z } from 'zod';
import { type HeaderRule, headersFor, parseHeadersFile, REQUIRED_HEADERS } from '../../contract/headers.ts';
import type { ApiDeclarations } from '../../contract/resources/index.ts';
import type { Embed, RecordOf, Resource } from '../../contract/resources/resource.ts';
import { type DataError, pointerOf } from './errors.ts';
import type { SourceRecord } from './load.ts';
import { likelyMisspellings } from './misspellings.ts';
import { validatorOf } from './validators.ts';

/**
 * Each resource's valid records (zod's output), in source order, by resource name: the API's
 * four typed, any other declared resource's under its own name (recordsOf).
 */
export type Catalogue = { [Declared in ApiDeclarations[number] as Declared['name']]: RecordOf<Declared>[] };

/** The valid records of `resource` in `catalogue`. */
export function recordsOf(catalogue: Catalogue, resource: string): unknown[] {
  return (catalogue as unknown as Record<string, unknown[]>)[resource] ?? [];
}

const byName = new WeakMap<readonly Resource[], ReadonlyMap<string, Resource>>();

/** The declaration named `name` among `resources`. */
export function declarationOf(name: string, resources: readonly Resource[]): Resource {
  let names = byName.get(resources);
  if (names === undefined) {
    names = new Map(resources.map((resource) => [resource.name, resource]));
    byName.set(resources, names);
  }
  const resource = names.get(name);
  if (resource === undefined) throw new Error(`no resource is declared as ${name}`);
  return resource;
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

/** Checks a record against its resource's validator: zod's output when valid, else every problem. */
export function checkRecord(source: SourceRecord, errors: DataError[], resources: readonly Resource[]): unknown {
  const validator: z.ZodType = validatorOf(declarationOf(source.resource, resources));
  const result = validator.safeParse(source.value);
  if (result.success) return result.data;
  // Parsed again for the messages only: reportInput (the bad value in each issue) makes zod
  // take its slow path, and a catalogue is almost always valid.
  const reported = validator.safeParse(source.value, { reportInput: true });
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

const isEmbeddedId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;

/** What the rules of an embed need to know of the embedded resource's records. */
export interface EmbeddedLookup {
  /** Whether a record (valid or not) has this id. */
  has(id: number): boolean;
  /** The value of `field` of the valid record with this id (the last one, if repeated). */
  valueOf(id: number, field: string): unknown;
}

/** Each item of a record's embed field that names an id, alone or in an object, with its index. */
function namedItems(embed: Embed, record: unknown): Array<{ id: number; given: object | null; index: number }> {
  const items = (record as Record<string, unknown> | null)?.[embed.field];
  if (!Array.isArray(items)) return [];
  const named: Array<{ id: number; given: object | null; index: number }> = [];
  items.forEach((item: unknown, index) => {
    const given = item !== null && typeof item === 'object' && !Array.isArray(item) ? item : null;
    const id = given ? idOf(given) : item;
    if (isEmbeddedId(id)) named.push({ id, given, index });
  });
  return named;
}

/** The ids of the embedded records a record names: the records its rules read. */
export function embeddedIds(embed: Embed, record: unknown): number[] {
  return namedItems(embed, record).map(({ id }) => id);
}

/** `a, b and c`. */
const listed = (words: readonly string[]) =>
  words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;

/**
 * Checks what one record shows of the embedded records (a fair's events), also of a record that
 * breaks another rule, so that one run reports all: each id, alone or in an object, names an
 * embedded record whose value of each not-null field is not null, unless the object gives it; an
 * object whose id no record has gives every field itself. When a file of the embedded resource
 * could not be read, unknown ids are not reported: they would only repeat that problem.
 */
export function checkEmbedded(
  source: SourceRecord,
  embed: Embed,
  embedded: EmbeddedLookup,
  embeddedComplete: boolean,
  errors: DataError[],
): void {
  const owner = embed.owner;
  const noun = embed.one.replace(/^an? /, '');
  const shown = Object.keys(embed.shows).filter((field) => field !== 'id');
  const seen = new Set<number>();
  for (const { id, given, index: i } of namedItems(embed, source.value)) {
    // A repeated one is reported once: the validator reports it.
    if (seen.has(id)) continue;
    seen.add(id);
    const gives = (field: string) => given !== null && Object.hasOwn(given, field);
    if (embedded.has(id)) {
      for (const field of embed.notNull) {
        const from = embed.shows[field] as string;
        if (embedded.valueOf(id, from) !== null || gives(field)) continue;
        const hint = given ? `, and this ${owner} ${noun} gives no ${field}` : '';
        errors.push(
          at(
            source,
            [embed.field, i],
            `expected ${embed.one} with a ${from} (a ${owner} shows ${field}), but ${noun} ${id} has ${from} null${hint}`,
          ),
        );
      }
    } else if (embeddedComplete && given) {
      // At the missing field's place, as the validator reports a missing field.
      for (const field of shown.filter((name) => !gives(name))) {
        errors.push(
          at(
            source,
            [embed.field, i, field],
            `expected "${field}" here: ${noun} ${id} is not in the ${embed.resource} data, so this ${owner} ${noun} must give ${listed(shown)}`,
          ),
        );
      }
    } else if (embeddedComplete) {
      errors.push(
        at(source, [embed.field, i], `expected the id of ${embed.one} in the ${embed.resource} data, got ${id}`),
      );
    }
  }
}

/** An empty catalogue, and the list in it that each resource's valid records go to, in source order. */
export function emptyCatalogue(resources: readonly Resource[]): {
  catalogue: Catalogue;
  listOf: Readonly<Record<string, unknown[]>>;
} {
  const listOf: Record<string, unknown[]> = Object.fromEntries(resources.map((resource) => [resource.name, []]));
  return { catalogue: listOf as unknown as Catalogue, listOf };
}

/** What the rules of an embed read of the embedded resource's records: all of them, and the valid ones. */
function embeddedLookup(records: readonly SourceRecord[], valid: readonly unknown[]): EmbeddedLookup {
  const known = new Set(records.map((record) => idOf(record.value)));
  const byId = new Map(valid.map((record) => [idOf(record), record as Record<string, unknown>]));
  return { has: (id) => known.has(id), valueOf: (id, field) => byId.get(id)?.[field] };
}

/**
 * Stage 2: every record against its validator, then the rules across records. The catalogue holds
 * zod's output of each valid record, in source order (so that the API keeps the order of the
 * data, and a repeated id names the earlier record). `incomplete` names the resources a file of
 * which could not be read (see checkEmbedded).
 */
export function validate(
  records: readonly SourceRecord[],
  resources: readonly Resource[],
  incomplete: ReadonlySet<string> = new Set(),
): { catalogue: Catalogue; errors: DataError[] } {
  const errors: DataError[] = [];
  const { catalogue, listOf: validList } = emptyCatalogue(resources);
  const byResource = new Map<string, SourceRecord[]>(resources.map((resource) => [resource.name, []]));
  for (const source of records) {
    const output = checkRecord(source, errors, resources);
    if (output !== undefined) validList[source.resource]?.push(output);
    byResource.get(source.resource)?.push(source);
  }
  const recordsOfResource = (resource: string) => byResource.get(resource) ?? [];
  for (const resource of byResource.keys()) checkUniqueIds(recordsOfResource(resource), errors);
  for (const { name, embeds } of resources) {
    if (embeds === undefined) continue;
    const lookup = embeddedLookup(recordsOfResource(embeds.resource), recordsOf(catalogue, embeds.resource));
    const complete = !incomplete.has(embeds.resource);
    for (const record of recordsOfResource(name)) checkEmbedded(record, embeds, lookup, complete, errors);
  }
  return { catalogue, errors };
}

/** Checks `_headers`: its syntax, and that each API path gets the headers the contract needs. */
export function validateHeadersFile(
  file: string,
  text: string,
  resources: readonly Resource[],
): { rules: HeaderRule[]; errors: DataError[] } {
  const { rules, errors: syntax } = parseHeadersFile(text);
  const errors: DataError[] = syntax.map((problem) => ({ file, pointer: '', message: problem.message }));
  for (const { path } of resources) {
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
