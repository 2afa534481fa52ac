// The render the build and the preview share (scripts/builder/site.ts) is a function of its
// inputs: it changes none of them, and a change rendered on the last output gives the output a
// whole render gives.

import { describe, expect, it } from 'vitest';
import { readCatalogue } from '../../scripts/builder/pipeline/catalogue.ts';
import { filterRoutesOf } from '../../scripts/builder/pipeline/prerendered-filters.ts';
import { changedAnswers, renderSite, type SiteSource, siteAfter, targetContext } from '../../scripts/builder/site.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';

const SETTINGS = { resources: API, baseUrl: 'http://localhost:3000', pageSize: 2, reference: true };

/** The sample read and checked, as the build's render takes it; frozen, so that a write to it throws. */
async function frozenSource(): Promise<SiteSource> {
  const checked = await readCatalogue(
    { dataDir: SAMPLE_DATA, headersPath: SAMPLE_HEADERS, pageSize: SETTINGS.pageSize, resources: API },
    () => {},
  );
  const filterRoutes = filterRoutesOf(checked.catalogue, SETTINGS.pageSize, API);
  const context = targetContext(checked.routes, checked.headerRules, SETTINGS, filterRoutes);
  return Object.freeze({ catalogue: checked.catalogue, context, headersText: checked.headersText, prepared: {} });
}

describe('the shared render', () => {
  it('changes none of its inputs', async () => {
    const source = await frozenSource();
    const site = await renderSite(source, Object.freeze({ ...SETTINGS }));
    expect(source.catalogue).toBeDefined();
    expect(site.files.size).toBeGreaterThan(site.answers.size);
    // Again from the same inputs: the same files and bytes.
    expect((await renderSite(source, SETTINGS)).files).toEqual(site.files);
  });

  it('renders of a change only what differs, and the output after it is the whole render', async () => {
    const source = await frozenSource();
    const site = await renderSite(source, SETTINGS);
    const lists = source.context.routes;
    const change = { site, routes: lists, lists, resources: new Set(API.map((resource) => resource.name)) };
    const changes = new Map(changedAnswers(source, SETTINGS, change));
    // The same data: nothing differs, and the output stays the one rendered.
    expect(changes.size).toBe(0);
    expect(siteAfter(site, changes, source.context)).toBe(site);
    // An answer gone from the last output is rendered again, and only it.
    const [first] = site.answers.keys();
    const answers = new Map(site.answers);
    answers.delete(first as string);
    const again = new Map(changedAnswers(source, SETTINGS, { ...change, site: { ...site, answers } }));
    expect([...again.keys()]).toEqual([first]);
    expect(siteAfter({ ...site, answers }, again, source.context).files).toEqual(site.files);
  });
});
