// The Netlify target's start (test/e2e/targets/netlify.ts) on a port that another program took
// between freePort() and netlify dev's own bind. netlify dev then exits ("Could not acquire
// required 'port'"), but the port accepts connections and the other program answers: a start
// that trusted the open port and an OPTIONS answer typed JSON handed the tests that program as
// Netlify (a text/html 404 for /_reference/ in reference-targets.test.ts). It must fail instead.

import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { netlify } from '../e2e/targets/netlify.ts';
import { freePort } from '../e2e/targets/process.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { findProgram, reportMissing } from '../installed.ts';

const installed = findProgram(netlify.needs?.names ?? []) !== undefined;
if (!installed) reportMissing(netlify.needs?.what ?? 'netlify', "the Netlify target's start on a taken port");

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'netlify-start-'));
  await build({
    resources: API,
    dataDir: SAMPLE_DATA,
    headersPath: SAMPLE_HEADERS,
    outDir: path.join(dir, 'public'),
    targetsDir: path.join(dir, 'targets'),
    targets: ['netlify'],
    baseUrl: 'http://127.0.0.1:8000',
    pageSize: 10,
  });
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it.runIf(installed)(
  'fails on a port another program answers, instead of taking it for Netlify',
  async () => {
    const port = await freePort();
    // Answers as any of the project's servers would: OPTIONS with JSON, the rest an HTML 404.
    const other = http.createServer((request, response) => {
      const options = request.method === 'OPTIONS';
      response.writeHead(options ? 200 : 404, { 'Content-Type': options ? 'application/json' : 'text/html' });
      response.end(options ? '{}' : '<h1>Not Found</h1>');
    });
    await new Promise<void>((listening) => other.listen(port, '127.0.0.1', listening));
    try {
      const started = netlify.start({
        publicDir: path.join(dir, 'public'),
        targetsDir: path.join(dir, 'targets'),
        port,
        workDir: dir,
      });
      await expect(started).rejects.toThrow(/Could not acquire required 'port'/);
    } finally {
      await new Promise((closed) => other.close(closed));
    }
  },
  180_000,
);
