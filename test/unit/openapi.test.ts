// The OpenAPI 3.1 document (scripts/builder/documents/openapi.ts, committed as schemas/openapi.json; its
// staleness is checked by json-schemas.test.ts): (a) it is a valid OpenAPI 3.1 document for
// @seriousme/openapi-schema-validator; (b) it has the four paths, their parameters with the allowed
// values, the headers of `_headers` on every response, and the 301 of the paths without `/`;
// (c) every answer the build wrote into the committed public/ (each route of planRoutes, the
// `_errors/*` and `_options/*` files) validates against its response's schema with ajv.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv2020/dist/2020.js';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';

import { schemaFiles } from '../../scripts/builder/documents/openapi.ts';
import type { SourceRecord } from '../../scripts/builder/pipeline/load.ts';
import { render, routesOf } from '../../scripts/builder/pipeline/render.ts';
import { validate } from '../../scripts/builder/pipeline/validate.ts';
import { declaredWithQueries } from '../../scripts/builder/site.ts';
import { DEFAULTS } from '../../scripts/cli/settings.ts';
import { headersFor, parseHeadersFile } from '../../scripts/contract/headers.ts';
import { pageCount } from '../../scripts/contract/pagination.ts';
import { event } from '../../scripts/contract/resources/index.ts';
import {
  FORMATS,
  INVALID_PAGE_FILE,
  methodNotAllowedFile,
  NOT_FOUND_FILE,
  optionsFile,
  planRoutes,
  REJECTED_METHODS,
  UNSUPPORTED_ORDERING_FILE,
} from '../../scripts/contract/routes.ts';
import { API, declares, missingList, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { builtSample } from './helpers/sample-output.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON
type Doc = any;

const HEADERS_FILE = readFileSync(SAMPLE_HEADERS, 'utf8');
const SETTINGS: { baseUrl: string; pageSize: number } = { baseUrl: DEFAULTS.baseUrl, pageSize: DEFAULTS.pageSize };
const documentOf = (settings = SETTINGS, headersFile = HEADERS_FILE): Doc =>
  JSON.parse(schemaFiles(settings, headersFile, API).get('schemas/openapi.json') as string);
const DOC = documentOf();
/** The sample built with the default settings, whose answers the document describes. */
const PUBLIC = await builtSample();
const METHODS = ['get', 'head', 'options', 'post', 'put', 'patch', 'delete', 'trace'];

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** The JSON pointer (in DOC) of the body schema of a response, following a `components/responses` reference. */
function bodyPointer(apiPath: string, method: string, status: string): string {
  const response = DOC.paths[apiPath][method].responses[status];
  const base = response.$ref
    ? (response.$ref as string).slice(1)
    : `/paths/${escapePointer(apiPath)}/${method}/responses/${status}`;
  return `${base}/content/application~1json/schema`;
}

function resolveResponse(response: Doc): Doc {
  if (!response.$ref) return response;
  const [, , , name] = (response.$ref as string).split('/');
  return DOC.components.responses[name as string];
}

const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addSchema(DOC, 'openapi.json');
const validatorFor = (pointer: string) => ajv.compile({ $ref: `openapi.json#${pointer}` });

describe('schemas/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(DOC));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has the four paths, each without its slash as a 301 keeping the query, whatever the method', () => {
    expect(Object.keys(DOC.paths)).toEqual(API.flatMap((resource) => [resource.path, resource.path.slice(0, -1)]));
    for (const resource of API) {
      expect(Object.keys(DOC.paths[resource.path])).toEqual(METHODS);
      const redirect = DOC.paths[resource.path.slice(0, -1)];
      expect(Object.keys(redirect)).toEqual(METHODS);
      for (const method of METHODS) {
        expect(Object.keys(redirect[method].responses)).toEqual(['301']);
        expect(resolveResponse(redirect[method].responses['301']).headers.Location).toMatchObject({ required: true });
      }
    }
    expect(DOC.servers).toEqual([{ url: DEFAULTS.baseUrl }]);
  });

  it('gives ordering, page and format with their allowed values', ({ skip }) => {
    skip(!declares('virtualbooth-texture'), missingList('virtualbooth-texture'));
    const { ordering, page, format } = DOC.components.parameters;
    expect(ordering).toMatchObject({ in: 'query', style: 'form', explode: false });
    expect(ordering.schema.items.enum).toEqual(event.orderingFields.flatMap((field) => [field, `-${field}`]));
    expect(format.schema.enum).toEqual([...FORMATS]);
    const pageSchema = new Ajv2020({ strict: false }).compile(page.schema);
    expect([1, 2, 100, 'last'].map((value) => pageSchema(value))).toEqual([true, true, true, true]);
    expect([0, -1, 1.5, 'first', ''].map((value) => pageSchema(value))).toEqual([false, false, false, false, false]);
    const parameters = (apiPath: string) =>
      DOC.paths[apiPath].get.parameters.map((parameter: Doc) => parameter.$ref.split('/').at(-1));
    expect(parameters('/company/')).toEqual(['format']);
    expect(parameters('/virtualfair/')).toEqual(['format']);
    expect(parameters('/event/')).toEqual(['format', 'ordering']);
    expect(parameters('/virtualbooth-texture/')).toEqual(['format', 'page']);
  });

  it('gives every response the headers of _headers, with their values', () => {
    const { rules } = parseHeadersFile(HEADERS_FILE);
    for (const [apiPath, item] of Object.entries<Doc>(DOC.paths)) {
      const expected = headersFor(rules, apiPath);
      expect(Object.keys(expected)).toEqual(expect.arrayContaining(['Content-Type', 'Vary', 'Allow']));
      for (const operation of Object.values<Doc>(item)) {
        for (const reference of Object.values<Doc>(operation.responses)) {
          const response = resolveResponse(reference);
          const values = Object.fromEntries(
            Object.entries<Doc>(response.headers)
              .filter(([name]) => name !== 'Location')
              .map(([name, header]) => {
                const { schema, required } = DOC.components.headers[header.$ref.split('/').at(-1)];
                expect(required, `${apiPath} ${name}`).toBe(true);
                return [name, schema.const ?? schema.examples[0]];
              }),
          );
          expect(values, `${apiPath} ${response.description}`).toEqual(expected);
        }
      }
    }
  });

  // A list of 4 KiB or more is sent precompressed to a client that accepts it, and its Vary then
  // names Accept-Encoding too: `, ` after Accept (local, nginx), `,` (Apache), or a second line.
  it("lets Vary name Accept-Encoding on a list's 200, and on no other answer", () => {
    const headerSchema = (reference: Doc, name: string) => {
      const schema = DOC.components.headers[resolveResponse(reference).headers[name].$ref.split('/').at(-1)].schema;
      return new Ajv2020({ strict: false }).compile(schema);
    };
    for (const resource of API) {
      for (const method of ['get', 'head']) {
        const vary = headerSchema(DOC.paths[resource.path][method].responses['200'], 'Vary');
        const accepted = ['Accept', 'Accept, Accept-Encoding', 'Accept,Accept-Encoding'].map((value) => vary(value));
        expect(accepted, `${method} ${resource.path}`).toEqual([true, true, true]);
        const refused = ['Accept-Encoding, Accept', 'Accept, Origin', 'Accept, Accept-Encoding, Accept-Encoding', ''];
        expect(refused.map((value) => vary(value))).toEqual([false, false, false, false]);
      }
      for (const [method, status] of [
        ['get', '404'],
        ['options', '200'],
        ['post', '405'],
      ]) {
        const vary = headerSchema(DOC.paths[resource.path][method as string].responses[status as string], 'Vary');
        expect([vary('Accept'), vary('Accept, Accept-Encoding')], `${method} ${resource.path} ${status}`).toEqual([
          true,
          false,
        ]);
      }
      const redirect = headerSchema(DOC.paths[resource.path.slice(0, -1)].get.responses['301'], 'Vary');
      expect([redirect('Accept'), redirect('Accept, Accept-Encoding')]).toEqual([true, false]);
    }
  });

  it('follows the settings and the _headers file it is given', ({ skip }) => {
    skip(!declares('virtualbooth-texture'), missingList('virtualbooth-texture'));
    const doc = documentOf(
      { baseUrl: 'https://api.example.com/v1', pageSize: 3 },
      `${HEADERS_FILE}\n/event/\n  Cache-Control: max-age=60\n`,
    );
    expect(doc.servers).toEqual([{ url: 'https://api.example.com/v1' }]);
    expect(doc.components.schemas.TexturePage.properties.results.maxItems).toBe(3);
    expect(doc.paths['/event/'].get.responses['200'].headers['Cache-Control']).toBeDefined();
    expect(doc.paths['/company/'].get.responses['200'].headers['Cache-Control']).toBeUndefined();
  });

  // A preview, a deploy preview or a second host builds its links on its own origin: the
  // document holds for each, checking the link from the path on.
  it("takes a page link on any origin and under any prefix, as long as it is the list's", ({ skip }) => {
    skip(!declares('virtualbooth-texture'), missingList('virtualbooth-texture'));
    const link = new Ajv2020({ strict: false }).compile(DOC.components.schemas.TexturePage.properties.next);
    const held = [
      null,
      'http://localhost:3000/virtualbooth-texture/?page=2',
      'http://127.0.0.1:41234/virtualbooth-texture/?format=api&page=last',
      'https://api.example.com/v1/virtualbooth-texture/',
      'https://deploy-preview-7--site.netlify.app/virtualbooth-texture/?page=3',
    ];
    expect(held.map((value) => link(value))).toEqual(held.map(() => true));
    const refused = [
      '/virtualbooth-texture/?page=2',
      'http://localhost:3000/company/?page=2',
      'http://localhost:3000/virtualbooth-texture/?page=2#top',
      'http://localhost:3000/virtualbooth-texture',
      'http:///virtualbooth-texture/',
      5,
    ];
    expect(refused.map((value) => link(value))).toEqual(refused.map(() => false));
    expect(DOC.components.schemas.TexturePage.properties.next.format).toBe('uri');
  });
});

