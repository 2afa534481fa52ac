// The JSON Schemas (draft 2020-12) of the source files, made from the zod schemas of schemas.ts
// with zod's own z.toJSONSchema: editors check data/ against them as you type
// (.vscode/settings.json), and openapi.ts builds the API's record shapes from them. The rules
// JSON Schema cannot express are named in each schema's description (see schemas.ts).

import { z } from 'zod';
import { RESOURCES } from '../../contract/resources/index.ts';
import type { Resource } from '../../contract/resources/resource.ts';
import { validatorOf } from '../pipeline/validators.ts';

export type JsonSchema = { [key: string]: unknown };

/** The JSON Schema of one record of `resource`, without `$schema` (for use inside another document). */
export function recordJsonSchema(resource: Resource): JsonSchema {
  const { $schema: _, ...schema } = z.toJSONSchema(validatorOf(resource), { io: 'input', target: 'draft-2020-12' });
  return withIntegerOrObjectMerged(schema) as JsonSchema;
}

// The keywords that apply to values of one type only, and so to no value of another type.
const KEYWORDS_OF_TYPE: Record<string, ReadonlySet<string>> = {
  integer: new Set(['type', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']),
  object: new Set(['type', 'properties', 'required', 'additionalProperties']),
};

function isIntegerOrObject(options: unknown): options is [JsonSchema, JsonSchema] {
  if (!Array.isArray(options) || options.length !== 2) return false;
  const types = options.map((option: JsonSchema) => option.type);
  if (!types.includes('integer') || !types.includes('object')) return false;
  return options.every((option: JsonSchema) => {
    const own = KEYWORDS_OF_TYPE[String(option.type)];
    return Object.keys(option).every((keyword) => own?.has(keyword));
  });
}

/**
 * zod writes a union of an integer and an object (a fair's event: an id, or an object with one)
 * as `anyOf`; it is written here as one schema of both types, with both options' keywords, which
 * means the same, since each of them applies to values of its own type only. A validator (ajv, an
 * editor) then reports a problem of such an object at its field, as the build does, instead of
 * once for each option at the item.
 */
function withIntegerOrObjectMerged(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withIntegerOrObjectMerged);
  if (value === null || typeof value !== 'object') return value;
  const schema = Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, withIntegerOrObjectMerged(item)]),
  ) as JsonSchema;
  if (!isIntegerOrObject(schema.anyOf)) return schema;
  const { anyOf: options, ...rest } = schema;
  const [integer, object] = options[0].type === 'integer' ? options : [options[1], options[0]];
  return { ...integer, ...object, type: ['integer', 'object'], ...rest };
}

/** The JSON Schema of a file `data/<resource>/**\/*.json`: one record, or an array of records. */
function sourceFileSchema(resource: Resource): JsonSchema {
  const record = recordJsonSchema(resource);
  const definition = resource.name.replaceAll('-', '_');
  const ref = { $ref: `#/$defs/${definition}` };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `data/${resource.name}/**/*.json`,
    description: `${String(record.description)} Generated from scripts/builder/pipeline/validators.ts: do not edit.`,
    anyOf: [ref, { type: 'array', items: ref }],
    $defs: { [definition]: record },
  };
}

/** Path → JSON Schema of every resource's source files: `schemas/<resource>.schema.json`. */
export function sourceFileJsonSchemas(resources: readonly Resource[] = RESOURCES): Map<string, JsonSchema> {
  return new Map(resources.map((resource) => [`schemas/${resource.name}.schema.json`, sourceFileSchema(resource)]));
}
