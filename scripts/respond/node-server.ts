// The local server: answers like the DRF service from a built output folder. The route table
// decides what answers a request; serve-handler (the engine of `serve`) sends the files, and
// the output's own `_headers` supplies the headers, so what is tested here is what is deployed.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import serveHandler from 'serve-handler';
import { methodNotAllowedBody } from '../contract/bodies.ts';
import { headersFor, parseHeadersFile } from '../contract/headers.ts';
import { notModified } from './revalidate.ts';
import { encode, type Json } from '../contract/json.ts';
import { sortRecords } from '../contract/ordering.ts';
import { resolve, type Answer } from '../contract/routes.ts';

type Headers = Record<string, string>;

function send(res: http.ServerResponse, status: number, headers: Headers, body: string): void {
  res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** Content hashes as ETags, computed once per file version (serve-handler's 304 drops headers). */
class EtagCache {
  private readonly known = new Map<string, { version: string; etag: string }>();

  async of(file: string): Promise<string> {
    const { mtimeMs, size } = await stat(file);
    const version = `${mtimeMs}:${size}`;
    const cached = this.known.get(file);
    if (cached?.version === version) return cached.etag;
    const etag = `"${createHash('sha1').update(await readFile(file)).digest('hex')}"`;
    this.known.set(file, { version, etag });
    return etag;
  }
}

/** The path and query of a request target, also in absolute form (`GET http://host/company/`). */
function originForm(target: string): string {
  if (target.startsWith('/')) return target;
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return target;
  }
}

export function createApiServer(root: string): http.Server {
  const publicDir = path.resolve(root);
  const etags = new EtagCache();
  const { rules, errors } = parseHeadersFile(readFileSync(path.join(publicDir, '_headers'), 'utf8'));
  if (errors.length > 0) throw new Error(`${root}/_headers: ${errors.map((e) => e.message).join('; ')}`);

  async function answer(req: http.IncomingMessage, res: http.ServerResponse, result: Answer, headers: Headers) {
    switch (result.kind) {
      case 'redirect':
        return send(res, 301, { ...headers, Location: result.location }, '');
      case 'not-allowed':
        return send(res, 405, headers, methodNotAllowedBody(result.method));
      case 'sorted': {
        // A multi-field ordering: too many to pre-render, so sort the default list's records.
        const records = JSON.parse(await readFile(path.join(publicDir, result.file), 'utf8')) as Array<Json & { id: number }>;
        return send(res, 200, headers, encode(sortRecords(records, result.terms)));
      }
      case 'file': {
        const file = path.join(publicDir, result.file);
        if (result.ifMissing && !(await exists(file))) return answer(req, res, result.ifMissing, headers);
        // Error and OPTIONS bodies are whole answers: no ranges, no 304 (DRF has neither).
        if (result.status !== 200 || (req.method !== 'GET' && req.method !== 'HEAD')) {
          return send(res, result.status, headers, await readFile(file, 'utf8'));
        }
        const etag = await etags.of(file);
        if (notModified(req.headers['if-none-match'], etag)) {
          res.writeHead(304, { ...headers, ETag: etag });
          return res.end();
        }
        // The route table named the file, so the URL serve-handler sees is never the client's.
        req.url = `/${encodeURI(result.file)}`;
        return serveHandler(req, res, {
          public: publicDir,
          cleanUrls: false,
          directoryListing: false,
          symlinks: false,
          headers: [{ source: '**', headers: Object.entries({ ...headers, ETag: etag }).map(([key, value]) => ({ key, value })) }],
        });
      }
    }
  }

  return http.createServer((req, res) => {
    const url = originForm(req.url ?? '/');
    const headers = headersFor(rules, url.split('?')[0] ?? '/');
    answer(req, res, resolve(req.method ?? 'GET', url), headers).catch((error: unknown) => {
      console.error(error);
      if (!res.headersSent) send(res, 500, headers, encode({ detail: 'A server error occurred.' }));
      else res.destroy();
    });
  });
}

/** Starts listening; resolves with the origin clients use (`localhost` for a loopback host). */
export async function listen(server: http.Server, host: string, port: number): Promise<string> {
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => done());
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return `http://${originHost(host)}:${actualPort}`;
}

export function originHost(host: string): string {
  if (['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost'].includes(host)) return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** Serves `root` until SIGINT or SIGTERM, as `npm start` and `npm run serve` do. */
export async function serveUntilStopped(root: string, host: string, port: number): Promise<void> {
  const server = createApiServer(root);
  const origin = await listen(server, host, port);
  console.error(`Serving ${root}/ at ${origin}`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => server.close(() => process.exit(0)));
}
