// The JSON Schemas (draft 2020-12) of the source files, made from the zod schemas of schemas.ts
// with zod's own z.toJSONSchema: editors check data/ against them as you type
// (.vscode/settings.json), and openapi.ts builds the API's record shapes from them. The rules
// JSON Schema cannot express are named in each schema's description (see schemas.ts).

import { z } from 'zod';
import { RESOURCES, type ResourceName } from '../contract/routes.ts';
import { SCHEMAS } from './schemas.ts';

export type JsonSchema = { [key: string]: unknown };

/** The JSON Schema of one record of `resource`, without `$schema` (for use inside another document). */
export function recordSchema(resource: ResourceName): JsonSchema {
  const { $schema: _, ...schema } = z.toJSONSchema(SCHEMAS[resource], { io: 'input', target: 'draft-2020-12' });
  return schema as JsonSchema;
}

/** The JSON Schema of a file `data/<resource>/**\/*.json`: one record, or an array of records. */
function sourceFileSchema(resource: ResourceName): JsonSchema {
  const record = recordSchema(resource);
  const definition = resource.replaceAll('-', '_');
  const ref = { $ref: `#/$defs/${definition}` };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `data/${resource}/**/*.json`,
    description: `${String(record.description)} Generated from scripts/build/schemas.ts: do not edit.`,
    anyOf: [ref, { type: 'array', items: ref }],
    $defs: { [definition]: record },
  };
}

/** Path → JSON Schema of every resource's source files: `schemas/<resource>.schema.json`. */
export function sourceFileSchemas(): Map<string, JsonSchema> {
  return new Map(
    RESOURCES.map((resource) => [`schemas/${resource.name}.schema.json`, sourceFileSchema(resource.name)]),
  );
}
