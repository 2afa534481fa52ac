// scripts/build/validate.ts: every record against its schema, written as zod outputs it (so a
// transform in a schema applies to every record), then the rules across records over all files.

import { afterEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { formatDataError } from '../../scripts/build/errors.ts';
import { load, type SourceRecord } from '../../scripts/build/load.ts';
import { SCHEMAS } from '../../scripts/build/schemas.ts';
import { validate } from '../../scripts/build/validate.ts';

const COMPANY = {
  id: 3,
  name: 'Acme',
  street: '',
  zip_code: '',
  city: '',
  country_name: 'Germany',
  phone: null,
  fax: null,
  e_mail: null,
  platform_plus_status: false,
  website: null,
  logo: null,
  tags: null,
  vf_plus_status: false,
};

const company = (value: object, index: number): SourceRecord => ({
  resource: 'company',
  file: 'data/company/c.json',
  index,
  value,
});
const reversed = (value: object) => Object.fromEntries(Object.entries(value).reverse());

describe("validate writes zod's output", () => {
  const schemas = SCHEMAS as Record<string, z.ZodType>;
  const original = SCHEMAS.company;
  afterEach(() => {
    schemas.company = original;
  });

  it('with the keys in the schema order, whatever the source order', () => {
    const { catalogue, errors } = validate([company(COMPANY, 0), company(reversed({ ...COMPANY, id: 4 }), 1)]);
    expect(errors).toEqual([]);
    for (const output of catalogue.companies) expect(Object.keys(output)).toEqual(Object.keys(COMPANY));
  });

  it('so a transform in a schema applies to every record, also one whose keys are already in order', () => {
    schemas.company = original.transform((output) => ({ ...output, name: output.name.trim().toUpperCase() }));
    const records = [
      company({ ...COMPANY, name: ' in order ' }, 0),
      company(reversed({ ...COMPANY, id: 4, name: ' out of order ' }), 1),
    ];
    const { catalogue, errors } = validate(records);
    expect(errors).toEqual([]);
    expect(catalogue.companies.map((c) => c.name)).toEqual(['IN ORDER', 'OUT OF ORDER']);
    // The parsed input is left as it was: the output is a new object.
    expect((records[0]?.value as { name: string } | undefined)?.name).toBe(' in order ');
    expect(catalogue.companies[0]).not.toBe(records[0]?.value);
  });
});

describe('validate: the rules across records', () => {
  it('gives the catalogue of the shipped data in source order, with no problems', async () => {
    const { records } = await load('data');
    const { catalogue, errors } = validate(records);
    expect(errors).toEqual([]);
    expect(catalogue.companies.length).toBeGreaterThan(100);
    const ids = (resource: string) =>
      records.filter((r) => r.resource === resource).map((r) => (r.value as { id: unknown }).id);
    expect(catalogue.companies.map((c) => c.id)).toEqual(ids('company'));
    expect(catalogue.fairs.map((f) => f.id)).toEqual(ids('virtualfair'));
  });

  it('checks ids and fair events of records that break their schema too', () => {
    const fair = (id: unknown, events: unknown[], index: number): SourceRecord => ({
      resource: 'virtualfair',
      file: 'data/virtualfair/f.json',
      index,
      value: { id, events },
    });
    const lines = validate([company(COMPANY, 0), company({ id: 3 }, 1), fair(7, [99], 0), fair(7, [], 1)]).errors.map(
      formatDataError,
    );
    expect(lines.filter((line) => !line.includes('missing field'))).toEqual([
      'data/virtualfair/f.json#/1/events (record 1, id 7): expected at least one event id, got []',
      'data/company/c.json#/1/id (record 1, id 3): expected a unique id, but 3 is also used by data/company/c.json#/0',
      'data/virtualfair/f.json#/1/id (record 1, id 7): expected a unique id, but 7 is also used by data/virtualfair/f.json#/0',
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
    const lines = validate([fairRecord], false).errors.map(formatDataError);
    expect(lines.some((line) => line.includes('event data'))).toBe(false);
  });
});
