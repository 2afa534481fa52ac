// The JSON Schemas of the source files (scripts/builder/documents/json-schemas.ts), made for the
// sample project: (a) they are JSON Schema 2020-12 and accept the sample's files; (b) a differential test: ajv (draft 2020-12) and zod
// reach the same verdict on every record of the sample, of every broken fixture, of fairs whose
// events are objects and of thousands of records with one value changed, except for the rules
// JSON Schema cannot express, which are listed here and named in the schemas' descriptions;
// (c) the comparison itself fails when the two disagree.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv2020/dist/2020.js';
import fc from 'fast-check';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { editorSettingsText } from '../../scripts/builder/documents/json-schemas.ts';
import { schemaFiles } from '../../scripts/builder/documents/openapi.ts';
import { DEFAULTS } from '../../scripts/cli/settings.ts';
import { isCalendarDate } from '../../scripts/contract/resources/fields.ts';
import { API, declares, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { SCHEMAS, schemaOf } from './helpers/schemas.ts';

/** A declared list's name: the catalogue's four, or another list of SAMPLE_API. */
type ResourceName = string;

const ROOT = path.resolve(import.meta.dirname, '../..');

const RESOURCE_NAMES: ResourceName[] = API.map((resource) => resource.name);
const FILES = schemaFiles(
  { baseUrl: DEFAULTS.baseUrl, pageSize: DEFAULTS.pageSize },
  readFileSync(SAMPLE_HEADERS, 'utf8'),
  API,
);

// biome-ignore lint/suspicious/noExplicitAny: records of every shape, right and wrong
type Raw = any;
type Schema = Record<string, Raw>;

const fileSchema = (resource: ResourceName): Schema =>
  JSON.parse(FILES.get(`schemas/${resource}.schema.json`) as string);

/**
 * The rules JSON Schema cannot express (or only in part), by the start of zod's message: a record
 * that breaks one of them may pass ajv. `described` is what the schema's description says of it.
 */
const BUILD_ONLY: ReadonlyArray<{ message: string; resources: readonly ResourceName[]; described: string }> = [
  { message: 'expected a date on or after start_date', resources: ['event'], described: 'end_date is on or after' },
  { message: 'expected max >= min', resources: ['virtualfair'], described: 'min <= default <= max' },
  { message: 'expected a level from min to max', resources: ['virtualfair'], described: 'min <= default <= max' },
  {
    message: 'expected well-formed Unicode text (no lone surrogates)',
    resources: RESOURCE_NAMES,
    described: 'no lone surrogates',
  },
  // The schema checks the form with a pattern; whether WHATWG's parser takes it is the build's.
  {
    message: 'expected an absolute http(s) URL',
    resources: ['company', 'virtualfair', 'virtualbooth-texture'],
    described: 'parses as a URL (WHATWG URL)',
  },
  {
    message: 'expected the URL of a jpg or png image',
    resources: ['virtualbooth-texture'],
    described: 'parses as a URL (WHATWG URL)',
  },
  // uniqueItems sees [5, 5] but not [5, {"id": 5}].
  {
    message: 'expected each event id once',
    resources: ['virtualfair'],
    described: 'each event id once in a fair, whether given alone or in an object',
  },
];

const isBuildOnly = (message: string) => BUILD_ONLY.some((rule) => message.startsWith(rule.message));
const pointer = (segments: ReadonlyArray<PropertyKey>) =>
  segments.map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/** The values zod rejects, as JSON pointers: all of them, and those of rules JSON Schema expresses. */
function zodVerdict(resource: ResourceName, record: Raw): { all: Set<string>; expressible: Set<string> } {
  const all = new Set<string>();
  const expressible = new Set<string>();
  const result = schemaOf(resource).safeParse(record);
  for (const issue of result.success ? [] : result.error.issues) {
    const at = issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : [issue.path];
    for (const segments of at) {
      all.add(pointer(segments));
      if (!isBuildOnly(issue.message)) expressible.add(pointer(segments));
    }
  }
  return { all, expressible };
}

/**
 * The values ajv rejects, as JSON pointers (a missing or unknown field at the field's own pointer),
 * and the arrays it rejects by uniqueItems alone.
 */
function ajvVerdict(validate: ValidateFunction, record: Raw): { all: Set<string>; uniqueItemsOnly: Set<string> } {
  if (validate(record)) return { all: new Set(), uniqueItemsOnly: new Set() };
  const errors = validate.errors as ErrorObject[];
  const all = new Set(
    errors.map((error) => {
      const { params } = error;
      if (error.keyword === 'required') return `${error.instancePath}${pointer([params.missingProperty])}`;
      if (error.keyword === 'additionalProperties')
        return `${error.instancePath}${pointer([params.additionalProperty])}`;
      return error.instancePath;
    }),
  );
  const uniqueItemsOnly = new Set(
    errors
      .filter((error) => error.keyword === 'uniqueItems')
      .map((error) => error.instancePath)
      .filter((at) => errors.every((error) => error.instancePath !== at || error.keyword === 'uniqueItems')),
  );
  return { all, uniqueItemsOnly };
}

/**
 * Where ajv and zod disagree on `record`: ajv must reject every value zod rejects by a rule JSON
 * Schema expresses, and nothing zod accepts. (Where a build-only rule fails, ajv may reject the
 * value or not: its pattern checks the form.) uniqueItems compares every item of an array, zod
 * only items that passed their own checks: ajv rejecting an array by uniqueItems alone agrees with
 * zod rejecting one of its items.
 */
function disagreement(resource: ResourceName, validate: ValidateFunction, record: Raw): string | null {
  const zod = zodVerdict(resource, record);
  const ajv = ajvVerdict(validate, record);
  const itemRejectedByZod = (array: string) => [...zod.all].some((at) => at.startsWith(`${array}/`));
  const missed = [...zod.expressible].filter((at) => !ajv.all.has(at));
  const extra = [...ajv.all].filter(
    (at) => !zod.all.has(at) && !(ajv.uniqueItemsOnly.has(at) && itemRejectedByZod(at)),
  );
  if (missed.length === 0 && extra.length === 0) return null;
  return `${resource} ${JSON.stringify(record)}: ajv accepts ${JSON.stringify(missed)}, rejects ${JSON.stringify(extra)} (zod: ${JSON.stringify([...zod.all])})`;
}

function recordValidator(schema: Schema, resource: ResourceName): ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
  const { anyOf: _, ...definitions } = schema;
  return ajv.compile({ ...definitions, $ref: `#/$defs/${resource.replaceAll('-', '_')}` });
}

