// The OpenAPI 3.1 document of the API (`schemas/openapi.json`), made from the route table
// (contract/routes.ts), the record schemas (json-schemas.ts, from the zod schemas), the fixed
// bodies (contract/bodies.ts) and the `_headers` rules, so it cannot drift from what the build
// writes. Beside it, the source files' JSON Schemas: schemaFiles() gives every file of `schemas/`.

import { methodNotAllowedBody } from '../../contract/bodies.ts';
import type { FilterKind } from '../../contract/filters.ts';
import { type HeaderRule, headersFor, parseHeadersFile } from '../../contract/headers.ts';
import type { Resource } from '../../contract/resources/resource.ts';
import { CONTRACT_METHODS, FORMATS, REJECTED_METHODS, UNSUPPORTED_ORDERING_FILE } from '../../contract/routes.ts';
import { SEARCH_PARAM } from '../../contract/search.ts';
import {
  type JsonSchema,
  recordJsonSchema,
  SETTINGS_FILE_SCHEMA,
  settingsFileJsonSchema,
  sourceFileJsonSchemas,
} from './json-schemas.ts';

export interface OpenApiSettings {
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

/** The component of a page of a paginated resource's records (`TexturePage` of `Texture`). */
const pageComponent = (resource: Resource) => `${resource.component}Page`;

/** The schema of a record of `resource` as its list shows it: its listed fields, an embed written out. */
function listedSchema(resource: Resource): JsonSchema {
  const record = recordJsonSchema(resource);
  if (!resource.listed && !resource.embeds) return record;
  const schema = pick(record, resource.listed ?? Object.keys(record.properties as object));
  if (resource.embeds) {
    (schema.properties as Record<string, unknown>)[resource.embeds.field] = {
      type: 'array',
      minItems: 1,
      items: ref(resource.embeds.component),
    };
  }
  return schema;
}

/**
 * The record schemas, each resource's record before a page of them, an embedded resource's
 * before what embeds it: Company, Event, FairEvent, VirtualFair, Texture, TexturePage.
 */
function recordComponents(settings: OpenApiSettings, resources: readonly Resource[]): Record<string, JsonSchema> {
  const components: Record<string, JsonSchema> = {};
  const byName = new Map(resources.map((resource) => [resource.name, resource]));
  const add = (resource: Resource) => {
    if (Object.hasOwn(components, resource.component)) return;
    const { embeds } = resource;
    const embedded = embeds && byName.get(embeds.resource);
    if (embeds && embedded) {
      add(embedded);
      const shows = Object.entries(embeds.shows);
      components[embeds.component] = {
        ...pick(
          recordJsonSchema(embedded),
          shows.map(([, from]) => from),
          Object.fromEntries(shows.filter(([field, from]) => field !== from).map(([field, from]) => [from, field])),
        ),
        description: embeds.description,
      };
    }
    components[resource.component] = { ...listedSchema(resource), description: resource.componentDescription };
    if (!resource.paginated) return;
    // The origin is the server's that built the page (a preview's, a deploy's), not the
    // document's: the link is checked from the path on.
    const pageLink = {
      type: ['string', 'null'],
      format: 'uri',
      pattern: `^[A-Za-z][A-Za-z0-9+.-]*://[^/?#\\s]+(?:/[^?#\\s]*)?${escapeRegExp(resource.path)}(?:\\?[^#\\s]*)?$`,
      description:
        'The absolute URL of the next (previous) page, on the origin and under the path prefix the API is served from, or null on the last (first) page.',
    };
    const { many } = resource;
    components[pageComponent(resource)] = {
      description: `A page of ${many} in the envelope of DRF's PageNumberPagination, ${settings.pageSize} a page.`,
      type: 'object',
      properties: {
        count: { type: 'integer', minimum: 0, description: `The number of ${many} over all pages.` },
        next: pageLink,
        previous: pageLink,
        results: { type: 'array', maxItems: settings.pageSize, items: ref(resource.component) },
      },
      required: ['count', 'next', 'previous', 'results'],
      additionalProperties: false,
    };
  };
  for (const resource of resources) add(resource);
  return components;
}

function componentSchemas(settings: OpenApiSettings, resources: readonly Resource[]): Record<string, JsonSchema> {
  const [rejected] = REJECTED_METHODS;
  return {
    ...recordComponents(settings, resources),
    NotFound: detail('An unknown path, or a format other than api or json.', { const: 'Not found.' }),
    InvalidPage: detail('A page that is not a whole number of at least 1 or last, or beyond the last page.', {
      const: 'Invalid page.',
    }),
    MethodNotAllowed: detail('A method other than GET, HEAD and OPTIONS, named as the client sent it.', {
      pattern: '^Method ".*" not allowed\\.$',
      examples: [JSON.parse(methodNotAllowedBody(rejected)).detail],
    }),
    UnsupportedOrdering: detail(
      `Only from a web server (nginx, Caddy, Apache), which runs no code, with status 400, for an ordering by several fields (${UNSUPPORTED_ORDERING_FILE}).`,
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
      renders: { type: 'array', items: { type: 'string' }, const: ['application/json', 'text/html'] },
      parses: {
        type: 'array',
        items: { type: 'string' },
        const: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
      },
    },
    required: ['name', 'description', 'renders', 'parses'],
    additionalProperties: false,
  };
}

const FORMAT_PARAMETER = {
  name: 'format',
  in: 'query',
  description:
    'DRF content negotiation: api and json (or an empty value) answer the same JSON as none. Any other value answers 404 Not found.',
  schema: { type: 'string', enum: [...FORMATS] },
};

const PAGE_PARAMETER = {
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
};

/** The component key of `resource`'s ordering parameter: `ordering`, or one per resource when several order. */
function orderingParameter(resource: Resource, resources: readonly Resource[]): string {
  const ordered = resources.filter((one) => one.orderingFields.length > 0);
  return ordered.length > 1 ? `ordering_${resource.name.replaceAll('-', '_')}` : 'ordering';
}

/** DRF's OrderingFilter of `resource`: its ordering fields, each ascending or descending. */
function orderingParameterOf(resource: Resource): Record<string, unknown> {
  const noun = resource.one.replace(/^an? /, '');
  const [first = 'id', ...more] = resource.orderingFields.filter((field) => field !== 'id');
  const several = resource.orderingExample ?? [`-${first}`, ...more.slice(0, 1)];
  const [newest = `-${first}`] = several;
  return {
    name: 'ordering',
    in: 'query',
    description: `${noun[0]?.toUpperCase()}${noun.slice(1)} fields to sort by, each ascending or descending (-), comma-separated, as DRF's OrderingFilter: "${several.join(',')}". A term that is not a field is dropped; with none left, or none given, the order is id ascending, and id ascending breaks every tie. A web server (nginx, Caddy, Apache), which runs no code, answers an ordering by several fields with 400.`,
    style: 'form',
    explode: false,
    schema: {
      type: 'array',
      items: { type: 'string', enum: resource.orderingFields.flatMap((field) => [field, `-${field}`]) },
    },
    examples: { newest: { value: [newest] }, several: { value: [...several] } },
  };
}

/** The query parameters the paths name: `format`, each ordering, and `page` when a list is paginated. */
function parametersOf(resources: readonly Resource[]): Record<string, unknown> {
  const parameters: Record<string, unknown> = { format: FORMAT_PARAMETER };
  for (const resource of resources) {
    if (resource.orderingFields.length > 0)
      parameters[orderingParameter(resource, resources)] = orderingParameterOf(resource);
  }
  if (resources.some((resource) => resource.paginated)) parameters.page = PAGE_PARAMETER;
  return parameters;
}

/**
 * The `_headers` rules, and the header objects the responses name (`components/headers`): one per
 * name and value, so a header two paths share is written once.
 */
interface Rules {
  rules: HeaderRule[];
  components: Map<string, HeaderComponent>;
  /** `components/responses`: the error answers every path shares, by key (text → key). */
  responses: Map<string, { text: string; response: unknown }>;
}

/**
 * A header of `_headers` as a response names it: its value, and for Vary on an answer that may
 * be sent precompressed (a list's) whether Accept-Encoding may follow it.
 */
interface HeaderComponent {
  name: string;
  value: string;
  withEncoding: boolean;
}

/** The comma between two names of a list, with optional white space (RFC 9110 5.6.1); Apache writes none. */
const LIST_SEPARATOR = '[ \\t]*,[ \\t]*';

/**
 * The header object of `component`. A Vary that Accept-Encoding may follow is a list of names:
 * the local server, nginx, Caddy and Apache add it to an answer sent precompressed (`, ` or `,`
 * before it, or a second Vary line, which is the same field).
 */
function headerObject({ name, value, withEncoding }: HeaderComponent): Record<string, unknown> {
  // A header of an empty value may be left out: nginx sends none.
  const required = value !== '';
  if (!withEncoding)
    return { description: `${name}, from _headers.`, required, schema: { type: 'string', const: value } };
  const names = value
    .split(',')
    .map((one) => one.trim())
    .filter(Boolean);
  const pattern =
    names.length === 0
      ? '^(?:Accept-Encoding)?$'
      : `^${names.map(escapeRegExp).join(LIST_SEPARATOR)}(?:${LIST_SEPARATOR}Accept-Encoding)?$`;
  return {
    description: `${name}, from _headers; Accept-Encoding follows it when the answer is sent precompressed (br or gzip: a list of 4 KiB or more, to a client that accepts it).`,
    required,
    schema: {
      type: 'string',
      pattern,
      examples: [value, names.length === 0 ? 'Accept-Encoding' : `${value}, Accept-Encoding`],
    },
  };
}

const namesAcceptEncoding = (value: string) => /(?:^|,)\s*accept-encoding\s*(?:,|$)/i.test(value);

/** A reference to `response` under `key` in `components/responses` (`key_2`... if another one has it). */
function shared(rules: Rules, key: string, response: unknown): { $ref: string } {
  const text = JSON.stringify(response);
  let name = key;
  for (let n = 2; rules.responses.has(name) && rules.responses.get(name)?.text !== text; n++) name = `${key}_${n}`;
  rules.responses.set(name, { text, response });
  return { $ref: `#/components/responses/${name}` };
}

/**
 * The headers `_headers` gives `path`, by reference, and `extra`. A `compressible` answer (a list,
 * which may be sent precompressed) gets its own Vary.
 */
function headers(
  rules: Rules,
  path: string,
  extra: Record<string, unknown> = {},
  compressible = false,
): Record<string, unknown> {
  const fromFile = Object.entries(headersFor(rules.rules, path)).map(([name, value]) => {
    const withEncoding = compressible && name.toLowerCase() === 'vary' && !namesAcceptEncoding(value);
    const base = withEncoding ? `${name}_compressible` : name;
    let key = base;
    const same = (other?: HeaderComponent) => other?.value === value && other.withEncoding === withEncoding;
    for (let n = 2; rules.components.has(key) && !same(rules.components.get(key)); n++) key = `${base}_${n}`;
    rules.components.set(key, { name, value, withEncoding });
    return [name, { $ref: `#/components/headers/${key}` }];
  });
  return { ...Object.fromEntries(fromFile), ...extra };
}

function response(
  rules: Rules,
  path: string,
  description: string,
  schema?: unknown,
  compressible = false,
): Record<string, unknown> {
  return {
    description,
    headers: headers(rules, path, {}, compressible),
    ...(schema === undefined ? {} : { content: { 'application/json': { schema } } }),
  };
}

/** What a filter reads, by the kind of its field, as django-filter's form fields read it. */
const FILTER_VALUES: Readonly<Record<FilterKind, { schema: Record<string, unknown>; reads: string }>> = {
  text: { schema: { type: 'string' }, reads: 'the exact text' },
  integer: { schema: { type: 'string', examples: ['42'] }, reads: 'a whole number ("Enter a number." otherwise)' },
  boolean: { schema: { type: 'string', enum: ['true', 'false', 'True', 'False', '1', '0'] }, reads: 'true or false' },
  date: { schema: { type: 'string', examples: ['2026-05-04'] }, reads: 'a date ("Enter a valid date." otherwise)' },
  uuid: { schema: { type: 'string', format: 'uuid' }, reads: 'a UUID ("Enter a valid UUID." otherwise)' },
};

/**
 * The parameters the settings file's filters, search and ordering give `resource` (none without
 * them), inline: they are the list's own. Only the targets that run code answer them.
 */
function queryParametersOf(resource: Resource): Array<Record<string, unknown>> {
  const { query } = resource;
  if (query === undefined) return [];
  const parameters: Array<Record<string, unknown>> = query.filters.map(({ field, kind }) => ({
    name: field,
    in: 'query',
    description: `Only the records whose ${field} is ${FILTER_VALUES[kind].reads}, as django-filter's exact lookup; an empty value filters nothing.`,
    schema: FILTER_VALUES[kind].schema,
  }));
  if (query.search.length > 0) {
    const fields = query.search.map(({ field, lookup }) => `${field} (${lookup})`).join(', ');
    parameters.push({
      name: SEARCH_PARAM,
      in: 'query',
      description: `Terms separated by spaces or commas, as DRF's SearchFilter splits them: a record is listed when every term is found, without case, in one of ${fields}.`,
      schema: { type: 'string' },
    });
  }
  if (query.ordering.length > 0) {
    parameters.push({
      name: 'ordering',
      in: 'query',
      description: `Fields to sort by, each ascending or descending (-), comma-separated, as DRF's OrderingFilter; a term that is not one of ${query.ordering.join(', ')} is dropped.`,
      schema: { type: 'string' },
    });
  }
  return parameters;
}

/** One schema as it is, several as `anyOf`. */
function oneOrAny(schemas: readonly Record<string, unknown>[]): Record<string, unknown> {
  return schemas.length === 1 ? (schemas[0] as Record<string, unknown>) : { anyOf: schemas };
}

function pathItems(resource: Resource, resources: readonly Resource[], rules: Rules): Record<string, unknown> {
  const { name, path, title } = resource;
  const body = resource.paginated ? ref(pageComponent(resource)) : { type: 'array', items: ref(resource.component) };
  const parameters: Array<Record<string, unknown>> = [{ $ref: '#/components/parameters/format' }];
  if (resource.orderingFields.length > 0)
    parameters.push({ $ref: `#/components/parameters/${orderingParameter(resource, resources)}` });
  if (resource.paginated) parameters.push({ $ref: '#/components/parameters/page' });
  parameters.push(...queryParametersOf(resource));
  const badRequests: Array<[description: string, schema: Record<string, unknown>]> = [];
  if (resource.orderingFields.length > 0) {
    badRequests.push([
      'Only from a web server (nginx, Caddy, Apache), which runs no code, for an ordering by several fields.',
      ref('UnsupportedOrdering'),
    ]);
  }
  if ((resource.query?.filters.length ?? 0) > 0) {
    badRequests.push([
      "A filter value the filter cannot read: each such filter's name with django-filter's messages.",
      { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
    ]);
  }
  const notFound = resource.paginated
    ? response(rules, path, 'Not found (format), or Invalid page (page).', {
        anyOf: [ref('NotFound'), ref('InvalidPage')],
      })
    : shared(rules, 'NotFound', response(rules, path, 'Not found: a format other than api or json.', ref('NotFound')));
  const listResponses = (withBody: boolean) => ({
    '200': response(rules, path, title, withBody ? body : undefined, true),
    ...(badRequests.length > 0
      ? {
          '400': response(
            rules,
            path,
            badRequests.map(([description]) => description).join(' Or: '),
            withBody ? oneOrAny(badRequests.map(([, schema]) => schema)) : undefined,
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
  // One response for every method, in `components/responses`.
  const redirect = {
    '301': shared(rules, `Redirect_${name}`, {
      description: `Moved permanently to ${path}, keeping the query string (Django's APPEND_SLASH).`,
      headers: headers(rules, bare, {
        Location: { description: `${path} and the query string.`, required: true, schema: { type: 'string' } },
      }),
    }),
  };
  // Django resolves the URL before the view reads the method: every method is redirected.
  const redirects = Object.fromEntries(
    CONTRACT_METHODS.map((method) => [
      method.toLowerCase(),
      {
        tags,
        operationId: `${operationName}Redirect${method === 'GET' ? '' : `${method[0]}${method.slice(1).toLowerCase()}`}`,
        summary: `Redirects to ${path}`,
        responses: redirect,
      },
    ]),
  );
  return { [path]: item, [bare]: redirects };
}

export function openApiDocument(
  settings: OpenApiSettings,
  headersFile: string,
  resources: readonly Resource[],
): Record<string, unknown> {
  const rules: Rules = { rules: parseHeadersFile(headersFile).rules, components: new Map(), responses: new Map() };
  const paths = Object.assign({}, ...resources.map((resource) => pathItems(resource, resources, rules)));
  const headerObjects = [...rules.components].map(([key, component]) => [key, headerObject(component)]);
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
    // Read-only and open: no operation asks for credentials.
    security: [],
    tags: resources.map((resource) => ({ name: resource.name, description: resource.title })),
    paths,
    components: {
      schemas: componentSchemas(settings, resources),
      parameters: parametersOf(resources),
      responses: Object.fromEntries([...rules.responses].map(([key, { response }]) => [key, response])),
      headers: Object.fromEntries(headerObjects),
    },
  };
}

const toText = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * Every file of `schemas/` (path from the project's root → text): the JSON Schema of each
 * resource's source files, the settings file's and `schemas/openapi.json`. The same settings and `_headers` text give
 * the same bytes.
 */
export function schemaFiles(
  settings: OpenApiSettings,
  headersFile: string,
  resources: readonly Resource[],
): Map<string, string> {
  const files = new Map<string, string>();
  for (const [path, schema] of sourceFileJsonSchemas(resources)) files.set(path, toText(schema));
  files.set(SETTINGS_FILE_SCHEMA, toText(settingsFileJsonSchema(resources)));
  files.set('schemas/openapi.json', toText(openApiDocument(settings, headersFile, resources)));
  return files;
}