const read = (file: string) => JSON.parse(readFileSync(path.join(PUBLIC, file), 'utf8'));

/** Every answer file of public/ with the pointer of each response schema it must meet. */
function answers(): Array<[file: string, pointer: string]> {
  const pageCounts = Object.fromEntries(
    API.filter((resource) => resource.paginated).map((resource) => [
      resource.name,
      pageCount(read(`${resource.name}/index.json`).count, DEFAULTS.pageSize),
    ]),
  );
  const list: Array<[string, string]> = planRoutes(pageCounts, API).map((route) => [
    route.file,
    bodyPointer(route.path, 'get', '200'),
  ]);
  for (const resource of API) {
    list.push([NOT_FOUND_FILE, bodyPointer(resource.path, 'get', '404')]);
    list.push([NOT_FOUND_FILE, bodyPointer(resource.path, 'options', '404')]);
    list.push([optionsFile(resource.name), bodyPointer(resource.path, 'options', '200')]);
    for (const method of REJECTED_METHODS) {
      list.push([methodNotAllowedFile(method), bodyPointer(resource.path, method.toLowerCase(), '405')]);
    }
  }
  for (const resource of API) {
    if (resource.paginated) list.push([INVALID_PAGE_FILE, bodyPointer(resource.path, 'get', '404')]);
    if (resource.orderingFields.length > 0)
      list.push([UNSUPPORTED_ORDERING_FILE, bodyPointer(resource.path, 'get', '400')]);
  }
  return list;
}

