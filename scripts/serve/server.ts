// The local server: answers like the DRF service from a built output folder. The route table
// decides what answers a request; serve-handler (the engine of `serve`) sends the files, and
// the output's own `_headers` supplies the headers, so what is tested here is what is deployed.

import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import serveHandler from 'serve-handler';
import { methodNotAllowedBody } from '../api/bodies.ts';
import { headersFor, parseHeadersFile } from '../api/headers.ts';
import { encode, type Json } from '../api/json.ts';
import { sortRecords } from '../api/ordering.ts';
import { resolve, type Answer } from '../api/routes.ts';

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

export function createApiServer(root: string): http.Server {
  const publicDir = path.resolve(root);
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
        if (result.ifMissing && !(await exists(path.join(publicDir, result.file)))) {
          return answer(req, res, result.ifMissing, headers);
        }
        // The route table named the file, so the URL serve-handler sees is never the client's.
        req.url = `/${encodeURI(result.file)}`;
        res.statusCode = result.status;
        return serveHandler(req, res, {
          public: publicDir,
          cleanUrls: false,
          directoryListing: false,
          symlinks: false,
          etag: true,
          headers: [{ source: '**', headers: Object.entries(headers).map(([key, value]) => ({ key, value })) }],
        });
      }
    }
  }

  return http.createServer((req, res) => {
    const url = req.url ?? '/';
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