const VALIDATORS = new Map(RESOURCE_NAMES.map((name) => [name, recordValidator(fileSchema(name), name)]));
const disagreements = (resource: ResourceName, records: readonly Raw[]) =>
  records
    .map((record) => disagreement(resource, VALIDATORS.get(resource) as ValidateFunction, record))
    .filter((found) => found !== null);

/** Every record of the sample and of the broken fixtures, by resource (files that parse as JSON). */
function sourceRecords(): Map<ResourceName, Raw[]> {
  const records = new Map<ResourceName, Raw[]>(RESOURCE_NAMES.map((name) => [name, []]));
  const files: Array<[ResourceName, string]> = [
    ...fg
      .sync('*/**/*.json', { cwd: SAMPLE_DATA })
      .map((file): [string, string] => [file.split('/')[0] as string, path.join(SAMPLE_DATA, file)]),
    ...fg
      .sync('test/fixtures/broken/*/data/*/**/*.json', { cwd: ROOT })
      .map((file): [string, string] => [file.split('/')[5] as string, path.join(ROOT, file)]),
  ];
  for (const [resource, file] of files) {
    let value: Raw;
    try {
      value = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      continue; // malformed-json: the build's parser reports it, no schema is involved
    }
    records.get(resource)?.push(...(Array.isArray(value) ? value : [value]));
  }
  return records;
}