describe('every answer in public/ validates against its response schema (ajv)', () => {
  const ANSWERS = answers();

  it.each(ANSWERS)('%s against %s', (file, pointer) => {
    const validate = validatorFor(pointer);
    expect(validate(read(file)), JSON.stringify(validate.errors)).toBe(true);
  });

  it('and no answer validates against another one', () => {
    const notFound = validatorFor(bodyPointer('/company/', 'get', '404'));
    expect(notFound(read(INVALID_PAGE_FILE))).toBe(false);
    expect(validatorFor(bodyPointer('/event/', 'options', '200'))(read(optionsFile('company')))).toBe(false);
    expect(validatorFor(bodyPointer('/company/', 'get', '200'))(read('event/index.json'))).toBe(false);
    expect(validatorFor(bodyPointer('/event/', 'get', '200'))(read('company/index.json'))).toBe(false);
    expect(validatorFor(bodyPointer('/event/', 'get', '200'))(read('virtualfair/index.json'))).toBe(false);
  });

  // The fair event's schema is the event's (FairEvent, picked from it), whichever form the data gives.
  it('and so does a /virtualfair/ answer whose fair events are given as objects', () => {
    const fixture = (file: string): unknown[] =>
      JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/good/data', file), 'utf8'));
    const [fair] = fixture('virtualfair/fairs.json') as Array<Record<string, unknown>>;
    const events = [
      9,
      { id: 5, name: 'Expo (virtual)', short_code: null },
      { id: 11, event_logo: '/media/events/future-days.png' },
      {
        id: 412,
        slug: 'expo-online-2033',
        name: 'Expo Online',
        short_code: 'EXO',
        start_date: '2033-10-18',
        event_logo: '/media/events/expo-online.png',
      },
    ];
    const records: SourceRecord[] = [
      { resource: 'virtualfair', file: 'fairs.json', index: 0, value: { ...fair, events } },
      ...fixture('event/events.json').map(
        (value, index): SourceRecord => ({ resource: 'event', file: 'events.json', index, value }),
      ),
    ];
    const { catalogue, errors } = validate(records, API);
    expect(errors).toEqual([]);
    const files = render(catalogue, routesOf(catalogue, SETTINGS.pageSize, API), HEADERS_FILE, SETTINGS, API);
    const body = JSON.parse(files.get('virtualfair/index.json') as string);
    expect(body[0].events).toHaveLength(events.length);
    const validateFairs = validatorFor(bodyPointer('/virtualfair/', 'get', '200'));
    expect(validateFairs(body), JSON.stringify(validateFairs.errors)).toBe(true);
    body[0].events[3].event_logo = 5;
    expect(validateFairs(body)).toBe(false);
  });

  it('covers every JSON file of public/', () => {
    const files = fg.sync('**/*.json', { cwd: PUBLIC, dot: true });
    expect(files.length).toBeGreaterThan(20);
    // The build writes the invalid-page body whether a list is paginated or not: with none, no answer is it.
    const unanswered = API.some((resource) => resource.paginated) ? [] : [INVALID_PAGE_FILE];
    expect([...new Set(ANSWERS.map(([file]) => file)), ...unanswered].sort()).toEqual(files.sort());
  });
});

