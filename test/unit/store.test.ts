// The records store (scripts/store/): the parts' layout, the columns a request selects and orders
// the records from without parsing one, and select(), the answer read from what the writer wrote.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { filterMatcher } from '../../scripts/contract/filters.ts';
import { encodePlain } from '../../scripts/contract/json.ts';
import { sortRecords } from '../../scripts/contract/ordering.ts';
import { bodyBytes } from '../../scripts/respond/handler.ts';
import { partText, recordStarts, recordsColumnFile, recordsPartFile } from '../../scripts/store/format.ts';
import { selectedPositions } from '../../scripts/store/positions.ts';
import { type BuildFiles, select } from '../../scripts/store/select.ts';
import { columnFiles, writeRecords } from '../../scripts/store/writer.ts';
import { LIST, read, SETTINGS } from './helpers/company-query.ts';
import { searchMatcher } from './helpers/record-match.ts';

describe("a list's parts", () => {
  it('give back the bytes of each text written, whatever it holds', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), (values) => {
        const texts = values.map((value) => encodePlain({ id: 1, value } as never));
        const bytes = Buffer.from(partText(texts));
        const starts = recordStarts(bytes);
        const read = texts.map((_, index) =>
          bytes.subarray(starts[index] as number, (starts[index + 1] as number) - 2).toString('utf8'),
        );
        expect(read).toEqual(texts);
      }),
    );
  });
});