const SOURCE = sourceRecords();

// A fair's events given as objects (scripts/builder/pipeline/validators.ts, fairEventSchema): right and wrong.
const [SAMPLE_FAIR] = SOURCE.get('virtualfair') as Raw[];
const EVENT_ID = SAMPLE_FAIR.events[0] as number;
const FAIR_EVENT = {
  id: 412,
  slug: 'expo-2033',
  name: 'Expo',
  short_code: 'EX33',
  start_date: '2033-10-18',
  event_logo: '/media/events/expo.png',
};
const withEvents = (...events: Raw[]): Raw => ({ ...SAMPLE_FAIR, events });
const FAIRS_WITH_OBJECTS = {
  valid: [
    withEvents({ id: EVENT_ID }),
    withEvents(EVENT_ID, FAIR_EVENT),
    withEvents({ id: EVENT_ID, short_code: null }, { id: 7, event_logo: '/media/x.svg' }),
    withEvents({ id: EVENT_ID, name: 'Expo (virtual)', slug: 'expo-virtual', start_date: '2024-02-29' }),
  ],
  invalid: [
    withEvents({ ...FAIR_EVENT, id: 0 }),
    withEvents({ ...FAIR_EVENT, id: '412' }),
    withEvents({ slug: 'expo' }),
    withEvents({}),
    withEvents({ id: EVENT_ID, name: '' }),
    withEvents({ id: EVENT_ID, slug: 5 }),
    withEvents({ id: EVENT_ID, short_code: 5 }),
    withEvents({ id: EVENT_ID, start_date: '2023-02-29' }),
    withEvents({ id: EVENT_ID, start_date: '2023-2-28' }),
    withEvents({ id: EVENT_ID, event_logo: null }),
    withEvents({ id: EVENT_ID, event_logo: 'https://example.com/x.png' }),
    withEvents({ id: EVENT_ID, logo: '/media/x.png' }),
    withEvents({ id: EVENT_ID, end_date: '2024-05-02', logo_bg_color: null }),
    withEvents({ id: EVENT_ID, name: 5, slug: '', event_logo: 'x', extra: 1 }),
    withEvents([EVENT_ID]),
    withEvents(String(EVENT_ID)),
    withEvents(null),
    withEvents(1.5),
    withEvents(EVENT_ID, { id: EVENT_ID }),
    withEvents({ id: EVENT_ID }, { id: EVENT_ID, name: 'Expo' }),
    withEvents(FAIR_EVENT, FAIR_EVENT),
  ],
};

// Values to put in each field of a valid record, right and wrong for one rule or another.
const UUID = '6a1351f2-4afd-4a5d-96cc-b91631d3a389';
const CANDIDATES: readonly Raw[] = [
  null,
  true,
  0,
  -1,
  1,
  7,
  1.5,
  2 ** 53,
  -(2 ** 60),
  '',
  ' ',
  'x',
  ' x',
  'a,b',
  'a, b',
  'a,,b',
  'a,b ',
  '2024-02-29',
  '2023-02-29',
  '1900-02-29',
  '2000-02-29',
  '0000-01-01',
  '2024-04-31',
  '2024-13-01',
  '2024-1-01',
  '9999-12-31',
  '0001-01-01',
  '#abcdef',
  '#ABCDEF',
  '#abcdeg',
  '#abc',
  '/media/x.png',
  '/media/',
  '/media/a b',
  'media/x',
  'http://a',
  'HTTPS://example.com/x',
  'https://example.com/a b',
  'https://example.com/t.png',
  'https://example.com/t.JPEG?x=1',
  'https://example.com/t.gif',
  'https://t.png',
  'https://example.com/t.png/..',
  'http://[::1',
  'http://a:99999/',
  'ftp://example.com/x.png',
  '{z}/{x}/{y}',
  '{z}/{x}/{y}/{z}',
  '{z}/{x}',
  '{x}{y}{z}.png',
  'png',
  '.png',
  'PNG',
  'expo-2024_b',
  'expo 2024',
  UUID,
  UUID.toUpperCase(),
  'not-a-uuid',
  'Stra\ud83d\ude00e',
  'lone \ud800',
  [],
  [1],
  [1, 1],
  [1, 2],
  [0],
  [UUID],
  [UUID, UUID],
  ['x'],
  {},
  { a: 1 },
];