describe('with filters, search and ordering in the settings (test/fixtures/filters/)', () => {
  const settingsPath = path.join(ROOT, 'test/fixtures/filters/static-api.config.json');
  const { resources: resourceSettings } = JSON.parse(readFileSync(settingsPath, 'utf8'));
  const resources = declaredWithQueries(API, resourceSettings, settingsPath);
  const doc: Doc = JSON.parse(schemaFiles(SETTINGS, HEADERS_FILE, resources).get('schemas/openapi.json') as string);
  const names = (apiPath: string) =>
    doc.paths[apiPath].get.parameters.map((parameter: Doc) => parameter.name ?? parameter.$ref.split('/').at(-1));

  it('is still a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
  });

  it('names each filter, the search and the ordering of the lists that have them, and no others', ({ skip }) => {
    skip(!declares('virtualbooth-texture'), missingList('virtualbooth-texture'));
    expect(names('/company/')).toEqual([
      'format',
      'country_name',
      'city',
      'platform_plus_status',
      'phone',
      'id',
      'search',
      'ordering',
    ]);
    expect(names('/virtualbooth-texture/')).toEqual(['format', 'page', 'id', 'name', 'search', 'ordering']);
    expect(names('/virtualfair/')).toEqual(['format']);
    expect(names('/event/')).toEqual(DOC.paths['/event/'].get.parameters.map((p: Doc) => p.$ref.split('/').at(-1)));
  });

  it("describes the 400 of a value a filter cannot read in django-filter's form", () => {
    const validator = new Ajv2020({ allErrors: true, strict: false });
    validator.addSchema(doc, 'filtered.json');
    const pointer = `/paths/${escapePointer('/company/')}/get/responses/400/content/application~1json/schema`;
    const validate = validator.compile({ $ref: `filtered.json#${pointer}` });
    expect(validate({ id: ['Enter a number.'], platform_plus_status: ['Enter a valid boolean.'] })).toBe(true);
    expect(validate({ id: 'Enter a number.' })).toBe(false);
  });
});
