// The local server (`npm run serve`, `npm start`, `npm run dev`): the request handler on node:http, answering
// from a built output folder. serve-handler (the engine of `serve`) sends the list files, and the
// output's own `_headers` supplies the headers, so what is tested here is what is deployed.

import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, type Stats, statSync } from 'node:fs';
import { type FileHandle, open, readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import serveHandler from 'serve-handler';
import { MALFORMED_BODY } from '../contract/bodies.ts';
import { type HeaderRule, parseHeadersFile } from '../contract/headers.ts';
import type { Routed } from '../contract/routes.ts';
import { ENCODINGS, type Encoding, siblingOfFile } from '../shared/compress.ts';
import { UserFacingError } from '../shared/errors.ts';
import { listLeftovers, newestComplete } from '../shared/swap.ts';
import { type RecordsManifest, recordsManifestFile } from '../store/format.ts';
import { chooseEncoding } from './encodings.ts';
import {
  type ApiRequest,
  bodyBytes,
  createHandler,
  type FileStore,
  type Handler,
  logFailure,
  type Reply,
} from './handler.ts';
import { contentRange, readRange } from './ranges.ts';

/** A problem that stops the server from starting, said in one line (no output, a bad `_headers`). */
export class ServeError extends UserFacingError {}

/**
 * Content hashes as ETags, computed once per file version: serve-handler's own ETag is not
 * sent on its 304, and a hash is the same on every machine that serves the same build. A build
 * writes each changed file as a new one (a new inode) and carries an unchanged one over with its
 * inode, time and size (shared/write.ts): a version seen before still has the bytes it was hashed from.
 */
class EtagCache {
  private readonly known = new Map<string, { version: string; etag: string }>();

  etagOf(file: string, stats: Stats, hash: () => Promise<string>): Promise<string> | string {
    const version = `${stats.ino}:${stats.mtimeMs}:${stats.size}`;
    const cached = this.known.get(file);
    if (cached?.version === version) return cached.etag;
    return hash().then((digest) => {
      const etag = `"${digest}"`;
      this.known.set(file, { version, etag });
      return etag;
    });
  }
}

/** The path and query of a request, also in absolute form (`GET http://host/company/`). */
function originForm(url: string): string {
  if (url.startsWith('/')) return url;
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The folder's inode, or undefined when there is no folder at `dir`. */
async function folderId(dir: string): Promise<number | undefined> {
  return stat(dir).then(
    (stats) => (stats.isDirectory() ? stats.ino : undefined),
    () => undefined,
  );
}

/**
 * The folder to answer from, with its inode. It is the output, except while a build swaps a new
 * output in (scripts/shared/swap.ts): between its last two renames the output is missing for an
 * instant, and the complete new folder (`<out>.new-*`) or the previous one (`<out>.old-*`) sits
 * beside it. When neither is there either, it waits briefly for the swap to end.
 */
async function currentRoot(publicDir: string): Promise<{ dir: string; id: number | undefined }> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    const id = await folderId(publicDir);
    if (id !== undefined) return { dir: publicDir, id };
    const complete = newestComplete(await listLeftovers(publicDir));
    if (complete) {
      const siblingId = await folderId(complete.path);
      if (siblingId !== undefined) return { dir: complete.path, id: siblingId };
    }
    await sleep(25);
  }
  return { dir: publicDir, id: undefined };
}

/** A file opened in one version of the output: its bytes stay readable whatever a build renames. */
interface Body {
  file: string;
  handle: FileHandle;
  stats: Stats;
  /** Set when the file is the answer's precompressed sibling, `file` + its extension. */
  encoding?: Encoding;
}

