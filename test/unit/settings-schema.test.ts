// The settings file's JSON Schema (schemas/static-api.config.schema.json, written by
// builder/documents/json-schemas.ts): it names every key the settings parser reads
// (cli/settings-file.ts, cli/settings.ts) and no other, ajv takes the project's settings files
// and the examples of the docs, refuses broken ones, and on generated `resources` sections ajv
// and the parser (cli/settings-file.ts for the form, builder/pipeline/query-fields.ts for the
// fields) reach the same verdict, so that the schema cannot drift from the parser unseen.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv2020/dist/2020.js';
import fc from 'fast-check';
import fg from 'fast-glob';
import { afterAll, describe, expect, it } from 'vitest';
import { SETTINGS_FILE_SCHEMA, settingsFileJsonSchema } from '../../scripts/builder/documents/json-schemas.ts';
import { QuerySettingsError, shownFields, withQuerySettings } from '../../scripts/builder/pipeline/query-fields.ts';
import { OPTIONS, readSettings, UsageError } from '../../scripts/cli/settings.ts';
import { checkResourceSettings, SETTINGS_FILE_KEYS, SettingsFileError } from '../../scripts/cli/settings-file.ts';
import { RESOURCE_SETTING_KEYS } from '../../scripts/contract/query.ts';
import { API, missingList } from '../fixtures/sample.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

// biome-ignore lint/suspicious/noExplicitAny: settings of every shape, right and wrong
type Raw = any;

// Read as plain JSON, as an editor or ajv reads the file the build writes.
const SCHEMA: Raw = JSON.parse(JSON.stringify(settingsFileJsonSchema(API)));
const validate: ValidateFunction = new Ajv2020({ allErrors: true, strict: true, strictTypes: false }).compile(SCHEMA);

