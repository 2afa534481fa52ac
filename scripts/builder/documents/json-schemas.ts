// The JSON Schemas (draft 2020-12) of the source files, made from the record validators of
// ../pipeline/validators.ts with zod's own z.toJSONSchema: editors check data/ against them as you
// type (.vscode/settings.json), and openapi.ts builds the API's record shapes from them. The rules
// JSON Schema cannot express are named in each JSON Schema's description (see validators.ts).

import { applyEdits, modify } from 'jsonc-parser';
import { z } from 'zod';
import { FILTER_KINDS } from '../../contract/filters.ts';
import type { RESOURCE_SETTING_KEYS } from '../../contract/query.ts';
import type { Resource } from '../../contract/resources/resource.ts';
import { SETTINGS_FILE } from '../../shared/folders.ts';
import { TARGET_NAMES } from '../../targets/index.ts';
import { CLOUDFLARE_PLANS, MAX_CPU_MS } from '../../targets/limits.ts';
import { shownFields } from '../pipeline/query-fields.ts';
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
export function sourceFileJsonSchemas(resources: readonly Resource[]): Map<string, JsonSchema> {
  return new Map(resources.map((resource) => [`schemas/${resource.name}.schema.json`, sourceFileSchema(resource)]));
}

/**
 * `text` (the editor's settings as they are, or none) with `json.schemas` mapping each resource's
 * source files to its schema; the user's other settings and comments stay as written.
 */
export function editorSettingsText(text: string | undefined, resources: readonly Resource[]): string {
  const mapping = resources.map((resource) => ({
    fileMatch: [`/data/${resource.name}/**/*.json`],
    url: `./schemas/${resource.name}.schema.json`,
  }));
  const before = text ?? '{}\n';
  const edits = modify(before, ['json.schemas'], mapping, { formattingOptions: { insertSpaces: true, tabSize: 2 } });
  return applyEdits(before, edits);
}

/** Where the settings file's JSON Schema is written, and what a settings file's `$schema` names. */
export const SETTINGS_FILE_SCHEMA = `schemas/${SETTINGS_FILE.replace(/\.json$/, '.schema.json')}`;

const namesOf = (fields: readonly string[], what: string) =>
  z.array(z.enum(fields as [string, ...string[]])).meta({ uniqueItems: true, description: what });

/**
 * A resource's section of the `resources` setting, with the fields each list can take there, so
 * that an editor offers them: the fields the list shows (builder/pipeline/query-fields.ts), a
 * filter's of a kind it reads, a search's and an ordering's of one value. An ordering the
 * declaration has already (the events') may only be repeated, in any order.
 */
function resourceSettingsSchema(resource: Resource) {
  const shown = [...shownFields(resource)];
  const filterable = shown.filter(([, field]) => (FILTER_KINDS as readonly string[]).includes(field.kind));
  const single = shown.filter(([, field]) => field.kind !== 'list' && field.kind !== 'object').map(([name]) => name);
  const filters = filterable.map(([name]) => name);
  const declared = resource.orderingFields;
  const ordering =
    declared.length > 0
      ? namesOf(declared, `${resource.name} orders by its own fields; the setting may only repeat all of them.`).length(
          declared.length,
        )
      : namesOf(single, "OrderingFilter's ordering_fields: ?ordering= by these fields.");
  // JSON Schema has no "subset of another array": each prerendered filter requires its filter.
  // JSON Schema has no "subset of another array": each prerendered filter requires its filter.
  // (The keywords are entries, since an object literal with a `then` reads as a thenable.)
  const prerenderedNeedsFilter = filters.map((field) =>
    Object.fromEntries([
      [
        'if',
        { required: ['prerendered_filters'], properties: { prerendered_filters: { contains: { const: field } } } },
      ],
      ['then', { required: ['filterset_fields'], properties: { filterset_fields: { contains: { const: field } } } }],
    ]),
  );
  const section: Record<(typeof RESOURCE_SETTING_KEYS)[number], z.ZodType> = {
    filterset_fields: namesOf(filters, "django-filter's filterset_fields: ?field=value, exact lookups."),
    search_fields: namesOf(
      single.flatMap((field) => [field, `^${field}`, `=${field}`]),
      "SearchFilter's search_fields (?search=): a field contains the term, ^field starts with it, =field is it, ignoring case.",
    ),
    ordering_fields: ordering,
    prerendered_filters: namesOf(
      filters,
      'Of filterset_fields, the filters whose single-field answers the build writes as files.',
    ),
  };
  return z
    .strictObject(section)
    .partial()
    .meta({ description: `Filters, search and ordering of ${resource.path}.`, allOf: prerenderedNeedsFilter });
}

/**
 * The JSON Schema of the settings file (static-api.config.json), which cli/settings-file.ts
 * reads: its keys, the values each takes, and the `resources` section with the fields of each
 * list. A few checks are the commands' alone, as its description says.
 */
export function settingsFileJsonSchema(resources: readonly Resource[]): JsonSchema {
  // The keys cli/settings-file.ts reads, in its order (test/unit/settings-schema.test.ts).
  const keys: Record<string, z.ZodType> = {
    $schema: z.string().meta({ description: 'This schema, for editors.' }),
    baseUrl: z
      .string()
      .regex(/^https?:\/\/[^/?#@]+(\/[^?#]*)?$/)
      .meta({ description: 'The public origin (and path prefix) of the API, for the absolute page links.' }),
    pageSize: z.int().min(1).meta({ description: 'Textures per page.' }),
    targets: z
      .array(z.enum(TARGET_NAMES))
      .min(1)
      .meta({ description: 'The deploy targets npm run build writes; all when absent.' }),
    cloudflarePlan: z.enum(CLOUDFLARE_PLANS).meta({
      description: 'The Cloudflare plan whose limits (files per deployment, CPU time per request) the build checks.',
    }),
    cpuMs: z.int().min(1).max(MAX_CPU_MS).meta({
      description:
        "The worker's CPU time per request on the Cloudflare paid plan, in ms (wrangler's limits.cpu_ms); 30000 when absent.",
    }),
    reference: z
      .boolean()
      .meta({ description: 'Whether npm run build writes the API reference page at /_reference/.' }),
    precompress: z.boolean().meta({
      description:
        "Whether npm run build writes each answer's .br and .gz siblings, which nginx, Caddy and Apache send; on when absent. Off for a host that compresses by itself (Cloudflare, Netlify, Vercel).",
    }),
    allowEmpty: z.boolean().meta({
      description:
        'Whether a data folder without a record builds, as an API of empty lists; when absent or false, such a folder stops the build.',
    }),
    apiModule: z.string().min(1).meta({
      description:
        "The declarations module the commands run against, from this file's folder: a module that exports RESOURCES, the API's list of declarations; scripts/contract/resources/index.ts when absent.",
    }),
    resources: z
      .strictObject(Object.fromEntries(resources.map((resource) => [resource.name, resourceSettingsSchema(resource)])))
      .partial()
      .meta({ description: "Filters, search and ordering per list, in DRF's terms (docs/filters.md)." }),
  };
  const file = z.strictObject(keys);
  const { $schema, ...schema } = z.toJSONSchema(file.partial(), { io: 'input', target: 'draft-2020-12' });
  return {
    $schema,
    title: SETTINGS_FILE,
    description:
      'The project settings file. Checked by the commands alone: that baseUrl parses as a URL (WHATWG URL); that no target name holds a comma. Generated from scripts/builder/documents/json-schemas.ts: do not edit.',
    ...schema,
  };
}
