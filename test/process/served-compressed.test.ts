// The precompressed siblings served, on the real nginx, Caddy and Apache with the configs the
// build wrote, and on the local server: the sample data is built twice, with siblings and
// without, and each build is served. A client that accepts br or gzip gets that coding for every
// answer of 4 KiB or more, decoding to the file's bytes, with Accept-Encoding added to Vary, an
// ETag of its own that answers 304, its Content-Length, and HEAD alike without a body; a Range request gets what the
// server does with it (below). A client sending no Accept-Encoding gets the same answers, header
// for header, from the build with siblings as from the build without: the siblings change
// nothing for it. The build without (the precompress setting off) answers every client as it is.

import { chmod, cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { resolve } from '../../scripts/contract/routes.ts';
import { verifyRequests } from '../../scripts/migrate/verify-requests.ts';
import { worthCompressing, writeSiblings } from '../../scripts/shared/compress.ts';
import { brotliModule, nginx, nginxWithoutBrotli } from '../e2e/targets/nginx.ts';
import { freePort } from '../e2e/targets/process.ts';
import type { RunningTarget, Target } from '../e2e/targets/target.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { findProgram } from '../installed.ts';
import { installedWebServers, localInProcess } from '../unit/helpers/web-servers.ts';

const installed = installedWebServers('compressed answers');
// nginx once more, without the brotli_static module: api.conf must serve gzip on its own.
const withoutBrotli: Target = { ...nginxWithoutBrotli, name: 'nginx without brotli' };
const TARGETS: Target[] = [...installed, ...(installed.includes(nginx) ? [withoutBrotli] : []), localInProcess];
const nginxBinary = findProgram(nginx.needs?.names ?? []);
/**
 * What `Accept-Encoding: br` gets: nginx sends br only with the brotli_static module, and
 * without it the answer as it is (the client did not accept gzip).
 */
const BR_SENT: Record<string, 'br' | 'identity'> = {
  nginx: nginxBinary && brotliModule(nginxBinary) ? 'br' : 'identity',
  'nginx without brotli': 'identity',
  caddy: 'br',
  apache: 'br',
  local: 'br',
};
/**
 * What a Range request of a compressed answer gets: nginx's gzip_static and brotli_static send
 * the whole compressed answer (200, no Accept-Ranges); the others a slice of the compressed bytes.
 */
const RANGE: Record<string, 'whole' | 'slice'> = {
  nginx: 'whole',
  'nginx without brotli': 'whole',
  caddy: 'slice',
  apache: 'slice',
  local: 'slice',
};
/** Headers that differ between two answers of the same bytes: their time, validators and connection. */
const PER_ANSWER = new Set(['date', 'etag', 'last-modified', 'keep-alive', 'connection']);

interface Answer {
  status: number;
  /** Every header line, names lower-cased, in order. */
  headers: Array<[string, string]>;
  body: Buffer;
}

function ask(origin: string, url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((done, fail) => {
    const request = http.request(`${origin}${url}`, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => {
        const lines: Array<[string, string]> = [];
        for (let i = 0; i < response.rawHeaders.length; i += 2)
          lines.push([(response.rawHeaders[i] as string).toLowerCase(), response.rawHeaders[i + 1] as string]);
        done({ status: response.statusCode ?? 0, headers: lines, body: Buffer.concat(chunks) });
      });
    });
    request.setTimeout(10_000, () => request.destroy(new Error(`${url}: no answer within 10 s`)));
    request.once('error', fail);
    request.end();
  });
}

const all = (answer: Answer, name: string) => answer.headers.filter(([key]) => key === name).map(([, value]) => value);
const one = (answer: Answer, name: string) => all(answer, name)[0];
/** Vary's values over all its lines, as a set would name them. */
const varyOf = (answer: Answer) =>
  all(answer, 'vary')
    .flatMap((value) => value.split(','))
    .map((value) => value.trim().toLowerCase())
    .sort();
