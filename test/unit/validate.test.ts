// scripts/builder/pipeline/validate.ts: every record against its schema, written as zod outputs it (so a
// transform in a schema applies to every record), then the rules across records over all files.

import { describe, expect, it } from 'vitest';
import { formatDataError } from '../../scripts/builder/pipeline/errors.ts';
import { load, type SourceRecord } from '../../scripts/builder/pipeline/load.ts';
import { validate } from '../../scripts/builder/pipeline/validate.ts';
import { company as companyDeclaration } from '../../scripts/contract/resources/index.ts';
import type { Resource } from '../../scripts/contract/resources/resource.ts';
import { API } from '../fixtures/sample.ts';
import { validCompany, validEvent, validFair } from './helpers/records.ts';

// The id the lines below name.
const COMPANY = { ...validCompany(), id: 3 };

const company = (value: object, index: number): SourceRecord => ({
  resource: 'company',
  file: 'data/company/c.json',
  index,
  value,
});
const reversed = (value: object) => Object.fromEntries(Object.entries(value).reverse());

describe("validate writes zod's output", () => {
  // The company declared with a transform after its schema, the other resources as they are.
  const transformed: Resource = {
    ...companyDeclaration,
    record: (field) =>
      companyDeclaration.record(field).transform((output) => ({ ...output, name: output.name.trim().toUpperCase() })),
  };
  const resources = API.map((resource) => (resource === companyDeclaration ? transformed : resource));

  it('with the keys in the schema order, whatever the source order', () => {
    const { catalogue, errors } = validate([company(COMPANY, 0), company(reversed({ ...COMPANY, id: 4 }), 1)], API);
    expect(errors).toEqual([]);
    for (const output of catalogue.company) expect(Object.keys(output)).toEqual(Object.keys(COMPANY));
  });

  it('so a transform in a schema applies to every record, also one whose keys are already in order', () => {
    const records = [
      company({ ...COMPANY, name: ' in order ' }, 0),
      company(reversed({ ...COMPANY, id: 4, name: ' out of order ' }), 1),
    ];
    const { catalogue, errors } = validate(records, resources);
    expect(errors).toEqual([]);
    expect(catalogue.company.map((c) => c.name)).toEqual(['IN ORDER', 'OUT OF ORDER']);
    // The parsed input is left as it was: the output is a new object.
    expect((records[0]?.value as { name: string } | undefined)?.name).toBe(' in order ');
    expect(catalogue.company[0]).not.toBe(records[0]?.value);
  });
});

describe('validate: the rules across records', () => {
  it('gives the catalogue of the shipped data in source order, with no problems', async () => {
    const { records } = await load(
      'data',
      API.map((resource) => resource.name),
    );
    const { catalogue, errors } = validate(records, API);
    expect(errors).toEqual([]);
    expect(catalogue.company.length).toBeGreaterThan(100);
    const ids = (resource: string) =>
      records.filter((r) => r.resource === resource).map((r) => (r.value as { id: unknown }).id);
    expect(catalogue.company.map((c) => c.id)).toEqual(ids('company'));
    expect(catalogue.virtualfair.map((f) => f.id)).toEqual(ids('virtualfair'));
  });

  it('checks ids and fair events of records that break their schema too', () => {
    const fair = (id: unknown, events: unknown[], index: number): SourceRecord => ({
      resource: 'virtualfair',
      file: 'data/virtualfair/f.json',
      index,
      value: { id, events },
    });
    const lines = validate(
      [company(COMPANY, 0), company({ id: 3 }, 1), fair(7, [99], 0), fair(7, [], 1)],
      API,
    ).errors.map(formatDataError);
    expect(lines.filter((line) => !line.includes('missing field'))).toEqual([
      'data/virtualfair/f.json#/1/events (record 1, id 7): expected at least one event id, got []',
      'data/company/c.json#/1/id (record 1, id 3): expected a unique id, but 3 is also used by data/company/c.json#/0/id',
      'data/virtualfair/f.json#/1/id (record 1, id 7): expected a unique id, but 7 is also used by data/virtualfair/f.json#/0/id',
      'data/virtualfair/f.json#/0/events/0 (record 0, id 7): expected the id of an event in the event data, got 99',
    ]);
  });

  it('does not report unknown event ids when the events are incomplete', () => {
    const fairRecord: SourceRecord = {
      resource: 'virtualfair',
      file: 'data/virtualfair/f.json',
      index: null,
      value: { id: 1, events: [99] },
    };
    const lines = validate([fairRecord], API, new Set(['event'])).errors.map(formatDataError);
    expect(lines.some((line) => line.includes('event data'))).toBe(false);
  });
});

