// The lists the live preview makes of its records' kept bytes, as pieces (render.ts, RecordTexts),
// against the same lists rendered as text, on the sample data: its first publication and every
// change after it.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCatalogue } from '../../scripts/builder/pipeline/catalogue.ts';
import { joinedBytes, recordTexts, renderLists } from '../../scripts/builder/pipeline/render.ts';
import { bytesOf, Pieces } from '../../scripts/shared/file-body.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';

const _ROOT = path.resolve(import.meta.dirname, '../..');
const SETTINGS = { baseUrl: 'https://api.example.com', pageSize: 10 };

describe('lists from kept bytes', () => {
  it("give every list's bytes as its text does, the first time and again", async () => {
    const { catalogue, routes } = await readCatalogue(
      {
        resources: API,
        dataDir: SAMPLE_DATA,
        headersPath: SAMPLE_HEADERS,
        pageSize: SETTINGS.pageSize,
      },
      () => {},
    );
    const asText = new Map(renderLists(catalogue, SETTINGS, routes, API));
    const texts = recordTexts();
    // As the preview does: its first publication keeps the records' bytes, each change reuses them.
    const first = new Map(renderLists(catalogue, SETTINGS, routes, API, { texts }));
    const again = new Map(renderLists(catalogue, SETTINGS, routes, API, { texts }));
    const pieces = [...again.values()].filter((body) => body instanceof Pieces);
    // The company list and every event ordering at least.
    expect(pieces.length).toBeGreaterThan(2);
    for (const rendered of [first, again]) {
      expect([...rendered.keys()]).toEqual([...asText.keys()]);
      for (const [file, body] of rendered) {
        const text = asText.get(file) as string;
        expect(bytesOf(body).equals(Buffer.from(text)), file).toBe(true);
      }
    }
    const company = routes.find((route) => route.resource === 'company') as (typeof routes)[number];
    const [firstList, againList] = [first.get(company.file), again.get(company.file)] as [Pieces, Pieces];
    expect(againList).toBeInstanceOf(Pieces);
    // Each company's bytes are made once and kept; no text of it is.
    expect(againList.pieces.every((piece, index) => piece === firstList.pieces[index])).toBe(true);
    expect(catalogue.company.every((record) => texts.bytes.get('company')?.has(record))).toBe(true);
    expect(catalogue.company.some((record) => texts.plain.get('company')?.has(record))).toBe(false);
  });
});

describe('a list written into one buffer', () => {
  const lists: Array<[string, string[]]> = [
    ['no record', []],
    ['ASCII', ['{"id":1}', '{"id":2,"name":"Fair"}']],
    ['Latin-1', ['{"name":"Fördertechnik"}', '{"city":"Zürich"}']],
    // Three bytes per UTF-16 unit: far past the room made for characters over one byte.
    ['CJK', Array.from({ length: 200 }, (_, i) => `{"name":"東京${'展示会'.repeat(i % 7)}"}`)],
    ['emoji', ['{"name":"🎪"}', '{"name":"a🎪b"}']],
    // Written as U+FFFD, three bytes, as Buffer.from writes it.
    ['a lone surrogate', [`{"name":"${String.fromCharCode(0xd800)}"}`, `"${String.fromCharCode(0xdc00)}x"`]],
  ];
  it.each(lists)('%s: the bytes of the array as one text', (_name, items) => {
    expect(joinedBytes(items).equals(Buffer.from(`[${items.join(',')}]`))).toBe(true);
  });
});