/** The path of every value of a record: its fields, and the fields and items inside them. */
function valuePaths(value: Raw, at: Array<string | number> = []): Array<Array<string | number>> {
  if (value === null || typeof value !== 'object') return [];
  const keys = Array.isArray(value) ? value.map((_, index) => index) : Object.keys(value);
  return keys.flatMap((key) => [[...at, key], ...valuePaths(value[key], [...at, key])]);
}

function setAt(record: Raw, at: ReadonlyArray<string | number>, change: (parent: Raw, key: string | number) => void) {
  const copy = structuredClone(record);
  let parent = copy;
  for (const key of at.slice(0, -1)) parent = parent[key];
  change(parent, at.at(-1) as string | number);
  return copy;
}

/** A valid record with one value changed, removed or added, in every way CANDIDATES allow. */
function mutants(record: Raw): Raw[] {
  const out: Raw[] = [];
  for (const at of valuePaths(record)) {
    for (const candidate of CANDIDATES) {
      out.push(
        setAt(record, at, (parent, key) => {
          parent[key] = candidate;
        }),
      );
    }
    out.push(
      setAt(record, at, (parent, key) => {
        if (Array.isArray(parent)) parent.splice(Number(key), 1);
        else delete parent[key];
      }),
    );
  }
  // An unknown field in the record and in each object inside it.
  for (const at of [[], ...valuePaths(record)]) {
    let value = record;
    for (const key of at) value = value[key];
    if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    out.push(
      setAt(record, [...at, 'e_mail_typo'], (parent, key) => {
        parent[key] = 1;
      }),
    );
  }
  return [...out, null, 1, 'x', [], [record]];
}

describe('the JSON Schemas', () => {
  it('are JSON Schema 2020-12 that ajv compiles in strict mode', () => {
    for (const resource of RESOURCE_NAMES) {
      const schema = fileSchema(resource);
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(() => new Ajv2020({ strict: true, strictTypes: false }).compile(schema)).not.toThrow();
    }
  });

  it('accept every file of the sample, whether it holds one record or an array', () => {
    for (const resource of RESOURCE_NAMES) {
      const validate = new Ajv2020({ allErrors: true, strictTypes: false }).compile(fileSchema(resource));
      const files = fg.sync(`${resource}/**/*.json`, { cwd: SAMPLE_DATA });
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const value = JSON.parse(readFileSync(path.join(SAMPLE_DATA, file), 'utf8'));
        expect(validate(value), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
        const [first] = Array.isArray(value) ? value : [value];
        expect(validate(first)).toBe(true);
        expect(validate([first])).toBe(true);
      }
      expect(validate([])).toBe(true);
      expect(validate('x')).toBe(false);
    }
  });

  it('name in their description every rule JSON Schema cannot express', () => {
    for (const rule of BUILD_ONLY) {
      for (const resource of rule.resources.filter(declares)) {
        expect(fileSchema(resource).description, `${resource}: ${rule.message}`).toContain(rule.described);
      }
    }
    for (const resource of RESOURCE_NAMES) expect(fileSchema(resource).description).toContain('unique');
  });
});