describe('the columns a request is answered from', () => {
  const word = fc.array(
    fc.constantFrom(
      'a',
      'S',
      'ı',
      'ſ',
      'ß',
      'é',
      'İ',
      '"',
      '\\',
      '東',
      'k',
      'K',
      '1',
      '\u2028',
      '\n',
      ' ',
      '-',
      '.',
      '(',
    ),
    { minLength: 1, maxLength: 4 },
  );
  const text = word.map((chars) => chars.join(''));
  const params = fc.record(
    {
      search: fc.array(text, { maxLength: 2 }).map((terms) => terms.join(' ')),
      city: text,
      id: fc.nat({ max: 6 }).map(String),
      ordering: fc.constantFrom('name', '-name', 'id', '-id', 'name,-id', '-name,id', 'city'),
    },
    { requiredKeys: [] },
  );

  it('select and order what the records themselves select, at any chunk size (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ id: fc.nat({ max: 6 }), name: text, city: fc.option(text) }), {
          selector: (record) => record.id,
          maxLength: 7,
        }),
        params,
        fc.integer({ min: 1, max: 40 }),
        (records, given, chunkBytes) => {
          const search = new URLSearchParams(given as Record<string, string>).toString();
          const query = read(LIST, search);
          fc.pre(query !== undefined && query.errors === null);
          const settings = { ...SETTINGS, filters: [...SETTINGS.filters], search: [...SETTINGS.search] };
          const { files, chunks } = columnFiles('company', settings, [], records, chunkBytes);
          const columns = new Map(
            Object.entries(chunks).map(([column, lengths]) => [
              column,
              lengths.map((lines, index) => ({
                text: files.get(recordsColumnFile('company', column, index + 1)) as string,
                lines,
              })),
            ]),
          );
          const matches = (record: (typeof records)[number]) =>
            filterMatcher(query.conditions)(record) && searchMatcher(query.terms, settings.search)(record);
          const expected = sortRecords(records.filter(matches), query.ordering).map((record) =>
            records.indexOf(record),
          );
          const selected = [...selectedPositions(query, settings, records.length, columns)];
          expect(query.ordering.length > 0 ? selected : [...selected].sort((x, y) => x - y)).toEqual(
            query.ordering.length > 0
              ? expected
              : records.map((_, index) => index).filter((index) => matches(records[index] as never)),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('select()', () => {
  interface Company {
    id: number;
    name: string;
    city: string | null;
  }
  // 2,100 companies, by id: three parts.
  const cities = ['Roma', 'Zürich', null, 'Kyōto'];
  const companies: Company[] = Array.from({ length: 2100 }, (_, index) => ({
    id: index + 1,
    name: `${['Alpha', 'beta', 'Gamma'][index % 3]} ${index % 17}`,
    city: cities[index % 4] ?? null,
  }));
  const texts = companies.map((company) => encodePlain(company as never));
  const written = writeRecords(LIST, texts, companies, { pageSize: 25, baseUrl: 'https://api.example' });
  // Only text(), as a store that cannot give bytes (the Netlify functions' fetch of a file).
  const files: BuildFiles = {
    async open(file) {
      const text = written.get(file);
      return text === undefined ? null : { text: async () => text };
    },
  };
  const PAGED = { ...LIST, paginated: true };
  const answer = async (list: typeof LIST, search: string) => {
    const query = read(list, search);
    if (query === undefined || query.errors !== null) throw new Error(`${search} is no query`);
    const body = await select(files, list, query);
    return body === null ? null : Buffer.from(bodyBytes(body)).toString('utf8');
  };
  const matching = (search: string) => {
    const query = read(LIST, search);
    if (query === undefined) throw new Error(`${search} is no query`);
    const selected = companies.filter(
      (company) =>
        filterMatcher(query.conditions)(company as never) &&
        searchMatcher(query.terms, SETTINGS.search)(company as never),
    );
    return query.ordering.length > 0 ? sortRecords(selected, query.ordering) : selected;
  };

  it('is written in parts, so that an answer reads several', () => {
    expect(written.has(recordsPartFile('company', 3))).toBe(true);
    expect(written.has(recordsPartFile('company', 4))).toBe(false);
  });

  it.each(['search=alpha&ordering=-name', 'city=Roma', 'city=K%C5%8Dto&search=gamma', 'ordering=-id', 'id=2000'])(
    '%s: the matching records, in the asked order',
    async (search) => {
      expect(await answer(LIST, search)).toBe(encodePlain(matching(search) as never));
    },
  );

  it('answers a page with the envelope and links of DRF, each page from the parts that hold it', async () => {
    const all = matching('search=alpha&ordering=-id');
    expect(all.length).toBe(700);
    expect(await answer(PAGED, 'search=alpha&ordering=-id&page=2')).toBe(
      encodePlain({
        count: 700,
        next: 'https://api.example/company/?ordering=-id&page=3&search=alpha',
        previous: 'https://api.example/company/?ordering=-id&search=alpha',
        results: all.slice(25, 50),
      } as never),
    );
    expect(await answer(PAGED, 'search=alpha&ordering=-id&page=last')).toBe(
      encodePlain({
        count: 700,
        next: null,
        previous: 'https://api.example/company/?ordering=-id&page=27&search=alpha',
        results: all.slice(675),
      } as never),
    );
  });

  it('gives null for a page the selection does not have', async () => {
    expect(await answer(PAGED, 'search=alpha&page=29')).toBeNull();
    expect(await answer(PAGED, 'search=nothing&page=2')).toBeNull();
    expect(await answer(PAGED, 'search=nothing')).toBe('{"count":0,"next":null,"previous":null,"results":[]}');
  });

  it("reads a list's settings from the manifest where the caller has none (npm run serve)", async () => {
    const query = read(LIST, 'search=beta&ordering=name');
    if (query === undefined) throw new Error('no query');
    const body = await select(files, { ...LIST, query: undefined }, query);
    expect(body && Buffer.from(bodyBytes(body)).toString('utf8')).toBe(
      encodePlain(matching('search=beta&ordering=name') as never),
    );
  });

  it('fails on a build that lacks a file it names', async () => {
    const query = read(LIST, 'city=Roma');
    if (query === undefined) throw new Error('no query');
    const lacking: BuildFiles = {
      open: async (file) => (file === recordsPartFile('company', 2) ? null : files.open(file)),
    };
    await expect(select(lacking, LIST, query)).rejects.toThrow(`the build has no ${recordsPartFile('company', 2)}`);
  });
});