/** The headers that do not change from one build of the same bytes to another, sorted. */
const lasting = (answer: Answer) =>
  answer.headers.filter(([name]) => !PER_ANSWER.has(name)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

function decode(encoding: string | undefined, body: Buffer): Buffer {
  if (encoding === 'br') return brotliDecompressSync(body);
  if (encoding === 'gzip') return gunzipSync(body);
  return body;
}

describe('precompressed answers on the running servers', () => {
  let dir: string;
  let publicDir: string;
  /** Each GET the contract names, with the file that answers it (undefined: a body of its own). */
  let requests: Array<{ url: string; file: string | undefined }>;
  const running = new Map<string, { encoded: RunningTarget; plain: RunningTarget }>();

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'served-compressed-'));
    // Apache's children run as nobody when started as root: they must get through to each build.
    await chmod(dir, 0o711);
    const dataDir = path.join(dir, 'data');
    await cp(SAMPLE_DATA, dataDir, { recursive: true });
    const options = (name: string, precompress: boolean) => ({
      resources: API,
      dataDir,
      headersPath: SAMPLE_HEADERS,
      outDir: path.join(dir, name, 'public'),
      targetsDir: path.join(dir, name, 'targets'),
      targets: installed.map((server) => server.name),
      baseUrl: 'http://127.0.0.1:8000',
      pageSize: 10,
      precompress,
    });
    const result = await build(options('encoded', true));
    await build(options('plain', false));
    publicDir = path.join(dir, 'encoded', 'public');
    const urls = [
      ...new Set(
        verifyRequests(result.routes, API).flatMap(({ method, url }) => (method === 'GET' ? [`/${url}`] : [])),
      ),
    ];
    requests = urls.map((url) => {
      const answer = resolve('GET', url, API);
      return { url, file: answer.kind === 'file' && answer.status === 200 ? answer.file : undefined };
    });
    for (const server of TARGETS) {
      const start = async (name: string) => {
        const workDir = path.join(dir, `work-${server.name.replaceAll(' ', '-')}-${name}`);
        await mkdir(workDir);
        const built = path.join(dir, name);
        return server.start({
          publicDir: path.join(built, 'public'),
          targetsDir: path.join(built, 'targets'),
          port: await freePort(),
          workDir,
        });
      };
      running.set(server.name, { encoded: await start('encoded'), plain: await start('plain') });
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...running.values()].flatMap(({ encoded, plain }) => [encoded.stop(), plain.stop()]));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The answers with siblings, and their files' bytes. */
  async function compressedAnswers(): Promise<Array<{ url: string; bytes: Buffer; file: string }>> {
    const found = [];
    for (const { url, file } of requests) {
      if (file === undefined) continue;
      const bytes = await readFile(path.join(publicDir, file)).catch(() => undefined);
      if (bytes && worthCompressing(file, bytes.length)) found.push({ url, bytes, file });
    }
    return found;
  }

  it('has answers with siblings and answers without', async () => {
    const compressed = await compressedAnswers();
    expect(compressed.length).toBeGreaterThan(10);
    expect(requests.length).toBeGreaterThan(compressed.length);
  });

  it.each(TARGETS.map((server) => server.name))(
    '%s: without Accept-Encoding, every answer is the one of the build without siblings, header for header',
    async (name) => {
      const { encoded, plain } = running.get(name) as { encoded: RunningTarget; plain: RunningTarget };
      const wrong: string[] = [];
      for (const { url } of requests) {
        for (const method of ['GET', 'HEAD']) {
          const [withSiblings, without] = await Promise.all([
            ask(encoded.origin, url, {}, method),
            ask(plain.origin, url, {}, method),
          ]);
          if (withSiblings.status !== without.status) wrong.push(`${method} ${url}: status ${withSiblings.status}`);
          if (!withSiblings.body.equals(without.body)) wrong.push(`${method} ${url}: body differs`);
          const [a, b] = [lasting(withSiblings), lasting(without)];
          if (JSON.stringify(a) !== JSON.stringify(b))
            wrong.push(`${method} ${url}: headers ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`);
          // And as _headers says, whatever both builds' servers do alike.
          if (JSON.stringify(all(withSiblings, 'vary')) !== JSON.stringify(['Accept']))
            wrong.push(`${method} ${url}: Vary ${all(withSiblings, 'vary').join(' | ')}`);
          if (one(withSiblings, 'content-encoding') !== undefined) wrong.push(`${method} ${url}: Content-Encoding`);
        }
      }
      expect(wrong).toEqual([]);
    },
    60_000,
  );

  it.each(TARGETS.flatMap((server) => ['br', 'gzip'].map((coding) => [server.name, coding] as const)))(
    '%s, Accept-Encoding: %s: the coding, decoding to the file, Vary with Accept-Encoding, HEAD alike, 304 on its ETag',
    async (name, coding) => {
      const { encoded } = running.get(name) as { encoded: RunningTarget };
      const sent = coding === 'br' ? BR_SENT[name] : 'gzip';
      const wrong: string[] = [];
      for (const { url, bytes, file } of await compressedAnswers()) {
        const headers = { 'Accept-Encoding': coding };
        const get = await ask(encoded.origin, url, headers);
        const encoding = one(get, 'content-encoding') ?? 'identity';
        if (sent === 'identity') {
          if (encoding !== 'identity' || !get.body.equals(bytes)) wrong.push(`${url}: ${encoding}, not the file`);
          continue;
        }
        if (get.status !== 200 || encoding !== sent) {
          wrong.push(`${url}: ${get.status}, Content-Encoding ${encoding}, not ${sent}`);
          continue;
        }
        if (!decode(encoding, get.body).equals(bytes)) wrong.push(`${url}: decodes to other bytes than ${file}`);
        if (JSON.stringify(varyOf(get)) !== JSON.stringify(['accept', 'accept-encoding']))
          wrong.push(`${url}: Vary ${all(get, 'vary').join(' | ')}`);
        const etag = one(get, 'etag');
        const identity = await ask(encoded.origin, url);
        if (etag === undefined || etag === one(identity, 'etag')) wrong.push(`${url}: ETag ${etag}, the identity's`);
        const head = await ask(encoded.origin, url, headers, 'HEAD');
        if (head.body.length > 0) wrong.push(`${url}: HEAD has a body`);
        // Framed by its length, GET and HEAD alike: a cache or client that reads a HEAD learns the size.
        for (const [method, answer] of [
          ['GET', get],
          ['HEAD', head],
        ] as const) {
          if (one(answer, 'content-length') !== String(get.body.length))
            wrong.push(`${url}: ${method} Content-Length ${one(answer, 'content-length')}, not ${get.body.length}`);
        }
        const framing = (answer: Answer) => lasting(answer).filter(([key]) => key !== 'transfer-encoding');
        if (JSON.stringify(framing(head)) !== JSON.stringify(framing(get)) || one(head, 'etag') !== etag)
          wrong.push(`${url}: HEAD headers ${JSON.stringify(head.headers)} ≠ GET's ${JSON.stringify(get.headers)}`);
        const revalidated = await ask(encoded.origin, url, { ...headers, 'If-None-Match': etag as string });
        if (revalidated.status !== 304 || revalidated.body.length > 0 || one(revalidated, 'etag') !== etag)
          wrong.push(`${url}: If-None-Match ${etag} got ${revalidated.status}, ETag ${one(revalidated, 'etag')}`);
        if (!varyOf(revalidated).includes('accept-encoding')) wrong.push(`${url}: 304 without Accept-Encoding in Vary`);
        // The identity's ETag does not match the compressed answer.
        const stale = await ask(encoded.origin, url, {
          ...headers,
          'If-None-Match': one(identity, 'etag') as string,
        });
        if (stale.status !== 200) wrong.push(`${url}: the identity's ETag got ${stale.status}`);
      }
      expect(wrong).toEqual([]);
    },
    60_000,
  );

  it.each(TARGETS.map((server) => server.name))(
    '%s: a Range request of a compressed answer gets the documented answer',
    async (name) => {
      const { encoded } = running.get(name) as { encoded: RunningTarget };
      const { url, file } = (await compressedAnswers()).find((answer) => answer.url === '/company/') ?? {};
      if (url === undefined || file === undefined) throw new Error('/company/ has no siblings');
      const coding = BR_SENT[name] === 'br' ? 'br' : 'gzip';
      const sibling = await readFile(path.join(publicDir, `${file}${coding === 'br' ? '.br' : '.gz'}`));
      const answer = await ask(encoded.origin, url, { 'Accept-Encoding': coding, Range: 'bytes=0-99' });
      expect(one(answer, 'content-encoding')).toBe(coding);
      if (RANGE[name] === 'whole') {
        expect(answer.status).toBe(200);
        expect(answer.body.equals(sibling)).toBe(true);
      } else {
        expect(answer.status).toBe(206);
        expect(one(answer, 'content-range')).toBe(`bytes 0-99/${sibling.length}`);
        expect(answer.body.equals(sibling.subarray(0, 100))).toBe(true);
      }
    },
  );

  it.each(TARGETS.map((server) => server.name))(
    '%s: a client that refuses both codings, or accepts neither, gets the file as it is',
    async (name) => {
      const { encoded } = running.get(name) as { encoded: RunningTarget };
      const bytes = await readFile(path.join(publicDir, 'company/index.json'));
      for (const header of ['identity', 'br;q=0, gzip;q=0', 'deflate']) {
        const answer = await ask(encoded.origin, '/company/', { 'Accept-Encoding': header });
        expect(one(answer, 'content-encoding'), header).toBeUndefined();
        expect(answer.body.equals(bytes), header).toBe(true);
      }
      // A preference: br refused, gzip accepted.
      const gzip = await ask(encoded.origin, '/company/', { 'Accept-Encoding': 'br;q=0, gzip' });
      expect(one(gzip, 'content-encoding')).toBe('gzip');
    },
  );

  it.each(TARGETS.map((server) => server.name))(
    '%s, the build without siblings (precompress off): a client that accepts br and gzip gets each answer as it is',
    async (name) => {
      const { plain } = running.get(name) as { plain: RunningTarget };
      const wrong: string[] = [];
      for (const { url, bytes } of await compressedAnswers()) {
        for (const method of ['GET', 'HEAD']) {
          const answer = await ask(plain.origin, url, { 'Accept-Encoding': 'br, gzip' }, method);
          const encoding = one(answer, 'content-encoding');
          if (answer.status !== 200 || encoding !== undefined)
            wrong.push(`${method} ${url}: ${answer.status} ${encoding}`);
          if (method === 'GET' && !answer.body.equals(bytes)) wrong.push(`${url}: not the file's bytes`);
          if (JSON.stringify(all(answer, 'vary')) !== JSON.stringify(['Accept']))
            wrong.push(`${method} ${url}: Vary ${all(answer, 'vary').join(' | ')}`);
        }
      }
      expect(wrong).toEqual([]);
    },
    60_000,
  );
});