describe('ajv and zod agree on each record, but for the build-only rules', () => {
  it.each(RESOURCE_NAMES)('on every %s of the sample and of the broken fixtures', (resource) => {
    const records = SOURCE.get(resource) as Raw[];
    expect(records.length).toBeGreaterThan(1);
    expect(disagreements(resource, records)).toEqual([]);
  });

  it('the broken fixtures hold records that both reject', () => {
    const verdicts = RESOURCE_NAMES.flatMap((resource) =>
      (SOURCE.get(resource) as Raw[]).map((record) => zodVerdict(resource, record).expressible.size),
    );
    expect(verdicts.filter((size) => size > 0).length).toBeGreaterThan(3);
  });

  it.each(RESOURCE_NAMES)('on every %s with one value changed, removed or added', (resource) => {
    const [valid] = SOURCE.get(resource) as Raw[];
    expect(schemaOf(resource).safeParse(valid).success).toBe(true);
    const records = mutants(valid);
    expect(disagreements(resource, records)).toEqual([]);
    // The mutants reach most rules: many are rejected by both, some by zod alone.
    const verdicts = records.map((record) => zodVerdict(resource, record));
    expect(verdicts.filter((verdict) => verdict.expressible.size > 0).length).toBeGreaterThan(records.length / 3);
  });

  it("on fairs whose events are objects, valid and invalid in each field's way", () => {
    const { valid, invalid } = FAIRS_WITH_OBJECTS;
    expect(disagreements('virtualfair', [...valid, ...invalid])).toEqual([]);
    for (const fair of valid) expect(SCHEMAS.virtualfair.safeParse(fair).success, JSON.stringify(fair)).toBe(true);
    for (const fair of invalid)
      expect(zodVerdict('virtualfair', fair).all.size, JSON.stringify(fair)).toBeGreaterThan(0);
  });

  it('on a fair whose events are objects, with one value changed, removed or added', () => {
    const fair = withEvents(EVENT_ID, { id: EVENT_ID + 1, name: 'Expo', short_code: null }, FAIR_EVENT);
    expect(SCHEMAS.virtualfair.safeParse(fair).success).toBe(true);
    const records = mutants(fair);
    expect(disagreements('virtualfair', records)).toEqual([]);
    const rejectedInEvents = records.filter((record) =>
      [...zodVerdict('virtualfair', record).expressible].some((at) => /^\/events\/\d+\/./.test(at)),
    );
    expect(rejectedInEvents.length).toBeGreaterThan(100);
  });

  it('the build-only rules are reached, and ajv accepts records that break only them', () => {
    const [event] = SOURCE.get('event') as Raw[];
    const [fair] = SOURCE.get('virtualfair') as Raw[];
    const [company] = SOURCE.get('company') as Raw[];
    const cases: Array<[ResourceName, Raw]> = [
      ['event', { ...event, start_date: '2024-05-02', end_date: '2024-05-01' }],
      ['virtualfair', { ...fair, zoom: { ...fair.zoom, min: 5, max: 4, default: 4 } }],
      ['virtualfair', { ...fair, zoom: { ...fair.zoom, min: 1, max: 4, default: 0 } }],
      ['virtualfair', { ...fair, events: [fair.events[0], { id: fair.events[0], name: 'Expo' }] }],
      ['virtualfair', { ...fair, events: [{ id: fair.events[0], name: 'lone \ud800' }] }],
      ['company', { ...company, name: 'lone \udc00' }],
      ['company', { ...company, logo: 'http://a:99999/' }],
      ...(declares('virtualbooth-texture')
        ? [
            [
              'virtualbooth-texture',
              { ...(SOURCE.get('virtualbooth-texture') as Raw[])[0], texture: 'https://a:99999/b.png' },
            ] as [ResourceName, Raw],
          ]
        : []),
    ];
    for (const [resource, record] of cases) {
      expect(schemaOf(resource).safeParse(record).success, JSON.stringify(record)).toBe(false);
      expect((VALIDATORS.get(resource) as ValidateFunction)(record), JSON.stringify(record)).toBe(true);
      expect(disagreement(resource, VALIDATORS.get(resource) as ValidateFunction, record)).toBeNull();
    }
  });

  it('on random strings in every text field (fast-check)', () => {
    const pieces = ['a', 'Z', '0', '9', '-', '_', ',', ' ', '\t', '/', '.', '#', '?', '{z}', '{x}', '{y}', 'é'];
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: fc.constantFrom(...pieces, 'http://', 'https://', '/media/', '.png', '.jpg', '2024-', '02-') }),
    );
    const records: Array<[ResourceName, Raw]> = [
      ...RESOURCE_NAMES.map((resource): [ResourceName, Raw] => [resource, (SOURCE.get(resource) as Raw[])[0]]),
      ['virtualfair', withEvents({ id: EVENT_ID, short_code: 'X' }, FAIR_EVENT)],
    ];
    for (const [resource, valid] of records) {
      const textPaths = valuePaths(valid).filter((at) => {
        let value = valid;
        for (const key of at) value = value[key];
        return typeof value === 'string';
      });
      fc.assert(
        fc.property(fc.constantFrom(...textPaths), text, (at, value) => {
          const record = setAt(valid, at, (parent, key) => {
            parent[key] = value;
          });
          expect(disagreement(resource, VALIDATORS.get(resource) as ValidateFunction, record)).toBeNull();
        }),
        { numRuns: 2000, seed: 17 },
      );
    }
  });

  it('the date pattern is isCalendarDate() on every day 00..32 of months 00..13, years 0000..0010 and 1582..2500', () => {
    const { pattern } = fileSchema('event').$defs.event.properties.start_date;
    const regex = new RegExp(pattern, 'u');
    const years = [...Array.from({ length: 11 }, (_, y) => y), ...Array.from({ length: 919 }, (_, y) => 1582 + y)];
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    for (const year of years) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const date = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
          if (regex.test(date) !== isCalendarDate(date)) expect.fail(`${date}: regex ${regex.test(date)}`);
        }
      }
    }
  });
});

