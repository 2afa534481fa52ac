// What a resource is, declared once (in the spirit of a DRF ViewSet): its path and title, the
// record it lists (a zod schema whose key order is the JSON order), its default order and the
// fields `?ordering=` accepts, whether it is paginated, what it shows of another resource, and the
// rules across records. The route table, the build, the targets and the documents all follow
// from the list of declarations (./index.ts holds the API's).
//
// The record schema is a function of the field kinds (./fields.ts), which are made from zod by
// the one who checks records: so the route table, the request handler and the worker read a
// declaration without loading zod.

import type { z } from 'zod';
import type { QuerySettings } from '../query.ts';
import type { FieldKinds } from './fields.ts';

/** One key of a default order: a field, its direction, and whether its text compares without case. */
export interface OrderKey {
  field: string;
  descending: boolean;
  ignoreCase?: boolean;
}

/**
 * What a record shows of another resource's records, named by id in its field `field`: each item
 * is an id, or an object with the id and the values shown instead of the record's (`shows` maps a
 * shown field to the field of the other record it comes from).
 */
export interface Embed {
  field: string;
  resource: string;
  shows: Readonly<Record<string, string>>;
  /** Shown fields that may not be null: a record whose value is null must be given one instead. */
  notNull: readonly string[];
  /** The embedded record's name in the messages ("an event"). */
  one: string;
  /** The embedding record's short name in the messages ("fair": "a fair shows event_logo"). */
  owner: string;
  /** The OpenAPI component of an embedded item. */
  component: string;
  description: string;
}

export interface Resource {
  /** The folder of its source files under data/, and its path segment. */
  name: string;
  path: string;
  /** DRF's name of the list view, in the OPTIONS body. */
  title: string;
  /** A record, in the messages and the JSON Schemas' descriptions ("a virtual fair"). */
  one: string;
  /** Records, in the documents ("textures"). */
  many: string;
  /** The record's zod schema, from the field kinds: its key order is the order of the JSON keys. */
  record: (field: FieldKinds) => z.ZodType<object>;
  /** The number fields (dotted paths) written as floats, as DRF's FloatField writes them: `1.0`. */
  floats?: readonly string[];
  /** The fields a list shows, in order, when it shows fewer than the record holds. */
  listed?: readonly string[];
  /** The default order of the list (then by id); `source` keeps the order of the data. */
  order: readonly OrderKey[] | 'source';
  /** The fields `?ordering=` accepts (DRF's `ordering_fields`); none when empty. */
  orderingFields: readonly string[];
  /** An ordering by several fields, for the documents: `['-start_date', 'name']`. */
  orderingExample?: readonly string[];
  /** DRF's PageNumberPagination: `?page=` and the `{count, next, previous, results}` envelope. */
  paginated: boolean;
  /** The filters, search and ordering the settings file gives it (query.ts); none when absent. */
  query?: QuerySettings;
  embeds?: Embed;
  /** The rules JSON Schema cannot express, checked by the build, said in the JSON Schemas' descriptions. */
  buildOnlyRules: readonly string[];
  /** The OpenAPI component of a listed record, and its description. */
  component: string;
  componentDescription: string;
}

/** A declaration, its type kept whole: `declare({...})`, so its record's type can be inferred. */
export function declare<const R extends Resource>(resource: R): R {
  return resource;
}

/** A record and records in a count, the last words of `one` and `many`: `fair`, `fairs`. */
export function countedAs(resource: Pick<Resource, 'one' | 'many'>): [one: string, many: string] {
  return [resource.one.split(' ').at(-1) as string, resource.many.split(' ').at(-1) as string];
}

/** The type of a record of `resource`, as zod outputs it. */
export type RecordOf<R extends Resource> = z.infer<ReturnType<R['record']>>;

export const URL_PARSES = 'each URL parses as a URL (WHATWG URL)';
export const UNIQUE_IDS = 'the ids are unique across the files of the resource';
