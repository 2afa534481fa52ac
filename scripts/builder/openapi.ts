// The OpenAPI 3.1 document of the API (`schemas/openapi.json`), made from the route table
// (contract/routes.ts), the record schemas (json-schemas.ts, from the zod schemas), the fixed
// bodies (contract/bodies.ts) and the `_headers` rules, so it cannot drift from what the build
// writes. Beside it, the source files' JSON Schemas: schemaFiles() gives every file of `schemas/`.

import { methodNotAllowedBody } from '../contract/bodies.ts';
import { type HeaderRule, headersFor, parseHeadersFile } from '../contract/headers.ts';
import {
  EVENT_FIELDS,
  FORMATS,
  REJECTED_METHODS,
  RESOURCES,
  type ResourceName,
  UNSUPPORTED_ORDERING_FILE,
} from '../contract/routes.ts';
import { type JsonSchema, recordSchema, sourceFileSchemas } from './json-schemas.ts';

export interface SchemaSettings {
  /** Public origin (and optional path prefix) of the API, without a trailing slash. */
  baseUrl: string;
  pageSize: number;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function pick(schema: JsonSchema, keys: readonly string[], rename: Record<string, string> = {}): JsonSchema {
  const properties = schema.properties as Record<string, unknown>;
  const picked: Record<string, unknown> = {};
  for (const key of keys) picked[rename[key] ?? key] = properties[key];
  return { type: 'object', properties: picked, required: Object.keys(picked), additionalProperties: false };
}

const detail = (description: string, value: JsonSchema): JsonSchema => ({
  description,
  type: 'object',
  properties: { detail: { type: 'string', ...value } },
  required: ['detail'],
  additionalProperties: false,
});

function componentSchemas(settings: SchemaSettings): Record<string, JsonSchema> {
  const event = recordSchema('event');
  const fair = recordSchema('virtualfair');
  const fairKeys = Object.keys(fair.properties as object);
  const fairSchema = pick(fair, fairKeys);
  (fairSchema.properties as Record<string, unknown>).events = {
    type: 'array',
    minItems: 1,
    items: ref('FairEvent'),
  };
  const pageLink = {
    type: ['string', 'null'],
    pattern: `^${escapeRegExp(settings.baseUrl)}/virtualbooth-texture/(?:\\?\\S*)?$`,
    description: 'The absolute URL of the next (previous) page, or null on the last (first) page.',
  };
  const [rejected] = REJECTED_METHODS;
  return {
    Company: { ...recordSchema('company'), description: 'A company, as /company/ lists it.' },
    Event: {
      ...pick(event, EVENT_FIELDS),
      description: 'An event, as /event/ lists it (without short_code).',
    },
    FairEvent: {
      ...pick(event, ['id', 'slug', 'name', 'short_code', 'start_date', 'logo'], { logo: 'event_logo' }),
      description: 'An event as a virtual fair lists it.',
    },
    VirtualFair: { ...fairSchema, description: 'A virtual fair, with its events written out.' },
    Texture: { ...recordSchema('virtualbooth-texture'), description: 'A virtual booth texture.' },
    TexturePage: {
      description: `A page of textures in the envelope of DRF's PageNumberPagination, ${settings.pageSize} a page.`,
      type: 'object',
      properties: {
        count: { type: 'integer', minimum: 0, description: 'The number of textures over all pages.' },
        next: pageLink,
        previous: pageLink,
        results: { type: 'array', maxItems: settings.pageSize, items: ref('Texture') },
      },
      required: ['count', 'next', 'previous', 'results'],
      additionalProperties: false,
    },
    NotFound: detail('An unknown path, or a format other than api or json.', { const: 'Not found.' }),
    InvalidPage: detail('A page that is not a whole number of at least 1 or last, or beyond the last page.', {
      const: 'Invalid page.',
    }),
    MethodNotAllowed: detail('A method other than GET, HEAD and OPTIONS, named as the client sent it.', {
      pattern: '^Method ".*" not allowed\\.$',
      examples: [JSON.parse(methodNotAllowedBody(rejected)).detail],
    }),
    UnsupportedOrdering: detail(
      `Only from a host that runs no code (nginx, Caddy, Apache), with status 400, for an ordering by several fields (${UNSUPPORTED_ORDERING_FILE}).`,
      {},
    ),
  };
}

function optionsSchema(title: string): JsonSchema {
  return {
    description: "DRF's metadata of a read-only list view (SimpleMetadata).",
    type: 'object',
    properties: {
      name: { type: 'string', const: title },
      description: { type: 'string', const: '' },
      renders: { type: 'array', const: ['application/json', 'text/html'] },
      parses: {
        type: 'array',
        const: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
      },
    },
    required: ['name', 'description', 'renders', 'parses'],
    additionalProperties: false,
  };
}

const PARAMETERS = {
  format: {
    name: 'format',
    in: 'query',
    description:
      'DRF content negotiation: api and json (or an empty value) answer the same JSON as none. Any other value answers 404 Not found.',
    schema: { type: 'string', enum: [...FORMATS] },
  },
  ordering: {
    name: 'ordering',
    in: 'query',
    description:
      'Event fields to sort by, each ascending or descending (-), comma-separated, as DRF\'s OrderingFilter: "-start_date,name". A term that is not a field is dropped; with none left, or none given, the order is id ascending, and id ascending breaks every tie. A host that runs no code (nginx, Caddy, Apache) answers an ordering by several fields with 400.',
    style: 'form',
    explode: false,
    schema: {
      type: 'array',
      items: { type: 'string', enum: EVENT_FIELDS.flatMap((field) => [field, `-${field}`]) },
    },
    examples: { newest: { value: ['-start_date'] }, several: { value: ['-start_date', 'name'] } },
  },
  page: {
    name: 'page',
    in: 'query',
    description:
      "The page, from 1, or last; read as Python's int() reads it (white space, a sign, _ between digits). Any other value, or a page beyond the last, answers 404 Invalid page.",
    schema: {
      anyOf: [
        { type: 'integer', minimum: 1 },
        { type: 'string', const: 'last' },
      ],
    },
  },
} as const;

/**
 * The `_headers` rules, and the header objects the responses name (`components/headers`): one per
 * name and value, so a header two paths share is written once.
 */
interface Rules {
  rules: HeaderRule[];
  components: Map<string, { name: string; value: string }>;
  /** `components/responses`: the error answers every path shares, by key (text → key). */
  responses: Map<string, { text: string; response: unknown }>;
}

/** A reference to `response` under `key` in `components/responses` (`key_2`... if another one has it). */
function shared(rules: Rules, key: string, response: unknown): { $ref: string } {
  const text = JSON.stringify(response);
  let name = key;
  for (let n = 2; rules.responses.has(name) && rules.responses.get(name)?.text !== text; n++) name = `${key}_${n}`;
  rules.responses.set(name, { text, response });
  return { $ref: `#/components/responses/${name}` };
}

function headers(rules: Rules, path: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const fromFile = Object.entries(headersFor(rules.rules, path)).map(([name, value]) => {
    let key = name;
    for (let n = 2; rules.components.has(key) && rules.components.get(key)?.value !== value; n++) key = `${name}_${n}`;
    rules.components.set(key, { name, value });
    return [name, { $ref: `#/components/headers/${key}` }];
  });
  return { ...Object.fromEntries(fromFile), ...extra };
}

function response(rules: Rules, path: string, description: string, schema?: unknown): Record<string, unknown> {
  return {
    description,
    headers: headers(rules, path),
    ...(schema === undefined ? {} : { content: { 'application/json': { schema } } }),
  };
}

function pathItems(resource: (typeof RESOURCES)[number], rules: Rules): Record<string, unknown> {
  const { name, path, title } = resource;
  const bodies: Record<ResourceName, unknown> = {
    company: { type: 'array', items: ref('Company') },
    virtualfair: { type: 'array', items: ref('VirtualFair') },
    event: { type: 'array', items: ref('Event') },
    'virtualbooth-texture': ref('TexturePage'),
  };
  const parameters: Array<{ $ref: string }> = [{ $ref: '#/components/parameters/format' }];
  if (name === 'event') parameters.push({ $ref: '#/components/parameters/ordering' });
  if (name === 'virtualbooth-texture') parameters.push({ $ref: '#/components/parameters/page' });
  const notFound =
    name === 'virtualbooth-texture'
      ? response(rules, path, 'Not found (format), or Invalid page (page).', {
          anyOf: [ref('NotFound'), ref('InvalidPage')],
        })
      : shared(
          rules,
          'NotFound',
          response(rules, path, 'Not found: a format other than api or json.', ref('NotFound')),
        );
  const listResponses = (withBody: boolean) => ({
    '200': response(rules, path, title, withBody ? bodies[name] : undefined),
    ...(name === 'event'
      ? {
          '400': response(
            rules,
            path,
            'Only from a host that runs no code, for an ordering by several fields.',
            withBody ? ref('UnsupportedOrdering') : undefined,
          ),
        }
      : {}),
    '404': withBody ? notFound : response(rules, path, 'Not found or Invalid page, as GET answers.'),
  });
  const tags = [name];
  const operationName = name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
  const item: Record<string, unknown> = {
    get: { tags, operationId: `${operationName}List`, summary: title, parameters, responses: listResponses(true) },
    head: {
      tags,
      operationId: `${operationName}Head`,
      summary: `${title}: the status and headers of GET`,
      parameters,
      responses: listResponses(false),
    },
    options: {
      tags,
      operationId: `${operationName}Options`,
      summary: `${title}: DRF metadata`,
      parameters: [{ $ref: '#/components/parameters/format' }],
      responses: {
        '200': response(rules, path, 'The metadata of the view.', optionsSchema(title)),
        '404': shared(
          rules,
          'NotFound',
          response(rules, path, 'Not found: a format other than api or json.', ref('NotFound')),
        ),
      },
    },
  };
  for (const method of REJECTED_METHODS) {
    item[method.toLowerCase()] = {
      tags,
      operationId: `${operationName}${method[0]}${method.slice(1).toLowerCase()}`,
      summary: 'Not allowed: the API is read-only.',
      parameters: [{ $ref: '#/components/parameters/format' }],
      responses: {
        '405': shared(rules, 'MethodNotAllowed', response(rules, path, 'Method not allowed.', ref('MethodNotAllowed'))),
        '404': shared(
          rules,
          'NotFound',
          response(rules, path, 'Not found: a format other than api or json.', ref('NotFound')),
        ),
      },
    };
  }
  const bare = path.slice(0, -1);
  const redirect = {
    '301': {
      description: `Moved permanently to ${path}, keeping the query string (Django's APPEND_SLASH).`,
      headers: headers(rules, bare, {
        Location: { description: `${path} and the query string.`, schema: { type: 'string' } },
      }),
    },
  };
  return {
    [path]: item,
    [bare]: {
      get: { tags, operationId: `${operationName}Redirect`, summary: `Redirects to ${path}`, responses: redirect },
      head: { tags, operationId: `${operationName}RedirectHead`, summary: `Redirects to ${path}`, responses: redirect },
    },
  };
}

export function openApiDocument(settings: SchemaSettings, headersFile: string): Record<string, unknown> {
  const rules: Rules = { rules: parseHeadersFile(headersFile).rules, components: new Map(), responses: new Map() };
  const paths = Object.assign({}, ...RESOURCES.map((resource) => pathItems(resource, rules)));
  const headerObjects = [...rules.components].map(([key, { name, value }]) => [
    key,
    { description: `${name}, from _headers.`, schema: { type: 'string', const: value } },
  ]);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Catalogue API',
      version: '1',
      description:
        'A read-only Django REST Framework catalogue API, served as static files. Generated from the route table and the zod schemas (npm run build): do not edit. docs/contract.md says how every request is answered.',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: settings.baseUrl }],
    tags: RESOURCES.map((resource) => ({ name: resource.name, description: resource.title })),
    paths,
    components: {
      schemas: componentSchemas(settings),
      parameters: PARAMETERS,
      responses: Object.fromEntries([...rules.responses].map(([key, { response }]) => [key, response])),
      headers: Object.fromEntries(headerObjects),
    },
  };
}

const toText = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * Every file of `schemas/` (path from the project's root → text): the JSON Schema of each
 * resource's source files and `schemas/openapi.json`. The same settings and `_headers` text give
 * the same bytes.
 */
export function schemaFiles(settings: SchemaSettings, headersFile: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const [path, schema] of sourceFileSchemas()) files.set(path, toText(schema));
  files.set('schemas/openapi.json', toText(openApiDocument(settings, headersFile)));
  return files;
}
