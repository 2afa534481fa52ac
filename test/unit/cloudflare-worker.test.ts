// scripts/respond/cloudflare-worker.ts in-process: the worker and the local server are adapters
// of the same request handler, so for every kind of request they must send the same status, the
// same `_headers` headers and the same bytes. The ASSETS binding is a stand-in that, like Cloudflare's
// asset worker with html_handling "none", serves a file only by its exact name. The real
// runtimes (wrangler, workerd) are exercised by the end-to-end suite.

import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { DEFAULTS } from '../../scripts/cli/settings.ts';
import { parseHeadersFile } from '../../scripts/contract/headers.ts';
import { createWorker, type Env } from '../../scripts/respond/cloudflare-worker.ts';
import { createHandler, type FileStore, notModified } from '../../scripts/respond/handler.ts';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';

const ORIGIN = 'https://api.example.com';

/** Cloudflare's asset worker, reduced to what the worker relies on: exact names, GET, ETag (no length, no Range). */
function assetsOf(dir: string): Env['ASSETS'] {
  return {
    async fetch(input) {
      const url = new URL(input instanceof Request ? input.url : input);
      const bytes = await readFile(path.join(dir, decodeURIComponent(url.pathname))).catch(() => null);
      if (bytes === null) return new Response(null, { status: 404 });
      const etag = `"${createHash('sha1').update(bytes).digest('hex')}"`;
      return new Response(bytes, { headers: { 'Content-Type': 'application/json', ETag: etag } });
    },
  };
}

const HEADER_NAMES = [
  'content-type',
  'vary',
  'allow',
  'x-frame-options',
  'x-content-type-options',
  'referrer-policy',
  'location',
  'content-range',
];

let parent: string;
let dir: string;
let server: http.Server;
let local: string;
let worker: ReturnType<typeof createWorker>;
let env: Env;

beforeAll(async () => {
  // One build for the whole file (tempDirs() would remove it after the first test).
  parent = await mkdtemp(path.join(tmpdir(), 'cloudflare-worker-test-'));
  dir = path.join(parent, 'public');
  await build({
    resources: API,
    ...DEFAULTS,
    dataDir: SAMPLE_DATA,
    headersPath: SAMPLE_HEADERS,
    outDir: dir,
    targetsDir: path.join(parent, 'targets'),
    schemasDir: undefined,
    baseUrl: ORIGIN,
  });
  server = createApiServer(dir, API);
  local = await listen(server, '127.0.0.1', 0);
  const { rules } = parseHeadersFile(await readFile(path.join(dir, '_headers'), 'utf8'));
  worker = createWorker(rules, API);
  env = { ASSETS: assetsOf(dir) };
}, 30_000);

afterAll(async () => {
  await new Promise<void>((done) => server.close(() => done()));
  await rm(parent, { recursive: true, force: true });
});

async function both(method: string, target: string, sent: Record<string, string> = {}) {
  const viaWorker = await worker.fetch(new Request(`${ORIGIN}${target}`, { method, headers: sent }), env);
  // fetch asks for gzip and br by default; the worker leaves compression to Cloudflare's edge.
  const headers = { ...sent, 'Accept-Encoding': 'identity' };
  const viaLocal = await fetch(`${local}${target}`, { method, headers, redirect: 'manual' });
  const pick = async (response: Response) => ({
    status: response.status,
    headers: Object.fromEntries(HEADER_NAMES.map((name) => [name, response.headers.get(name)])),
    body: await response.text(),
  });
  return { worker: await pick(viaWorker), local: await pick(viaLocal) };
}

describe('the worker answers as the local server', () => {
  const requests: Array<[method: string, target: string]> = [
    ['GET', '/company/'],
    ['GET', '/virtualfair/'],
    ['GET', '/event/?ordering=-start_date'],
    ['GET', '/event/?ordering=-start_date,name'],
    ['GET', '/event/?ordering=name,bogus,-id'],
    ['GET', '/virtualbooth-texture/?page=2&format=api'],
    ['GET', '/virtualbooth-texture/?page=last'],
    ['GET', '/virtualbooth-texture/?page=9999'],
    ['GET', '/virtualbooth-texture/?page=abc'],
    ['GET', '/company/?format=xml'],
    ['GET', '/company?x=1'],
    ['GET', '/company/index.json'],
    ['GET', '/_headers'],
    ['GET', '/nope/'],
    ['HEAD', '/event/?ordering=-start_date,name'],
    ['HEAD', '/company/'],
    ['OPTIONS', '/event/'],
    ['POST', '/company/'],
    ['DELETE', '/virtualbooth-texture/?page=2'],
    ['POST', '/nope/'],
  ];
  it.each(requests)('%s %s', async (method, target) => {
    const answers = await both(method, target);
    expect(answers.worker).toEqual(answers.local);
  });
});

