// What the DRF test service serves, told it by the declarations it is given: for each list its
// path, view name, the fields its records hold (each with the Django field a DRF service would
// give it, read from the record schema), what it shows of another list, its default order, its
// ordering fields, whether it is paginated, and the filters, search and orderings the settings
// file's `resources` section gives it. catalogue/models.py and api.py build the models, the
// serializers and the views from this, so a list added to the declarations is served with no
// edit of the Python side.

import { z } from 'zod';
import type { ResourceSettings } from '../../scripts/contract/query.ts';
import { type FieldKinds, fieldKinds } from '../../scripts/contract/resources/fields.ts';
import type { OrderKey, Resource } from '../../scripts/contract/resources/resource.ts';

/**
 * A field's Django type: a date and a UUID are text to zod, told apart as the build tells them
 * (the field kinds that made them); a number is an integer when zod requires one, else a float.
 */
type FieldType = 'text' | 'integer' | 'float' | 'boolean' | 'date' | 'uuid' | 'json';

export interface ListField {
  name: string;
  type: FieldType;
  nullable: boolean;
}

/** A field holding an object: its fields are columns of the record's own table, shown nested. */
interface GroupField {
  name: string;
  type: 'group';
  fields: ListField[];
}

/** The items of another list a record shows (Resource.embeds), each in a row of a table of their own. */
interface EmbedField {
  name: string;
  type: 'embed';
  resource: string;
  fields: ListField[];
}

export interface ListDescription {
  name: string;
  /** The path without its slashes: `virtualbooth-texture`. */
  path: string;
  /** DRF's view name, in the OPTIONS body and the browsable API. */
  title: string;
  fields: Array<ListField | GroupField | EmbedField>;
  order: readonly OrderKey[] | 'source';
  orderingFields: readonly string[];
  paginated: boolean;
  /** The section of the settings file's `resources`; null when it has none for this list. */
  settings: ResourceSettings | null;
}

/** The field kinds with the date and UUID kinds marked, so that their schemas can be recognised. */
function markedKinds(marks: WeakMap<object, FieldType>): FieldKinds {
  const kinds = fieldKinds(z);
  const mark = <T extends object>(schema: T, type: FieldType): T => {
    marks.set(schema, type);
    return schema;
  };
  return { ...kinds, isoDate: () => mark(kinds.isoDate(), 'date'), uuid: () => mark(kinds.uuid(), 'uuid') };
}

function unwrapped(schema: z.ZodType): { inner: z.ZodType; nullable: boolean } {
  let inner = schema;
  let nullable = false;
  while (inner instanceof z.ZodNullable || inner instanceof z.ZodOptional) {
    nullable ||= inner instanceof z.ZodNullable;
    inner = inner.unwrap() as z.ZodType;
  }
  return { inner, nullable };
}

function typeOf(inner: z.ZodType, marks: WeakMap<object, FieldType>, float: boolean): FieldType {
  const marked = marks.get(inner);
  if (marked !== undefined) return marked;
  if (inner instanceof z.ZodString) return 'text';
  if (inner instanceof z.ZodBoolean) return 'boolean';
  if (inner instanceof z.ZodNumber) return inner.format === 'safeint' && !float ? 'integer' : 'float';
  return 'json';
}

/** The record schema's fields, by name, with the marks of their dates and UUIDs. */
function shapeOf(resource: Resource): { shape: Record<string, z.ZodType>; marks: WeakMap<object, FieldType> } {
  const marks = new WeakMap<object, FieldType>();
  const record = unwrapped(resource.record(markedKinds(marks)) as unknown as z.ZodType).inner;
  if (!(record instanceof z.ZodObject)) throw new Error(`${resource.name}: its record is not an object`);
  return { shape: record.shape as Record<string, z.ZodType>, marks };
}

function fieldOf(
  name: string,
  schema: z.ZodType,
  marks: WeakMap<object, FieldType>,
  float: boolean,
): ListField & { inner: z.ZodType } {
  const { inner, nullable } = unwrapped(schema);
  return { name, type: typeOf(inner, marks, float), nullable, inner };
}

function describeList(
  resource: Resource,
  resources: readonly Resource[],
  settings: Readonly<Record<string, ResourceSettings>>,
): ListDescription {
  const { shape, marks } = shapeOf(resource);
  const floats = new Set(resource.floats ?? []);
  const plain = ({ inner: _, ...field }: ListField & { inner: z.ZodType }): ListField => field;
  const fields: ListDescription['fields'] = [];
  for (const [name, schema] of Object.entries(shape)) {
    if (resource.listed && !resource.listed.includes(name)) continue;
    const embeds = resource.embeds;
    if (embeds?.field === name) {
      const other = resources.find((one) => one.name === embeds.resource);
      if (other === undefined) throw new Error(`${resource.name} shows ${embeds.resource}, which is not declared`);
      const source = shapeOf(other);
      const shown = Object.entries(embeds.shows).map(([shownName, from]) => {
        const field = source.shape[from];
        if (field === undefined) throw new Error(`${other.name} has no field ${from}`);
        const described = plain(fieldOf(shownName, field, source.marks, false));
        return { ...described, nullable: described.nullable && !embeds.notNull.includes(shownName) };
      });
      fields.push({ name, type: 'embed', resource: other.name, fields: shown });
      continue;
    }
    const field = fieldOf(name, schema, marks, floats.has(name));
    if (field.type === 'json' && field.inner instanceof z.ZodObject) {
      const group = Object.entries(field.inner.shape as Record<string, z.ZodType>).map(([part, partSchema]) =>
        plain(fieldOf(part, partSchema, marks, floats.has(`${name}.${part}`))),
      );
      fields.push({ name, type: 'group', fields: group });
    } else fields.push(plain(field));
  }
  return {
    name: resource.name,
    path: resource.path.replace(/^\/|\/$/g, ''),
    title: resource.title,
    fields,
    order: resource.order,
    orderingFields: resource.orderingFields,
    paginated: resource.paginated,
    settings: settings[resource.name] ?? null,
  };
}

/** The lists of `resources`, with the settings file's `resources` section (none: DRF's defaults). */
export function describeLists(
  resources: readonly Resource[],
  settings: Readonly<Record<string, ResourceSettings>> = {},
): ListDescription[] {
  return resources.map((resource) => describeList(resource, resources, settings));
}
