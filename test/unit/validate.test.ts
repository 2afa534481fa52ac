// scripts/build/validate.ts as the build runs it: each file's records checked as soon as the
// file is read (checkSchemas), then the rules across records over all files (checkCatalogue).

import { describe, expect, it } from 'vitest';
import { formatDataError } from '../../scripts/build/errors.ts';
import { findSources, readSources, type SourceRecord } from '../../scripts/build/load.ts';
import { checkCatalogue, checkSchemas, validate } from '../../scripts/build/validate.ts';

/** Every record of a data folder, and the same checked file by file as the build does. */
async function bothWays(dataDir: string) {
  const { sources } = await findSources(dataDir);
  const all = (await readSources(sources)).parsed.flat();
  const byFile = await readSources(sources, checkSchemas);
  return { whole: validate(all), perFile: checkCatalogue(byFile.parsed) };
}

describe('checkSchemas', () => {
  it('keeps of each record only where it is, its id and a fair\'s event ids, so the parsed value can go', () => {
    const records: SourceRecord[] = [
      { resource: 'virtualfair', file: 'data/virtualfair/f.json', index: 0, value: { id: 7, name: 'Fair', events: [1, 2] }, wellFormed: true },
      { resource: 'company', file: 'data/company/c.json', index: null, value: { id: 3, name: 'Acme', city: 'Köln' }, wellFormed: true },
      { resource: 'company', file: 'data/company/c.json', index: 1, value: 'not a record', wellFormed: true },
    ];
    expect(checkSchemas(records).records).toEqual([
      { resource: 'virtualfair', file: 'data/virtualfair/f.json', index: 0, value: { id: 7, events: [1, 2] } },
      { resource: 'company', file: 'data/company/c.json', index: null, value: { id: 3 } },
      { resource: 'company', file: 'data/company/c.json', index: 1, value: {} },
    ]);
  });
});

describe('checkSchemas keeps each valid record in its schema\'s key order', () => {
  const company = {
    id: 3, name: 'Acme', street: '', zip_code: '', city: '', country_name: 'Germany', phone: null, fax: null, e_mail: null,
    platform_plus_status: false, website: null, logo: null, tags: null, vf_plus_status: false,
  };
  const record = (value: object, index: number): SourceRecord => ({ resource: 'company', file: 'data/company/c.json', index, value, wellFormed: true });

  it('as parsed, when its keys are already in that order: no copy', () => {
    const [kept] = checkSchemas([record(company, 0)]).valid.company;
    expect(kept).toBe(company);
  });

  it("as zod's copy, in that order, when they are not", () => {
    const reversed = Object.fromEntries(Object.entries(company).reverse());
    const [kept] = checkSchemas([record(reversed, 0)]).valid.company;
    expect(kept).not.toBe(reversed);
    expect(JSON.stringify(kept)).toBe(JSON.stringify(company));
  });
});

describe('checkCatalogue over files checked one by one', () => {
  it('gives the catalogue of the shipped data, in source order, as validate() over all records does', async () => {
    const { whole, perFile } = await bothWays('data');
    expect(perFile.errors).toEqual([]);
    expect(perFile.catalogue).toEqual(whole.catalogue);
    expect(perFile.catalogue.companies.length).toBeGreaterThan(100);
  });

  it.each(['duplicate-id', 'unknown-fair-event', 'fair-event-without-logo', 'several-errors-in-several-files'])('reports the problems across files of the broken set %s as validate() does', async (name) => {
    const { whole, perFile } = await bothWays(`test/fixtures/broken/${name}/data`);
    const lines = (errors: typeof whole.errors) => errors.map(formatDataError).sort();
    expect(lines(perFile.errors)).toEqual(lines(whole.errors));
    expect(perFile.errors.length).toBeGreaterThan(0);
  });
});