describe('a Range, as the local server reads it', () => {
  it.each([
    ['GET', '/event/', 'bytes=0-9'],
    ['GET', '/event/', 'bytes=10-'],
    ['GET', '/event/', 'bytes=-7'],
    ['GET', '/event/?ordering=-start_date', 'bytes=5-20'],
    ['GET', '/virtualbooth-texture/?page=2', 'bytes=0-99999999'],
    ['GET', '/event/', 'bytes=99999999-'],
    ['GET', '/event/', 'bytes=0-1,5-6'],
    ['GET', '/event/', 'bytes=5-2'],
    ['GET', '/event/', 'items=0-1'],
    ['HEAD', '/event/', 'bytes=0-9'],
    ['GET', '/nope/', 'bytes=0-9'],
    ['GET', '/event/?ordering=-start_date,name', 'bytes=0-9'],
  ])('%s %s Range: %s', async (method, target, range) => {
    const answers = await both(method, target, { Range: range });
    expect(answers.worker).toEqual(answers.local);
  });

  it('answers a single range with 206 and the slice, one past the end with 416', async () => {
    const whole = Buffer.from(await (await worker.fetch(new Request(`${ORIGIN}/event/`), env)).arrayBuffer());
    const sliced = await worker.fetch(new Request(`${ORIGIN}/event/`, { headers: { Range: 'bytes=3-12' } }), env);
    expect([sliced.status, sliced.headers.get('Content-Range'), Buffer.from(await sliced.arrayBuffer())]).toEqual([
      206,
      `bytes 3-12/${whole.length}`,
      whole.subarray(3, 13),
    ]);
    const past = await worker.fetch(new Request(`${ORIGIN}/event/`, { headers: { Range: 'bytes=999999-' } }), env);
    expect([past.status, past.headers.get('Content-Range'), await past.text()]).toEqual([
      416,
      `bytes */${whole.length}`,
      '',
    ]);
  });
});

describe('revalidation', () => {
  it('answers a matching If-None-Match with 304, keeping ETag and the headers', async () => {
    const first = await worker.fetch(new Request(`${ORIGIN}/company/`), env);
    const etag = first.headers.get('ETag') as string;
    const again = await worker.fetch(
      new Request(`${ORIGIN}/company/`, { headers: { 'If-None-Match': `W/${etag}` } }),
      env,
    );
    expect(again.status).toBe(304);
    expect(again.headers.get('ETag')).toBe(etag);
    expect(again.headers.get('Vary')).toBe('Accept');
    expect(await again.text()).toBe('');
  });

  it('never turns an error answer into a 304', async () => {
    const first = await worker.fetch(new Request(`${ORIGIN}/nope/`), env);
    const again = await worker.fetch(new Request(`${ORIGIN}/nope/`, { headers: { 'If-None-Match': '*' } }), env);
    expect(again.status).toBe(404);
    expect(await again.text()).toBe(await first.text());
  });

  it('gives OPTIONS and error bodies no validator, so they are never a 304', async () => {
    for (const [method, target] of [
      ['OPTIONS', '/event/'],
      ['GET', '/nope/'],
      ['GET', '/virtualbooth-texture/?page=9999'],
      ['POST', '/company/'],
    ]) {
      const answer = await worker.fetch(
        new Request(`${ORIGIN}${target}`, { method, headers: { 'If-None-Match': '*' } }),
        env,
      );
      expect(answer.status, `${method} ${target}`).not.toBe(304);
      expect(answer.headers.get('ETag'), `${method} ${target}`).toBeNull();
    }
  });

  it.each([
    ['"a"', '"a"', true],
    ['W/"a"', '"a"', true],
    ['"b", "a"', '"a"', true],
    ['*', '"a"', true],
    ['"b"', '"a"', false],
    [null, '"a"', false],
    ['"a"', null, false],
  ])('If-None-Match %s against %s: %s', (header, etag, expected) => {
    expect(notModified(header, etag)).toBe(expected);
  });
});

describe('the handler', () => {
  it('answers a failing store with the 500 body and the _headers headers', async () => {
    const { rules } = parseHeadersFile(await readFile(path.join(dir, '_headers'), 'utf8'));
    const handler = createHandler(rules, API);
    const broken: FileStore<never> = {
      open: async () => {
        throw new Error('the disk is gone');
      },
    };
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const reply = await handler.answer({ method: 'GET', url: '/company/' }, broken);
      expect(reply).toEqual({
        status: 500,
        headers: expect.objectContaining({ Vary: 'Accept', 'Content-Type': 'application/json' }),
        body: '{"detail":"A server error occurred."}',
      });
      expect(errors).toHaveBeenCalledOnce();
    } finally {
      errors.mockRestore();
    }
  });

  it('answers the fixed bodies without opening a file', async () => {
    const handler = createHandler([], API);
    const none: FileStore<never> = {
      open: async (file) => {
        throw new Error(`opened ${file}`);
      },
    };
    expect(await handler.answer({ method: 'OPTIONS', url: '/company/' }, none)).toMatchObject({
      status: 200,
      body: expect.stringContaining('"Company List"'),
    });
    expect(await handler.answer({ method: 'GET', url: '/nope/' }, none)).toEqual({
      status: 404,
      headers: { 'Content-Type': 'application/json' },
      body: '{"detail":"Not found."}',
    });
    expect(await handler.answer({ method: 'DELETE', url: '/event/' }, none)).toMatchObject({ status: 405 });
    expect(await handler.answer({ method: 'GET', url: '/company?a=1' }, none)).toMatchObject({
      status: 301,
      headers: { Location: '/company/?a=1' },
      body: '',
    });
  });
});
