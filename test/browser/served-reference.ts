// What the reference page's browser tests share: the shipped sample built with the page on into a
// temporary folder and served by the project's own server on 127.0.0.1, and the page opened with
// every request it makes and every error it logs recorded.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { type BuildOptions, build } from '../../scripts/builder/build.ts';
import { REFERENCE_DOCUMENT } from '../../scripts/contract/routes.ts';
import { createApi, listen } from '../../scripts/respond/node-server.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { findProgram, reportMissing } from '../installed.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');
const CHROMIUM = '/usr/bin/chromium';

/** Skips the file's tests, with the one line that says how to install it, where Chromium is missing. */
export function skipWithoutChromium(): void {
  const chromium = findProgram([CHROMIUM]);
  if (!chromium) reportMissing('Chromium', 'the reference page browser test');
  test.skip(!chromium, `${CHROMIUM} is not installed`);
}

export interface ServedReference {
  origin: string;
  /** A file of the build, parsed. */
  // biome-ignore lint/suspicious/noExplicitAny: the tests read any answer's JSON
  builtJson(file: string): Promise<any>;
  /** Opens the page, recording every request it makes and every message it logs. */
  open(page: Page): Promise<{ requests: string[]; errors: string[] }>;
  stop(): Promise<void>;
}

/**
 * The answer the page shows, parsed, once it shows one: the page writes the status line as soon as
 * the headers arrive and the body after it has read it, hidden meanwhile.
 */
// biome-ignore lint/suspicious/noExplicitAny: any answer's JSON
export async function shownAnswer(page: Page): Promise<any> {
  const body = page.locator('#answer-body');
  await expect(body).toBeVisible();
  return JSON.parse((await body.textContent()) ?? '');
}

/** The sample built with the reference on (and `options`) and served; `prefix` names its temporary folder. */
export async function serveReference(
  prefix: string,
  options: Pick<BuildOptions, 'pageSize' | 'resourceSettings' | 'configPath'>,
): Promise<ServedReference> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), prefix));
  const publicDir = path.join(tmp, 'public');
  // Bound first, as npm start binds: the page links name the port.
  let answer: http.RequestListener | undefined;
  const server = http.createServer((request, response) => answer?.(request, response));
  const origin = await listen(server, '127.0.0.1', 0);
  await build({
    resources: API,
    dataDir: SAMPLE_DATA,
    headersPath: SAMPLE_HEADERS,
    outDir: publicDir,
    targetsDir: path.join(tmp, 'targets'),
    targets: [],
    baseUrl: origin,
    reference: true,
    ...options,
  });
  answer = createApi(publicDir, API).listener;
  return {
    origin,
    builtJson: async (file) => JSON.parse(await readFile(path.join(publicDir, file), 'utf8')),
    async open(page) {
      const requests: string[] = [];
      const errors: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      const response = await page.goto(`${origin}${REFERENCE_DOCUMENT.path}`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-type']).toBe(REFERENCE_DOCUMENT.contentType);
      return { requests, errors };
    },
    async stop() {
      await new Promise((done) => server.close(done));
      await rm(tmp, { recursive: true, force: true });
    },
  };
}
