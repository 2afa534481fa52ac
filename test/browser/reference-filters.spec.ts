// The API reference page's request form with the settings file's filters, search and ordering
// (docs/reference.md, docs/filters.md), in Chromium, on the project's own server: the shipped
// sample built with test/fixtures/filters/static-api.config.json's `resources` and the page on.
// Each list offers its own controls only; a filter filled in and sent shows the filtered answer
// of the server, which the test works out itself from the built list; axe finds no serious or
// critical violation, and the page is no wider than the window, at 1280 and 390 px.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { ROOT, type ServedReference, serveReference, shownAnswer, skipWithoutChromium } from './served-reference.ts';

const SETTINGS = path.join(ROOT, 'test/fixtures/filters/static-api.config.json');

let served: ServedReference;
let origin: string;
// biome-ignore lint/suspicious/noExplicitAny: the fixture's settings, as JSON
let resources: Record<string, any>;

skipWithoutChromium();

test.beforeAll(async () => {
  resources = JSON.parse(await readFile(SETTINGS, 'utf8')).resources;
  served = await serveReference('reference-filters-', {
    pageSize: 10,
    resourceSettings: resources,
    configPath: SETTINGS,
  });
  origin = served.origin;
});

test.afterAll(async () => {
  await served?.stop();
});

const builtJson = (file: string) => served.builtJson(file);
const openReference = (page: Page) => served.open(page);

/** The parameters the form offers for `path`, as the visible controls send them. */
const offered = (page: Page) =>
  page.locator('#try-form label:visible [data-param]').evaluateAll((controls) =>
    // biome-ignore lint/suspicious/noExplicitAny: the page's DOM
    controls.map((control: any) => control.dataset.param),
  );

test('[reference.query] each list offers its own filters, search and ordering, and no other', async ({ page }) => {
  const { errors } = await openReference(page);
  const form = page.locator('#try-form');
  const company = resources.company;
  await form.getByLabel('Path').selectOption('/company/');
  expect(await offered(page)).toEqual([...company.filterset_fields, 'search', 'ordering']);
  await expect(form.locator('[name="company.ordering"] option')).toHaveText([
    '(default)',
    ...company.ordering_fields.flatMap((field: string) => [field, `-${field}`]),
  ]);
  // A boolean filter offers the values it reads.
  await expect(form.locator('[name="company.platform_plus_status"] option')).toHaveText(['(any)', 'true', 'false']);
  await form.getByLabel('Path').selectOption('/virtualbooth-texture/');
  expect(await offered(page)).toEqual([...resources['virtualbooth-texture'].filterset_fields, 'search', 'ordering']);
  // The events have no settings: only their own ordering, which has no data-param.
  await form.getByLabel('Path').selectOption('/event/');
  expect(await offered(page)).toEqual([]);
  await expect(form.locator('label:visible select[name="ordering"]')).toHaveCount(1);
  expect(errors).toEqual([]);
});

test('[reference.query] a filter filled in and sent shows the filtered answer', async ({ page }) => {
  const { requests, errors } = await openReference(page);
  const form = page.locator('#try-form');
  const all: Array<Record<string, unknown>> = await builtJson('company/index.json');
  // The country most companies share, so that the answer is neither empty nor the whole list.
  const counts = new Map<unknown, number>();
  for (const record of all) counts.set(record.country_name, (counts.get(record.country_name) ?? 0) + 1);
  const [country] = [...counts].sort((a, b) => b[1] - a[1])[0] as [string, number];
  const expected = all.filter((record) => record.country_name === country);
  expect(expected.length).toBeGreaterThan(1);
  expect(expected.length).toBeLessThan(all.length);

  await form.getByLabel('Path').selectOption('/company/');
  await form.locator('[name="company.country_name"]').fill(country);
  const url = `/company/?${new URLSearchParams({ country_name: country })}`;
  await expect(page.locator('#try-url')).toHaveText(`GET ${url}`);
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('#answer-status')).toHaveText(`GET ${url}: 200 OK`);
  const shown = await shownAnswer(page);
  expect(shown).toEqual(expected);
  expect(requests).toContain(`${origin}${url}`);

  // With a search and an ordering too, the answer is the server's for that request.
  await form.locator('[name="company.search"]').fill('gmbh');
  await form.locator('[name="company.ordering"]').selectOption('-name');
  const combined = `/company/?${new URLSearchParams({ country_name: country, search: 'gmbh', ordering: '-name' })}`;
  await expect(page.locator('#try-url')).toHaveText(`GET ${combined}`);
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('#answer-status')).toHaveText(`GET ${combined}: 200 OK`);
  const narrowed = await shownAnswer(page);
  const direct = await (await fetch(`${origin}${combined}`)).json();
  expect(narrowed).toEqual(direct);
  const names = expected
    .filter((record) => String(record.name).toLowerCase().includes('gmbh'))
    .map((record) => record.name as string);
  expect(names.length).toBeGreaterThan(0);
  expect(narrowed.map((record: { name: string }) => record.name)).toEqual(
    [...names].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)),
  );

  expect(errors).toEqual([]);

  // A value the filter cannot read: django-filter's 400, shown as the server sends it (and, by
  // Chromium, logged as a failed load).
  await form.locator('[name="company.search"]').fill('');
  await form.locator('[name="company.country_name"]').fill('');
  await form.locator('[name="company.ordering"]').selectOption('');
  await form.locator('[name="company.id"]').fill('x');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('#answer-status')).toHaveText('GET /company/?id=x: 400 Bad Request');
  expect(await shownAnswer(page)).toEqual({ id: ['Enter a number.'] });
  for (const request of requests) expect(request.startsWith(`${origin}/`), request).toBe(true);
  expect(errors).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
});

for (const [width, height] of [
  [1280, 900],
  [390, 844],
] as const) {
  test(`[reference.query] at ${width} px the form with filters passes axe and fits the window`, async ({ page }) => {
    // axe over the whole page takes more than the default 30 s on a busy machine.
    test.setTimeout(90_000);
    await page.setViewportSize({ width, height });
    await openReference(page);
    const form = page.locator('#try-form');
    await form.getByLabel('Path').selectOption('/company/');
    await form.locator('[name="company.city"]').fill('Detroit');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.locator('#answer-body')).toBeVisible();
    const results = await new AxeBuilder({ page }).analyze();
    const blocking = results.violations.filter((violation) => ['serious', 'critical'].includes(violation.impact ?? ''));
    expect(blocking.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
    const widths = await page.evaluate(() => {
      // biome-ignore lint/suspicious/noExplicitAny: the page's DOM
      const { document, innerWidth } = globalThis as any;
      return [document.documentElement.scrollWidth, innerWidth];
    });
    expect(widths[0]).toBeLessThanOrEqual(widths[1] as number);
  });
}