async function readAll(body: Body): Promise<Buffer> {
  // Not zero-filled first: only the bytes read are kept.
  const bytes = Buffer.allocUnsafe(body.stats.size);
  let done = 0;
  while (done < bytes.length) {
    const { bytesRead } = await body.handle.read(bytes, done, bytes.length - done, done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return bytes.subarray(0, done);
}

/** How much of a file its hash reads at a time. */
const HASH_PIECE_BYTES = 1024 * 1024;

/**
 * The SHA-1 of the body's bytes, read a piece at a time: a 43 MB list read whole for its hash
 * would be as much fresh memory again, on the path of the first answer after a change.
 */
async function sha1Of(body: Body): Promise<string> {
  const hash = createHash('sha1');
  const piece = Buffer.allocUnsafe(Math.min(body.stats.size, HASH_PIECE_BYTES));
  for (let position = 0; ; ) {
    const { bytesRead } = await body.handle.read(piece, 0, piece.length, position);
    if (bytesRead === 0) break;
    hash.update(piece.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hash.digest('hex');
}

/** Opens `file` in the current output; null when that output has no such file. */
async function openInOutput(publicDir: string, file: string): Promise<Body | null> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const root = await currentRoot(publicDir);
    try {
      const handle = await open(path.join(root.dir, file), 'r');
      const stats = await handle.stat();
      if (stats.isFile()) return { file, handle, stats };
      await handle.close();
      return null;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return null;
      // Missing from the same folder, still in place: the build has no such file. Otherwise a
      // swap moved the folder meanwhile: look again.
      if (root.id !== undefined && (await folderId(root.dir)) === root.id) return null;
    }
  }
  return null;
}

/** The text of a file of the output; it is closed once read. */
async function readBytes(body: Body): Promise<Buffer> {
  try {
    return await readAll(body);
  } finally {
    await body.handle.close();
  }
}

/**
 * The output folder's files, each opened once so that a swap under way cannot pull it away. With
 * an `encoding`, a file that has a sibling in it (shared/compress.ts) is opened as that sibling,
 * whose hash is its ETag; its text is still the file's own (a list sorted at request time).
 */
function folderStore(
  publicDir: string,
  etags: EtagCache,
  encoding: Encoding | undefined,
  opened: (body: Body) => void,
): FileStore<Body> {
  const extension = ENCODINGS.find((known) => known.encoding === encoding)?.extension;
  return {
    async open(file) {
      // The sibling before the file: a sibling of new bytes is written after its file, so the
      // file opened after it is at least as new, and a sibling of the old bytes is told by its time.
      const sibling = extension === undefined ? null : await openInOutput(publicDir, `${file}${extension}`);
      const own = await openInOutput(publicDir, file);
      const current = sibling !== null && own !== null && siblingOfFile(sibling.stats, own.stats);
      await (current ? own : sibling)?.handle.close();
      const body = current ? { ...sibling, encoding } : own;
      if (body === null) return null;
      opened(body);
      const bytes = async () => {
        if (body.encoding === undefined) return readBytes(body);
        await body.handle.close();
        const reopened = await openInOutput(publicDir, file);
        if (reopened === null) throw new Error(`the build has ${body.file} but no ${file}`);
        return readBytes(reopened);
      };
      return {
        etag: async () => etags.etagOf(path.join(publicDir, body.file), body.stats, () => sha1Of(body)),
        text: async () => (await bytes()).toString('utf8'),
        bytes,
        discard: () => body.handle.close(),
        body,
      };
    },
  };
}

/** Resolves true once the answer's socket takes more, false once it is closed (the client left). */
function drained(res: http.ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (more: boolean) => () => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(more);
    };
    const onDrain = done(true);
    const onClose = done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

/** `headers` with Accept-Encoding added to Vary: the answer was chosen by it. */
function varyingWithEncoding(headers: Record<string, string>): Record<string, string> {
  const name = Object.keys(headers).find((key) => key.toLowerCase() === 'vary');
  if (name === undefined) return { ...headers, Vary: 'Accept-Encoding' };
  return { ...headers, [name]: `${headers[name]}, Accept-Encoding` };
}

/**
 * The handler for the `_headers` of the output being served, read again when a build replaced
 * it (a new inode, time or size). A `_headers` that no longer parses keeps the previous rules.
 */
function headersWatcher(publicDir: string, first: HeaderRule[], resources: readonly Routed[]): () => Promise<Handler> {
  let version = '';
  let handler = createHandler(first, resources);
  return async () => {
    const file = path.join((await currentRoot(publicDir)).dir, '_headers');
    const stats = await stat(file).catch(() => undefined);
    if (!stats) return handler;
    const now = `${stats.ino}:${stats.mtimeMs}:${stats.size}`;
    if (version === '') version = now;
    if (now === version) return handler;
    version = now;
    const parsed = await readFile(file, 'utf8').then(parseHeadersFile, () => undefined);
    if (parsed && parsed.errors.length === 0) handler = createHandler(parsed.rules, resources);
    else console.error(`${file}: not valid any more; the previous headers rules stay in use`);
    return handler;
  };
}

/** The output's `_headers` rules, or a ServeError saying in one line why there are none. */
function readRules(root: string, publicDir: string): HeaderRule[] {
  let text: string;
  try {
    text = readFileSync(path.join(publicDir, '_headers'), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const folder = statSync(publicDir, { throwIfNoEntry: false });
    if (!folder) throw new ServeError(`${root}/ does not exist: build it first with \`npm run build\``);
    if (!folder.isDirectory()) throw new ServeError(`${root} is a file, not a build output folder`);
    if (code === 'ENOENT')
      throw new ServeError(`${root}/ has no _headers file, so it is not a build output: run \`npm run build\``);
    const cause = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (error as Error).message;
    throw new ServeError(`cannot read ${root}/_headers: ${cause}${code ? ` (${code})` : ''}`);
  }
  const { rules, errors } = parseHeadersFile(text);
  if (errors.length > 0) throw new ServeError(`${root}/_headers: ${errors.map((error) => error.message).join('; ')}`);
  return rules;
}

/**
 * serve-handler's own headers that no deployed target sends: a null value removes one. Without
 * this every list would carry `Content-Disposition: inline; filename="ordering=-id.json"`.
 */
const SERVE_HANDLER_EXTRAS = [{ key: 'Content-Disposition', value: null as unknown as string }];

/**
 * The declarations with the filters, search and ordering the output was built with, read from the
 * manifests of its `_records/` where the caller gave none: `npm run serve` reads no settings file.
 */
function withBuiltQueries(publicDir: string, resources: readonly Routed[]): readonly Routed[] {
  let found = false;
  const queried = resources.map((resource) => {
    if (resource.query !== undefined) return resource;
    let text: string;
    try {
      text = readFileSync(path.join(publicDir, recordsManifestFile(resource.name)), 'utf8');
    } catch {
      return resource;
    }
    found = true;
    return { ...resource, query: (JSON.parse(text) as RecordsManifest).query };
  });
  return found ? queried : resources;
}

/** A server of the build output in `root`, of these resources. */
export function createApiServer(root: string, resources: readonly Routed[]): http.Server {
  const api = createApi(root, resources);
  const server = http.createServer(api.listener);
  server.on('clientError', api.refused);
  return server;
}

/** A request's line and header fields, as far as the bytes Node's parser refused hold them. */
interface RefusedHead {
  method: string;
  /** The request-target as sent, raw bytes above 0x7F included (one char per byte). */
  target: string;
  fields: [name: string, value: string][];
}

function readHead(packet: Buffer | undefined): RefusedHead | undefined {
  const head = packet?.toString('latin1') ?? '';
  const line = /^([\x21-\xff]+) ([\x21-\xff]+) HTTP\/1\.[01]\r?\n/.exec(head);
  if (!line) return undefined;
  const end = head.search(/\r?\n\r?\n/);
  const fields = head
    .slice(line[0].length, end === -1 ? undefined : end)
    .split(/\r?\n/)
    .flatMap((text): [string, string][] => {
      const colon = text.indexOf(':');
      return colon > 0 ? [[text.slice(0, colon), text.slice(colon + 1).replace(/^[ \t]+/, '')]] : [];
    });
  return { method: line[1] as string, target: line[2] as string, fields };
}

/**
 * Whether Node's parser would refuse this head as too large (431) had it read the method: it
 * counts the request-target and each field's name and value (without the white space before
 * the value) against its limit. An unknown method is refused before the fields are read, so
 * its head is measured here, that such a request gets the 431 a GET with the same fields gets.
 */
function overLimit(head: RefusedHead): boolean {
  const counted = head.fields.reduce((sum, [name, value]) => sum + name.length + value.length, head.target.length);
  return counted >= http.maxHeaderSize;
}

/**
 * A request Node's HTTP parser refuses (clientError) whose request line is still one the
 * contract covers: a method llhttp does not know (`FOO`, `get`: methods are case-sensitive tokens) or raw bytes above
 * 0x7F in the url, sent as their percent-escapes. Undefined for anything else.
 */
function refusedRequest(code: string | undefined, head: RefusedHead | undefined): ApiRequest | undefined {
  if (code !== 'HPE_INVALID_METHOD' && code !== 'HPE_INVALID_URL') return undefined;
  if (head === undefined || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(head.method) || overLimit(head)) return undefined;
  const url = head.target.replace(/[\x80-\xff]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const field = (name: string) =>
    head.fields.find(([given]) => given.toLowerCase() === name.toLowerCase())?.[1]?.trim();
  return {
    method: head.method,
    url: originForm(url),
    ifNoneMatch: field('If-None-Match'),
    accept: field('Accept'),
  };
}

/**
 * The request listener and the answer to what Node's parser refuses (for its `clientError`
 * event), over one output folder; throws ServeError when `root` is not a build output.
 */
export function createApi(
  root: string,
  resources: readonly Routed[],
): {
  listener: http.RequestListener;
  refused: (error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex) => void;
} {
  const publicDir = path.resolve(root);
  const handlerNow = headersWatcher(publicDir, readRules(root, publicDir), withBuiltQueries(publicDir, resources));
  const etags = new EtagCache();
  const refusedSockets = new WeakSet<Duplex>();

  async function write(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    reply: Reply<Body>,
    fromSibling: boolean,
  ): Promise<void> {
    // A sibling's answer, or the 304 that confirms it, varies with Accept-Encoding too.
    const headers = fromSibling ? varyingWithEncoding(reply.headers) : reply.headers;
    if ('file' in reply) {
      const { handle, stats, file, encoding } = reply.file.body;
      const extension = ENCODINGS.find((known) => known.encoding === encoding)?.extension ?? '';
      const encoded = encoding === undefined ? [] : [{ key: 'Content-Encoding', value: encoding }];
      // serve-handler answers what it cannot read of a Range with 416 and the whole file, and two
      // ranges with the first: the Range is read here, as RFC 9110 14.2 says, and only a valid
      // single range of a GET reaches it.
      const range = readRange(req.method ?? 'GET', req.headers.range, stats.size).kind;
      if (range === 'ignore') delete req.headers.range;
      if (range === 'unsatisfiable') {
        await handle.close();
        const unsatisfiable = { 'Content-Range': contentRange(stats.size), 'Content-Length': '0' };
        res.writeHead(416, {
          ...headers,
          ...Object.fromEntries(encoded.map((h) => [h.key, h.value])),
          ...unsatisfiable,
        });
        res.end();
        return;
      }
      // The handler named the file, so the URL serve-handler sees is never the client's; it
      // sends the file already opened, whichever folder holds it now. The answer's own name,
      // not its sibling's, so that it types the body as the answer.
      req.url = `/${encodeURI(file.slice(0, file.length - extension.length))}`;
      return serveHandler(
        req,
        res,
        {
          public: publicDir,
          cleanUrls: false,
          directoryListing: false,
          symlinks: false,
          headers: [
            {
              source: '**',
              headers: [
                ...Object.entries(headers).map(([key, value]) => ({ key, value })),
                ...encoded,
                ...SERVE_HANDLER_EXTRAS,
              ],
            },
          ],
        },
        {
          lstat: (async () => stats) as never,
          createReadStream: ((_path: string, options: { start?: number; end?: number } = {}) => {
            const stream = createReadStream('', { start: 0, ...options, fd: handle, autoClose: true });
            res.once('close', () => stream.destroy());
            return stream;
          }) as never,
        },
      );
    }
    if (reply.body === null) {
      res.writeHead(reply.status, headers);
      res.end();
      return;
    }
    // On HEAD node sends the headers only, Content-Length included.
    const { body } = reply;
    if (typeof body === 'string' || body instanceof Uint8Array) {
      res.writeHead(reply.status, { ...headers, 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    res.writeHead(reply.status, { ...headers, 'Content-Length': body.length });
    if (req.method !== 'HEAD') {
      // Each chunk is made once the last has gone out (or is queued, while the socket takes them).
      for (const chunk of body.chunks()) {
        if (res.write(chunk)) continue;
        if (!(await drained(res))) return;
      }
    }
    res.end();
  }

  /**
   * Writes a reply on a socket the parser gave up on: the contract's answer when the request
   * line is one it covers, else 400 Malformed request (DRF's ParseError) with the same headers.
   */
  async function refused(error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): Promise<void> {
    // The parser stays in its error and refuses each later packet of the socket again: the
    // first refusal is the one answered.
    if (refusedSockets.has(socket)) return;
    refusedSockets.add(socket);
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const handler = await handlerNow();
    const head = readHead(error.rawPacket);
    const request = refusedRequest(error.code, head);
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW' || (head !== undefined && overLimit(head));
    const reply = request
      ? await handler.answer(
          request,
          folderStore(publicDir, etags, undefined, () => {}),
        )
      : { status: tooLarge ? 431 : 400, headers: handler.failure('/').headers, body: MALFORMED_BODY };
    // The head of a long request may come in several packets, the request line not in the one
    // refused: a refusal of a request whose method is unknown has no body, which frames an
    // answer to HEAD too.
    const body = bodyBytes('file' in reply ? await reply.file.text() : (reply.body ?? ''));
    const bytes = head === undefined || head.method === 'HEAD' || reply.status === 304 ? Buffer.alloc(0) : body;
    const length = head === undefined ? 0 : body.length;
    const lines = [
      `HTTP/1.1 ${reply.status} ${http.STATUS_CODES[reply.status] ?? ''}`,
      ...Object.entries(reply.headers).map(([name, value]) => `${name}: ${value}`),
      ...(reply.status === 304 ? [] : [`Content-Length: ${length}`]),
      'Connection: close',
    ];
    socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bytes]));
  }

  const listener: http.RequestListener = (req, res) => {
    const url = originForm(req.url ?? '/');
    let handler: Handler | undefined;
    // The file the handler opened last: a sibling, when its reply is that file or its 304.
    let lastOpened: Body | undefined;
    const store = folderStore(publicDir, etags, chooseEncoding(req.headers['accept-encoding']), (body) => {
      lastOpened = body;
    });
    handlerNow()
      .then((current) => {
        handler = current;
        return current.answer(
          {
            method: req.method ?? 'GET',
            url,
            ifNoneMatch: req.headers['if-none-match'],
            accept: req.headers.accept,
          },
          store,
        );
      })
      .then((reply) => {
        const fromFile = 'file' in reply || reply.status === 304;
        return write(req, res, reply, fromFile && lastOpened?.encoding !== undefined);
      })
      .catch((error: unknown) => {
        logFailure(`sending the answer to ${req.method} ${url}`, error);
        if (res.headersSent || !handler) res.destroy();
        else write(req, res, handler.failure(url), false).catch(() => res.destroy());
      });
  };
  return {
    listener,
    refused: (error, socket) => {
      refused(error, socket).catch((failure: unknown) => {
        logFailure('answering a request the HTTP parser refused', failure);
        socket.destroy();
      });
    },
  };
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

/** The address of a listening server as the banner names it (`listen()`'s URL). */
export function addressForPeople(url: string): string {
  // A wildcard address is not one to type: say so, and name the loopback one that works here.
  const wildcard = /^http:\/\/(0\.0\.0\.0|\[::\]):/.exec(url);
  if (!wildcard) return url;
  const port = new URL(url).port;
  return `every ${wildcard[1] === '0.0.0.0' ? 'IPv4 ' : ''}address, port ${port} (e.g. http://127.0.0.1:${port})`;
}

/** Ends the process once the server has closed, on SIGINT or SIGTERM. */
export function closeOnSignals(server: http.Server): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => server.close(() => process.exit(0)));
}