const scratch = mkdtempSync(path.join(os.tmpdir(), 'settings-schema-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Whether the commands take `settings` as a settings file: the build's reading, then its check of the fields. */
function parserTakes(settings: Raw): boolean {
  const file = path.join(scratch, 'static-api.config.json');
  writeFileSync(file, JSON.stringify(settings));
  try {
    const read = readSettings(['--config', file], {}, 'build', scratch);
    withQuerySettings(API, read.resourceSettings, file);
    return true;
  } catch (error) {
    if (error instanceof UsageError || error instanceof QuerySettingsError) return false;
    throw error;
  }
}

/** Whether the `resources` section alone passes the parser (its form, then its fields). */
function sectionTakes(section: Raw): boolean {
  try {
    withQuerySettings(API, checkResourceSettings(section, 'static-api.config.json', API), 'static-api.config.json');
    return true;
  } catch (error) {
    if (error instanceof SettingsFileError || error instanceof QuerySettingsError) return false;
    throw error;
  }
}

const ajvTakes = (settings: Raw) => validate(settings) === true;

describe('the settings file schema', () => {
  it('is JSON Schema 2020-12, closed, which ajv compiles in strict mode', () => {
    expect(SCHEMA.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(SCHEMA.additionalProperties).toBe(false);
  });

  it("names the parser's keys and no other: each settings-file option, resources and $schema", () => {
    const fileKeys = Object.values(OPTIONS).flatMap((option) => ('fileKey' in option ? [option.fileKey] : []));
    expect(Object.keys(SCHEMA.properties)).toEqual(['$schema', ...SETTINGS_FILE_KEYS]);
    expect([...SETTINGS_FILE_KEYS].sort()).toEqual([...fileKeys, 'resources'].sort());
    const resources = SCHEMA.properties.resources;
    expect(resources.additionalProperties).toBe(false);
    expect(Object.keys(resources.properties)).toEqual(API.map((resource) => resource.name));
    for (const resource of API) {
      const section = resources.properties[resource.name];
      expect(section.additionalProperties).toBe(false);
      expect(Object.keys(section.properties)).toEqual([...RESOURCE_SETTING_KEYS]);
    }
  });

  it("offers each list's fields: a filter's of the kinds it reads, a search's with its prefixes", () => {
    const company = SCHEMA.properties.resources.properties.company.properties;
    expect(company.filterset_fields.items.enum).toContain('country_name');
    expect(company.filterset_fields.items.enum).not.toContain('not_a_field');
    expect(company.search_fields.items.enum).toEqual(expect.arrayContaining(['name', '^city', '=zip_code']));
    const fair = SCHEMA.properties.resources.properties.virtualfair.properties;
    const lists = [...shownFields(API.find((resource) => resource.name === 'virtualfair') as never)]
      .filter(([, field]) => field.kind === 'list' || field.kind === 'object')
      .map(([name]) => name);
    expect(lists.length).toBeGreaterThan(0);
    for (const name of lists) {
      expect(fair.filterset_fields.items.enum).not.toContain(name);
      expect(fair.search_fields.items.enum).not.toContain(name);
    }
  });

  const examples = fg.sync('test/**/static-api.config.json', { cwd: ROOT, ignore: ['**/node_modules/**'] });

  // The examples are written for the trade-fair catalogue: one that names a list the run does not declare is left out.
  it.for(examples)('takes %s, as the commands do', (file, { skip }) => {
    const settings = JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));
    const reason = missingList(...Object.keys(settings.resources ?? {}));
    if (reason !== undefined) skip(reason);
    expect(parserTakes(settings)).toBe(true);
    expect(validate(settings), JSON.stringify(validate.errors)).toBe(true);
  });

  it("takes the docs' examples, and the README names it by $schema", ({ skip }) => {
    const filters = readFileSync(path.join(ROOT, 'docs/filters.md'), 'utf8');
    const blocks = [...filters.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1] as string));
    expect(blocks.length).toBeGreaterThan(0);
    const reason = missingList(...new Set(blocks.flatMap((settings) => Object.keys(settings.resources ?? {}))));
    if (reason !== undefined) skip(reason);
    for (const settings of blocks) {
      expect(parserTakes(settings)).toBe(true);
      expect(validate(settings), JSON.stringify(validate.errors)).toBe(true);
    }
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`"$schema": "./${SETTINGS_FILE_SCHEMA}"`);
  });

  it.each([
    ['an unknown key', { baseUrl: 'http://localhost:3000', page_size: 10 }],
    ['a page size of 0', { pageSize: 0 }],
    ['a base URL with a query', { baseUrl: 'https://api.example.com/?x=1' }],
    ['a base URL that is not http(s)', { baseUrl: 'ftp://api.example.com' }],
    ['an unknown target', { targets: ['nginx', 'apache2'] }],
    ['no target', { targets: [] }],
    ['an unknown plan', { cloudflarePlan: 'gold' }],
    ['a reference given as on', { reference: 'on' }],
    ['precompress given as off', { precompress: 'off' }],
    ['an unknown resource', { resources: { companies: { search_fields: ['name'] } } }],
    ['an unknown key of a resource', { resources: { company: { filter_fields: ['name'] } } }],
    ['a misspelled field', { resources: { company: { filterset_fields: ['citty'] } } }],
    ['a field named twice', { resources: { company: { search_fields: ['name', 'name'] } } }],
    ['the @ prefix', { resources: { company: { search_fields: ['@name'] } } }],
    ['the $ prefix', { resources: { company: { search_fields: ['$name'] } } }],
    ['a filter on a list', { resources: { virtualfair: { filterset_fields: ['events'] } } }],
    ['an event ordering that drops a field', { resources: { event: { ordering_fields: ['id', 'name'] } } }],
    [
      'a prerendered filter that is no filter',
      { resources: { company: { filterset_fields: ['city'], prerendered_filters: ['name'] } } },
    ],
  ])('refuses %s, as the commands do', (_, settings) => {
    expect(parserTakes(settings)).toBe(false);
    expect(ajvTakes(settings)).toBe(false);
  });

  it('ajv and the parser agree on generated resources sections (fast-check)', () => {
    const fieldNames = API.flatMap((resource) => [...shownFields(resource).keys()]);
    const name = fc.oneof(
      fc.constantFrom(...fieldNames),
      fc
        .constantFrom(...fieldNames)
        .chain((field) => fc.constantFrom(`^${field}`, `=${field}`, `@${field}`, `$${field}`)),
      fc.constantFrom('', '^', 'citty', 'short_code', 'search', 'format', 'Name'),
      fc.constantFrom(1, null, true, ['name']),
    );
    const key = fc.constantFrom(...RESOURCE_SETTING_KEYS, 'filter_fields');
    const section = fc.dictionary(
      key,
      fc.oneof({ weight: 9, arbitrary: fc.array(name, { maxLength: 4 }) }, fc.constant('name')),
      {
        maxKeys: 3,
      },
    );
    const resourceName = fc.constantFrom(...API.map((resource) => resource.name), 'companies');
    const sections = fc.dictionary(resourceName, fc.oneof({ weight: 9, arbitrary: section }, fc.constant([])), {
      maxKeys: 3,
    });
    let taken = 0;
    fc.assert(
      fc.property(sections, (resources) => {
        const parser = sectionTakes(resources);
        if (parser) taken += 1;
        expect(ajvTakes({ resources }), JSON.stringify(resources)).toBe(parser);
      }),
      { numRuns: 2000 },
    );
    // Both verdicts are reached often enough to mean something.
    expect(taken).toBeGreaterThan(100);
    expect(taken).toBeLessThan(1900);
  });

  it('the comparison fails when the schema misses a rule of the parser', () => {
    const weaker = structuredClone(SCHEMA);
    delete weaker.properties.resources.properties.company.properties.search_fields.uniqueItems;
    const loose = new Ajv2020({ strict: true, strictTypes: false }).compile(weaker);
    const twice = { resources: { company: { search_fields: ['name', 'name'] } } };
    expect(sectionTakes(twice.resources)).toBe(false);
    expect(loose(twice)).toBe(true);
  });
});
