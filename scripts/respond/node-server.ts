// The local server (`npm run serve`, `npm start`): the request handler on node:http, answering
// from a built output folder. serve-handler (the engine of `serve`) sends the list files, and the
// output's own `_headers` supplies the headers, so what is tested here is what is deployed.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import serveHandler from 'serve-handler';
import { parseHeadersFile } from '../contract/headers.ts';
import { createHandler, type FileStore, type Reply } from './handler.ts';

/**
 * Content hashes as ETags, computed once per file version: serve-handler's own ETag is not
 * sent on its 304, and a hash is the same on every machine that serves the same build.
 */
class EtagCache {
  private readonly known = new Map<string, { version: string; etag: string }>();

  async etagOf(file: string): Promise<string> {
    const { mtimeMs, size } = await stat(file);
    const version = `${mtimeMs}:${size}`;
    const cached = this.known.get(file);
    if (cached?.version === version) return cached.etag;
    const etag = `"${createHash('sha1')
      .update(await readFile(file))
      .digest('hex')}"`;
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

/** The output folder's files; a file's body handle is its path relative to the folder. */
function folderStore(publicDir: string, etags: EtagCache): FileStore<string> {
  return {
    async open(file) {
      const absolute = path.join(publicDir, file);
      const isFile = await stat(absolute).then(
        (stats) => stats.isFile(),
        () => false,
      );
      if (!isFile) return null;
      return { etag: () => etags.etagOf(absolute), text: () => readFile(absolute, 'utf8'), body: file };
    },
  };
}

export function createApiServer(root: string): http.Server {
  const publicDir = path.resolve(root);
  const { rules, errors } = parseHeadersFile(readFileSync(path.join(publicDir, '_headers'), 'utf8'));
  if (errors.length > 0) throw new Error(`${root}/_headers: ${errors.map((error) => error.message).join('; ')}`);
  const handler = createHandler(rules);
  const store = folderStore(publicDir, new EtagCache());

  async function write(req: http.IncomingMessage, res: http.ServerResponse, reply: Reply<string>): Promise<void> {
    if ('file' in reply) {
      // The handler named the file, so the URL serve-handler sees is never the client's.
      req.url = `/${encodeURI(reply.file.body)}`;
      return serveHandler(req, res, {
        public: publicDir,
        cleanUrls: false,
        directoryListing: false,
        symlinks: false,
        headers: [{ source: '**', headers: Object.entries(reply.headers).map(([key, value]) => ({ key, value })) }],
      });
    }
    if (reply.body === null) {
      res.writeHead(reply.status, reply.headers);
      res.end();
      return;
    }
    // On HEAD node sends the headers only, Content-Length included.
    res.writeHead(reply.status, { ...reply.headers, 'Content-Length': Buffer.byteLength(reply.body) });
    res.end(reply.body);
  }

  return http.createServer((req, res) => {
    const target = originForm(req.url ?? '/');
    handler
      .answer({ method: req.method ?? 'GET', target, ifNoneMatch: req.headers['if-none-match'] }, store)
      .then((reply) => write(req, res, reply))
      .catch((error: unknown) => {
        console.error(error);
        if (res.headersSent) res.destroy();
        else write(req, res, handler.failure(target)).catch(() => res.destroy());
      });
  });
}

/** Starts listening; resolves with the URL of the address it really listens on (`http://127.0.0.1:3000`). */
export async function listen(server: http.Server, host: string, port: number): Promise<string> {
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => done());
  });
  const { address, family, port: actualPort } = server.address() as AddressInfo;
  return `http://${family === 'IPv6' ? `[${address}]` : address}:${actualPort}`;
}

/** Serves `root` until SIGINT or SIGTERM, as `npm start` and `npm run serve` do. */
export async function serveUntilStopped(root: string, host: string, port: number): Promise<void> {
  const server = createApiServer(root);
  const url = await listen(server, host, port);
  // A wildcard address is not one to type: say so, and name the loopback one that works here.
  const wildcard = /^http:\/\/(0\.0\.0\.0|\[::\]):/.exec(url);
  const where = wildcard
    ? `every ${wildcard[1] === '0.0.0.0' ? 'IPv4 ' : ''}address, port ${new URL(url).port} (e.g. http://127.0.0.1:${new URL(url).port})`
    : url;
  console.error(`Serving ${root}/ at ${where}`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => server.close(() => process.exit(0)));
}