describe('the comparison fails when ajv and zod disagree', () => {
  const [company] = SOURCE.get('company') as Raw[];
  const weakened = (change: (record: Schema) => void) => {
    const schema = structuredClone(fileSchema('company'));
    change(schema.$defs.company);
    return recordValidator(schema, 'company');
  };

  it('when zod rejects a record that ajv accepts', () => {
    const validate = weakened((record) => {
      delete record.properties.tags.anyOf[0].pattern;
    });
    expect(disagreement('company', validate, { ...company, tags: 'a, b' })).toMatch(/ajv accepts \["\/tags"\]/);
    const noRequired = weakened((record) => {
      record.required = [];
    });
    const { name: _, ...withoutName } = company;
    expect(disagreement('company', noRequired, withoutName)).toMatch(/ajv accepts \["\/name"\]/);
  });

  it('when ajv rejects a record that zod accepts', () => {
    const validate = weakened((record) => {
      record.properties.street.minLength = 1;
    });
    expect(disagreement('company', validate, { ...company, street: '' })).toMatch(/rejects \["\/street"\]/);
  });
});

describe("the editor's mapping (editorSettingsText)", () => {
  const mapping = (text: string) => JSON.parse(text.replace(/^\s*\/\/.*$/gm, ''))['json.schemas'];

  it('maps each list to its schema, in a new file as in one the user wrote, keeping their settings', () => {
    const expected = RESOURCE_NAMES.map((name) => ({
      fileMatch: [`/data/${name}/**/*.json`],
      url: `./schemas/${name}.schema.json`,
    }));
    expect(mapping(editorSettingsText(undefined, API))).toEqual(expected);
    const mine =
      '{\n  // my own\n  "editor.tabSize": 4,\n  "json.schemas": [{ "fileMatch": ["/x"], "url": "./x.json" }]\n}\n';
    const kept = editorSettingsText(mine, API);
    expect(kept).toContain('// my own\n  "editor.tabSize": 4,');
    expect(mapping(kept)).toEqual(expected);
    expect(editorSettingsText(kept, API)).toBe(kept);
  });

  it('follows the declarations: one list fewer is one mapping fewer', () => {
    expect(mapping(editorSettingsText(undefined, API.slice(1)))).toHaveLength(API.length - 1);
  });
});
