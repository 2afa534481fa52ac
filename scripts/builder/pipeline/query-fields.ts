// The kind of each field a list shows, read from the declaration's record schema: what a filter
// of the settings file reads its value as (contract/filters.ts), and which fields a search or an
// ordering can take at all. A date and a UUID are text to zod; they are told apart by building
// the record with field kinds that mark them.

import { z } from 'zod';
import type { FilterKind } from '../../contract/filters.ts';
import { type QuerySettings, type ResourceSettings, settingPointer } from '../../contract/query.ts';
import { fieldKinds } from '../../contract/resources/fields.ts';
import type { Resource } from '../../contract/resources/resource.ts';
import { searchField } from '../../contract/search.ts';
import { UserFacingError } from '../../shared/errors.ts';
import { misspellingDistance } from '../../shared/misspellings.ts';

/** A field the list shows: the kind a filter reads, or why it takes none; whether it may be null. */
export interface ShownField {
  kind: FilterKind | 'list' | 'object' | 'number';
  nullable: boolean;
}

const KINDS = fieldKinds(z);

function markedKinds(marks: WeakMap<object, FilterKind>): typeof KINDS {
  const mark = <T extends object>(schema: T, kind: FilterKind): T => {
    marks.set(schema, kind);
    return schema;
  };
  return { ...KINDS, isoDate: () => mark(KINDS.isoDate(), 'date'), uuid: () => mark(KINDS.uuid(), 'uuid') };
}

function kindOf(schema: z.ZodType, marks: WeakMap<object, FilterKind>): ShownField {
  let inner = schema;
  let nullable = false;
  while (inner instanceof z.ZodNullable || inner instanceof z.ZodOptional) {
    nullable ||= inner instanceof z.ZodNullable;
    inner = inner.unwrap() as z.ZodType;
  }
  const marked = marks.get(inner);
  if (marked !== undefined) return { kind: marked, nullable };
  if (inner instanceof z.ZodString) return { kind: 'text', nullable };
  if (inner instanceof z.ZodBoolean) return { kind: 'boolean', nullable };
  if (inner instanceof z.ZodNumber) return { kind: inner.format === 'safeint' ? 'integer' : 'number', nullable };
  if (inner instanceof z.ZodArray) return { kind: 'list', nullable };
  return { kind: 'object', nullable };
}

/** The fields `resource`'s list shows, in order, each with its kind. */
export function shownFields(resource: Resource): Map<string, ShownField> {
  const marks = new WeakMap<object, FilterKind>();
  const record = resource.record(markedKinds(marks)) as unknown as z.ZodObject;
  const fields = new Map<string, ShownField>();
  for (const [field, schema] of Object.entries(record.shape)) {
    if (resource.listed && !resource.listed.includes(field)) continue;
    fields.set(field, kindOf(schema as z.ZodType, marks));
  }
  return fields;
}

/** A setting of the `resources` section that names a field its resource cannot take there. */
export class QuerySettingsError extends UserFacingError {}

const FILTER_TAKES = 'a filter takes text, integer, boolean, date or UUID fields';

/**
 * The declarations with their settings (the `resources` section, checked in its form by
 * cli/settings-file.ts): each field one the list shows, a filter's of a kind it can read, an
 * ordering of a resource that declares its own the same fields. Messages name `file` and the
 * setting's JSON pointer. Declarations without settings are returned as they are.
 */
export function withQuerySettings(
  resources: readonly Resource[],
  sections: Readonly<Record<string, ResourceSettings>> | undefined,
  file: string,
): Resource[] {
  return resources.map((resource) => {
    const section = sections?.[resource.name];
    if (section === undefined) return resource;
    const fail = (pointer: string, message: string): never => {
      throw new QuerySettingsError(`${file}: ${pointer}: ${message}`);
    };
    const shown = shownFields(resource);
    const known = [...shown.keys()];
    const fieldOf = (key: keyof ResourceSettings, index: number, name: string): ShownField => {
      const field = shown.get(name);
      if (field !== undefined) return field;
      const meant = known.find((one) => misspellingDistance(name, one) !== undefined);
      return fail(
        settingPointer(resource.name, key, index),
        `${resource.name} shows no field "${name}"${meant ? ` (did you mean "${meant}"?)` : ''}; its fields are ${known.join(', ')}`,
      );
    };
    const filters = (section.filterset_fields ?? []).map((name, index) => {
      const { kind } = fieldOf('filterset_fields', index, name);
      if (kind === 'list' || kind === 'object' || kind === 'number')
        fail(
          settingPointer(resource.name, 'filterset_fields', index),
          `"${name}" is ${kindWords(kind)}: ${FILTER_TAKES}`,
        );
      return { field: name, kind: kind as FilterKind };
    });
    const scalar = (key: 'search_fields' | 'ordering_fields') => (name: string, index: number) => {
      const { kind } = fieldOf(key, index, name);
      if (kind === 'list' || kind === 'object')
        fail(
          settingPointer(resource.name, key, index),
          `"${name}" is ${kindWords(kind)}: only a field of one value can be ${key === 'search_fields' ? 'searched' : 'ordered by'}`,
        );
    };
    const search = (section.search_fields ?? []).map((entry, index) => {
      const parsed = searchField(entry);
      scalar('search_fields')(parsed.field, index);
      return parsed;
    });
    const ordering = section.ordering_fields ?? [];
    ordering.forEach(scalar('ordering_fields'));
    const declared = resource.orderingFields;
    if (declared.length > 0 && section.ordering_fields !== undefined) {
      const same = ordering.length === declared.length && ordering.every((field) => declared.includes(field));
      if (!same)
        fail(
          settingPointer(resource.name, 'ordering_fields'),
          `${resource.name} orders by its own fields (${declared.join(', ')}); the setting may only repeat them`,
        );
    }
    const query: QuerySettings = {
      filters,
      search,
      ordering: declared.length > 0 ? [] : ordering,
      prerendered: section.prerendered_filters ?? [],
    };
    return { ...resource, query };
  });
}

function kindWords(kind: 'list' | 'object' | 'number'): string {
  return kind === 'list' ? 'a list' : kind === 'object' ? 'an object' : 'a number with decimals';
}