describe('the local server and a file replaced in place, as the live preview replaces it', () => {
  let dir: string;
  let publicDir: string;
  let server: RunningTarget;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'served-replaced-'));
    publicDir = path.join(dir, 'public');
    await build({
      resources: API,
      dataDir: SAMPLE_DATA,
      headersPath: SAMPLE_HEADERS,
      outDir: publicDir,
      targetsDir: path.join(dir, 'targets'),
      targets: [],
      baseUrl: 'http://127.0.0.1:8000',
      pageSize: 10,
      precompress: true,
    });
    server = await localInProcess.start({ publicDir, targetsDir: path.join(dir, 'targets'), port: 0, workDir: dir });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('never sends a sibling of the bytes the file had before: the new file as it is, until its own siblings', async () => {
    const file = path.join(publicDir, 'company/index.json');
    const before = await ask(server.origin, '/company/', { 'Accept-Encoding': 'br' });
    expect(one(before, 'content-encoding')).toBe('br');
    // The file replaced, its previous siblings still beside it (with the previous file's time).
    const changed = Buffer.from((await readFile(file, 'utf8')).replace('"name":"', '"name":"Renamed '));
    await writeFile(`${file}.partial`, changed);
    await rename(`${file}.partial`, file);
    for (const coding of ['br', 'gzip']) {
      const answer = await ask(server.origin, '/company/', { 'Accept-Encoding': coding });
      expect(one(answer, 'content-encoding'), coding).toBeUndefined();
      expect(answer.body.equals(changed), coding).toBe(true);
      expect(all(answer, 'vary')).toEqual(['Accept']);
      const revalidated = await ask(server.origin, '/company/', {
        'Accept-Encoding': coding,
        'If-None-Match': one(before, 'etag') as string,
      });
      expect(revalidated.status, coding).toBe(200);
    }
    await writeSiblings(publicDir, 'company/index.json', changed);
    const after = await ask(server.origin, '/company/', { 'Accept-Encoding': 'br' });
    expect(one(after, 'content-encoding')).toBe('br');
    expect(decode('br', after.body).equals(changed)).toBe(true);
  });
});