describe('validate: a misspelt field', () => {
  const { e_mail: _, ...withoutEmail } = COMPANY;
  const lines = (value: object) => validate([company(value, 0)], API).errors.map(formatDataError);

  it('is reported once, at the unknown field, with the missing field it likely means', () => {
    const [problem, ...others] = validate([company({ ...withoutEmail, email: null }, 0)], API).errors;
    expect(others).toEqual([]);
    expect(problem).toEqual({
      file: 'data/company/c.json',
      pointer: '/0/email',
      record: 'record 0, id 3',
      message: 'unknown field "email": did you mean "e_mail"?',
      subject: 'key',
    });
  });

  it.each([
    ['E-Mail', 'e_mail'],
    ['EMAIL', 'e_mail'],
    ['e_mial', 'e_mail'],
    ['webiste', 'website'],
    ['nmae', 'name'],
  ])('takes %s for %s: case, _ and - aside, or a few edits away', (written, field) => {
    const { [field]: _, ...rest } = COMPANY as Record<string, unknown>;
    expect(lines({ ...rest, [written]: 'x' })).toEqual([
      `data/company/c.json#/0/${written} (record 0, id 3): unknown field "${written}": did you mean "${field}"?`,
    ]);
  });

  it('keeps both lines when the unknown field is not close to the missing one', () => {
    expect(lines({ ...withoutEmail, contact: null })).toEqual([
      'data/company/c.json#/0/e_mail (record 0, id 3): missing field (expected a string)',
      'data/company/c.json#/0/contact (record 0, id 3): unexpected field "contact" (expected only the documented fields)',
    ]);
    // Two edits turn "no" into "id", but in so short a name that is a different word.
    const { id: _, ...withoutId } = COMPANY;
    expect(lines({ ...withoutId, no: 3 })).toEqual([
      'data/company/c.json#/0/id (record 0): missing field (expected a number)',
      'data/company/c.json#/0/no (record 0): unexpected field "no" (expected only the documented fields)',
    ]);
  });

  it('suggests each missing field once, for the closest unknown field', () => {
    expect(lines({ ...withoutEmail, emial: null, E_Mail: null })).toEqual([
      'data/company/c.json#/0/emial (record 0, id 3): unexpected field "emial" (expected only the documented fields)',
      'data/company/c.json#/0/E_Mail (record 0, id 3): unknown field "E_Mail": did you mean "e_mail"?',
    ]);
  });

  // Fair 3, named by the lines below, shows event 5: the event data has it.
  const FAIR = { ...validFair(), id: 3, events: [5] };
  const EVENT: SourceRecord = {
    resource: 'event',
    file: 'data/event/e.json',
    index: null,
    value: { ...validEvent(), id: 5 },
  };
  const fairLines = (value: object) =>
    validate([{ resource: 'virtualfair', file: 'data/virtualfair/f.json', index: null, value }, EVENT], API)
      .errors.filter((error) => error.file.includes('virtualfair'))
      .map(formatDataError);

  it('in a nested object, only among the fields that object lacks', () => {
    expect(
      fairLines({ ...FAIR, tiles: { tile_pattern: '{z}/{x}/{y}', tile_extension: 'png', tileSize: 256 } }),
    ).toEqual([
      'data/virtualfair/f.json#/tiles/tileSize (record id 3): unknown field "tileSize": did you mean "tile_size"?',
    ]);
    // `size` lacks height, and `tiles` has an unknown "heigth": a different object, so no suggestion.
    expect(fairLines({ ...FAIR, tiles: { ...FAIR.tiles, heigth: 1 }, size: { width: 1 } })).toEqual([
      'data/virtualfair/f.json#/tiles/heigth (record id 3): unexpected field "heigth" (expected only the documented fields)',
      'data/virtualfair/f.json#/size/height (record id 3): missing field (expected a number)',
    ]);
  });
});
