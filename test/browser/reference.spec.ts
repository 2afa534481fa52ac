// The API reference page (docs/reference.md) in Chromium, on the project's own server: the shipped
// sample built with the page on into a temp folder, served on 127.0.0.1. The page loads nothing
// from elsewhere, describes the four paths, sends a request and shows the built file's answer,
// and axe finds no serious or critical accessibility violation. REFERENCE_SCREENSHOT=1 also
// writes docs/reference.png.

import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { API } from '../fixtures/sample.ts';
import { ROOT, type ServedReference, serveReference, shownAnswer, skipWithoutChromium } from './served-reference.ts';

const PAGE_SIZE = 10;

let served: ServedReference;
let origin: string;

skipWithoutChromium();

test.beforeAll(async () => {
  served = await serveReference('reference-browser-', { pageSize: PAGE_SIZE });
  origin = served.origin;
});

test.afterAll(async () => {
  await served?.stop();
});

const builtJson = (file: string) => served.builtJson(file);
const openReference = (page: Page) => served.open(page);

test('[reference.page] loads nothing from elsewhere and describes the four paths', async ({ page }) => {
  const { requests, errors } = await openReference(page);
  const textures = await builtJson('virtualbooth-texture/index.json');
  const pages = Math.max(1, Math.ceil(textures.count / PAGE_SIZE));
  // The page numbers come from the texture count the page asked of the server.
  await expect(page.locator('select[name="page"] option')).toHaveText([
    '(first)',
    ...Array.from({ length: pages }, (_, index) => String(index + 1)),
    'last',
  ]);
  await expect(page.locator('h2 code')).toHaveText(API.map((resource) => resource.path));
  const orderings = page.locator('#event table').filter({ hasText: 'ordering' }).first();
  for (const term of ['start_date', '-start_date', '-id', 'logo_bg_color']) {
    await expect(orderings.locator('code', { hasText: new RegExp(`^${term}$`) })).toHaveCount(1);
  }
  await expect(page.locator('#company table').filter({ hasText: 'Headers of every answer' })).toContainText(
    'GET, HEAD, OPTIONS',
  );
  expect(requests.length).toBeGreaterThan(1);
  for (const url of requests) expect(url.startsWith(`${origin}/`), url).toBe(true);
  expect(errors).toEqual([]);
});

test('[reference.try] sends /event/?ordering=-start_date and shows the built answer', async ({ page }) => {
  const { requests, errors } = await openReference(page);
  const form = page.locator('#try-form');
  await form.getByLabel('Path').selectOption('/event/');
  await form.getByLabel('ordering').selectOption('-start_date');
  await expect(page.locator('#try-url')).toHaveText('GET /event/?ordering=-start_date');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('#answer-status')).toHaveText('GET /event/?ordering=-start_date: 200 OK');
  const shown = await shownAnswer(page);
  const built = await builtJson('event/ordering=-start_date.json');
  expect(shown[0]).toEqual(built[0]);
  expect(shown).toEqual(built);
  const headers = page.locator('#answer-headers');
  await expect(headers.locator('tr', { hasText: 'allow' })).toContainText('GET, HEAD, OPTIONS');
  await expect(headers.locator('tr', { hasText: 'vary' })).toContainText('Accept');

  // An example is the first record of the list, asked for when it is opened.
  await page.locator('#company summary').click();
  await expect(page.locator('#company [data-example-body]')).toContainText('record 1 of');
  const example = (await page.locator('#company [data-example-body]').textContent()) ?? '';
  const company = (await builtJson('company/index.json'))[0];
  expect(JSON.parse(example.slice(example.indexOf('\n') + 1))).toEqual(company);

  for (const url of requests) expect(url.startsWith(`${origin}/`), url).toBe(true);
  expect(requests).toContain(`${origin}/event/?ordering=-start_date`);
  expect(errors).toEqual([]);

  if (process.env.REFERENCE_SCREENSHOT === '1') {
    // Tall enough to show the first record of the answer, whose name is Japanese.
    await page.setViewportSize({ width: 1200, height: 1200 });
    await page.locator('#try').evaluate((section) => section.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: path.join(ROOT, 'docs/reference.png') });
  }
});

test('[reference.fields] every resource lists the fields of its records', async ({ page }) => {
  await openReference(page);
  for (const resource of API) {
    const built = await builtJson(`${resource.path.slice(1, -1)}/index.json`);
    const first = Array.isArray(built) ? built[0] : built.results[0];
    const table = page.locator(`#${resource.name} table`).filter({ hasText: 'Fields of a record' });
    // The top-level fields, in the order of the JSON keys; nested ones are named with a dot.
    const names = (await table.locator('tbody th').allTextContents()).filter((name) => !name.includes('.'));
    expect(names, resource.path).toEqual(Object.keys(first));
  }
});

/**
 * The words of every table cell that the layout broke over lines: each run of letters, digits and
 * underscores (up to 24 characters: a name, a value, a word; a line may still break at a hyphen
 * or a slash between them) has its client rects, made by a Range over its characters, on one line.
 * A longer run (a token of a pattern or URL) may break anywhere and is not counted.
 */
function brokenWords(): string[] {
  // The page's DOM, run in the browser: the project's types hold no DOM library.
  // biome-ignore lint/suspicious/noExplicitAny: see above
  const { document, NodeFilter } = globalThis as any;
  const broken: string[] = [];
  for (const cell of document.querySelectorAll('main table th, main table td')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const match of text.matchAll(/\w+/g)) {
        if (match[0].length > 24) continue;
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set(
          [...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)),
        );
        if (tops.size > 1) broken.push(`${cell.closest('section')?.id}: ${match[0]}`);
      }
    }
  }
  return broken;
}

for (const [width, height] of [
  [1280, 900],
  [390, 844],
] as const) {
  test(`[reference.layout] at ${width} px no word of a table is broken over lines, nor the page wider`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height });
    await openReference(page);
    expect(await page.evaluate(brokenWords)).toEqual([]);
    const widths = await page.evaluate(() => {
      // biome-ignore lint/suspicious/noExplicitAny: the page's DOM, as in brokenWords
      const { document, innerWidth } = globalThis as any;
      return [document.documentElement.scrollWidth, innerWidth];
    });
    expect(widths[0]).toBeLessThanOrEqual(widths[1] as number);
  });
}

test('[reference.a11y] axe finds no serious or critical violation', async ({ page }) => {
  // axe over the whole page takes more than the default 30 s on a busy machine.
  test.setTimeout(90_000);
  await openReference(page);
  // With the dynamic parts shown: an example open and an answer with its headers.
  for (const summary of await page.locator('details.example summary').all()) await summary.click();
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('#answer-body')).toBeVisible();
  const results = await new AxeBuilder({ page }).analyze();
  const blocking = results.violations.filter((violation) => ['serious', 'critical'].includes(violation.impact ?? ''));
  expect(blocking.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
});
