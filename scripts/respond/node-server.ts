// The local server (`npm run serve`, `npm start`, `npm run dev`): the request handler on node:http, answering
// from a built output folder. It sends the files itself, a Range read as ranges.ts reads it, and the
// output's own `_headers` supplies the headers, so what is tested here is what is deployed.

import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, type Stats, statSync } from 'node:fs';
import { type FileHandle, open, readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { type HeaderRule, parseHeadersFile } from '../contract/headers.ts';
import type { Routed } from '../contract/routes.ts';
import { ENCODINGS, type Encoding, siblingOfFile } from '../shared/compress.ts';
import { UserFacingError } from '../shared/errors.ts';
import { completeBeside } from '../shared/swap.ts';
import { type RecordsManifest, recordsManifestFile } from '../store/format.ts';
import { chooseEncoding } from './encodings.ts';
import { createHandler, type FileStore, type Handler, logFailure, type Reply, type ReplyHeaders } from './handler.ts';
import { contentRange, readRange } from './ranges.ts';
import { originForm, type ParserError, refusalAnswerer } from './refused-requests.ts';

/** A problem that stops the server from starting, said in one line (no output, a bad `_headers`). */
export class ServeError extends UserFacingError {}

/**
 * Content hashes as ETags, computed once per file version: a hash is the same on every machine
 * that serves the same build. A build
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
 * output in (shared/swap.ts), where the output may be missing for an instant with a complete one
 * beside it. When there is none either, it waits briefly for the swap to end.
 */
async function currentRoot(publicDir: string): Promise<{ dir: string; id: number | undefined }> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    const id = await folderId(publicDir);
    if (id !== undefined) return { dir: publicDir, id };
    const complete = await completeBeside(publicDir);
    if (complete) {
      const siblingId = await folderId(complete);
      if (siblingId !== undefined) return { dir: complete, id: siblingId };
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

/**
 * Sends a file of the output: whole, or the one range the request asks (ranges.ts), with what a
 * static file server adds (its length and time, that it takes ranges).
 */
async function sendFile(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  headers: ReplyHeaders,
  { handle, stats, encoding }: Body,
): Promise<void> {
  const encoded = encoding === undefined ? {} : { 'Content-Encoding': encoding };
  const range = readRange(req.method ?? 'GET', req.headers.range, stats.size);
  if (range.kind === 'unsatisfiable') {
    await handle.close();
    res.writeHead(416, { ...headers, ...encoded, 'Content-Range': contentRange(stats.size), 'Content-Length': '0' });
    res.end();
    return;
  }
  const sent = range.kind === 'send' ? range : { first: 0, last: stats.size - 1 };
  res.writeHead(range.kind === 'send' ? 206 : 200, {
    'Content-Length': sent.last - sent.first + 1,
    'Accept-Ranges': 'bytes',
    'Last-Modified': stats.mtime.toUTCString(),
    ...headers,
    ...encoded,
    ...(range.kind === 'send' ? { 'Content-Range': contentRange(stats.size, range) } : {}),
  });
  if (req.method === 'HEAD' || sent.last < sent.first) {
    await handle.close();
    res.end();
    return;
  }
  const stream = createReadStream('', { fd: handle, start: sent.first, end: sent.last, autoClose: true });
  stream.once('error', () => res.destroy());
  res.once('close', () => stream.destroy());
  stream.pipe(res);
}

/** A server of the build output in `root`, of these resources. */
export function createApiServer(root: string, resources: readonly Routed[]): http.Server {
  const api = createApi(root, resources);
  const server = http.createServer(api.listener);
  server.on('clientError', api.refused);
  return server;
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
  refused: (error: ParserError, socket: Duplex) => void;
} {
  const publicDir = path.resolve(root);
  const handlerNow = headersWatcher(publicDir, readRules(root, publicDir), withBuiltQueries(publicDir, resources));
  const etags = new EtagCache();

  async function write(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    reply: Reply<Body>,
    fromSibling: boolean,
  ): Promise<void> {
    // A sibling's answer, or the 304 that confirms it, varies with Accept-Encoding too.
    const headers = fromSibling ? varyingWithEncoding(reply.headers) : reply.headers;
    if ('file' in reply) return sendFile(req, res, headers, reply.file.body);
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
    refused: refusalAnswerer(
      handlerNow,
      folderStore(publicDir, etags, undefined, () => {}),
    ),
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
