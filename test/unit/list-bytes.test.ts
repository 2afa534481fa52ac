// The lists the live preview makes of its records' kept bytes, as pieces (render.ts,
// Prepared.asBytes), against the same lists rendered as text, on the sample data.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCatalogue } from '../../scripts/builder/pipeline/catalogue.ts';
import { recordTexts, renderLists } from '../../scripts/builder/pipeline/render.ts';
import { bytesOf, Pieces } from '../../scripts/shared/file-body.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SETTINGS = { baseUrl: 'https://api.example.com', pageSize: 10 };

describe('lists as bytes', () => {
  it("give every list's bytes as its text does, from kept texts and from kept bytes", async () => {
    const { catalogue, routes } = await readCatalogue(
      { dataDir: path.join(ROOT, 'data'), headersPath: path.join(ROOT, '_headers'), pageSize: SETTINGS.pageSize },
      () => {},
    );
    const asText = new Map(renderLists(catalogue, SETTINGS, routes));
    const texts = recordTexts();
    // As the preview does: its first publication keeps the texts, each change after asks for bytes.
    const kept = new Map(renderLists(catalogue, SETTINGS, routes, { texts }));
    const firstBytes = new Map(renderLists(catalogue, SETTINGS, routes, { texts, asBytes: true }));
    const againBytes = new Map(renderLists(catalogue, SETTINGS, routes, { texts, asBytes: true }));
    expect([...kept]).toEqual([...asText]);
    const buffers = [...againBytes.values()].filter((body) => typeof body !== 'string');
    // The company list and every event ordering at least.
    expect(buffers.length).toBeGreaterThan(2);
    for (const rendered of [firstBytes, againBytes]) {
      expect([...rendered.keys()]).toEqual([...asText.keys()]);
      for (const [file, body] of rendered) {
        const text = asText.get(file) as string;
        expect(bytesOf(body).equals(Buffer.from(text)), file).toBe(true);
      }
    }
    const company = routes.find((route) => route.resource === 'company') as (typeof routes)[number];
    expect(againBytes.get(company.file)).toBeInstanceOf(Pieces);
    // Each record's bytes replace its text: the text is let go.
    const companies = texts.plain.get('company');
    expect(catalogue.company.some((record) => companies?.has(record))).toBe(false);
  });
});
