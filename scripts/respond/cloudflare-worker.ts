// The Cloudflare worker (Workers with static assets, and Pages `_worker.js`): the request handler
// on the fetch API, reading the build's files through the ASSETS binding. It uses nothing but the
// fetch API, so it is bundled as it is, with the `_headers` rules built in, and the Netlify
// functions run it too, with a stand-in binding (netlify-function.ts).

import type { HeaderRule } from '../contract/headers.ts';
import type { Routed } from '../contract/routes.ts';
import { manifestFile, type PartsManifest, parseManifest, partFile } from './cloudflare-parts.ts';
import {
  createHandler,
  type FileStore,
  logFailure,
  type OpenedFile,
  type Reply,
  type ReplyBody,
  type ReplyHeaders,
} from './handler.ts';
import { askedRange, contentRange, readRange } from './ranges.ts';

/** Cloudflare's static assets binding (a Fetcher): the one binding the worker needs. */
export interface Assets {
  fetch(input: Request | URL | string, init?: RequestInit): Promise<Response>;
}

export interface Env {
  ASSETS: Assets;
}

export interface Worker {
  fetch(request: Request, env: Env): Promise<Response>;
}

/**
 * The files, as the asset binding serves them. Of an asset's own headers only the validator and
 * the Content-Type are used: the asset server's others (Cache-Control, CF-Cache-Status, Pages'
 * CORS header) would make the targets differ. Always a GET: the asset server answers other
 * methods with an empty 405, and revalidation is the handler's (Pages' 304 has no ETag).
 */
/** The longest file name ext4, APFS and NTFS hold. */
const MAX_NAME = 255;

function assetStore(assets: Assets, origin: string): FileStore<Response> {
  return {
    async open(file) {
      // No build holds a name longer than a file system allows (a page number of hundreds of
      // digits), and Pages' asset server fails on one instead of answering 404.
      if (file.split('/').some((segment) => segment.length > MAX_NAME)) return null;
      const asset = await assets.fetch(new URL(`/${file}`, origin));
      if (asset.status === 404) {
        await asset.body?.cancel();
        return openParts(assets, origin, file);
      }
      if (asset.status !== 200) throw new Error(`asset /${file} answered ${asset.status}`);
      return {
        etag: async () => asset.headers.get('ETag'),
        contentType: asset.headers.get('Content-Type') ?? 'application/json',
        text: () => asset.text(),
        bytes: async () => new Uint8Array(await asset.arrayBuffer()),
        discard: async () => asset.body?.cancel(),
        body: asset,
      };
    },
  };
}

/** Workers' stream of a known length: its answer carries Content-Length, as an asset's does. */
declare const FixedLengthStream: (new (length: number) => TransformStream<Uint8Array, Uint8Array>) | undefined;

async function fetchPart(assets: Assets, origin: string, file: string, bytes: number): Promise<ReadableStream> {
  const asset = await assets.fetch(new URL(`/${file}`, origin));
  if (asset.status !== 200 || asset.body === null) {
    await asset.body?.cancel();
    throw new Error(`asset /${file} answered ${asset.status}`);
  }
  const length = asset.headers.get('Content-Length');
  if (length !== null && Number(length) !== bytes) {
    await asset.body.cancel();
    throw new Error(`${file} has ${length} bytes, not the manifest's ${bytes}`);
  }
  return asset.body;
}

/**
 * The parts one after another into one stream: each part's body is piped in whole before the
 * next is fetched, and a pipe writes only as the client reads (backpressure), so the worker holds
 * a chunk or two, never a part, whatever the file's size (Workers allow 128 MB). Under workerd
 * the pipes are the runtime's own, no chunk passing through JavaScript; FixedLengthStream frames
 * the answer with the whole Content-Length and fails it if the parts do not add up to it.
 * A failure cuts the answer short: a client never gets wrong bytes as a whole answer.
 */
function joinParts(assets: Assets, origin: string, file: string, manifest: PartsManifest): ReadableStream {
  const { readable, writable } =
    typeof FixedLengthStream === 'function' ? new FixedLengthStream(manifest.bytes) : new TransformStream();
  const pipeAll = async () => {
    for (const [index, bytes] of manifest.parts.entries()) {
      const part = await fetchPart(assets, origin, partFile(file, index + 1), bytes);
      await part.pipeTo(writable, { preventClose: true });
    }
    await writable.close();
  };
  pipeAll().catch(async (error: unknown) => {
    logFailure(`sending ${file} from its parts`, error);
    await writable.abort(error).catch(() => {});
  });
  return readable;
}

/**
 * A file too large for static assets, from its manifest and parts (cloudflare-parts.ts), or null when
 * the build has no such file either. Its entity tag is the whole file's sha256, written by the
 * build: the same for every request, with no part read. The manifest has the file's extension, so
 * the asset server gives it the Content-Type it would give the file.
 */
async function openParts(assets: Assets, origin: string, file: string): Promise<OpenedFile<Response> | null> {
  const asset = await assets.fetch(new URL(`/${manifestFile(file)}`, origin));
  if (asset.status === 404) {
    await asset.body?.cancel();
    return null;
  }
  if (asset.status !== 200) throw new Error(`asset /${manifestFile(file)} answered ${asset.status}`);
  const manifest = parseManifest(await asset.text());
  let response: Response | null = null;
  return {
    etag: async () => `"${manifest.sha256}"`,
    size: manifest.bytes,
    contentType: asset.headers.get('Content-Type') ?? 'application/json',
    text: () => new Response(joinParts(assets, origin, file, manifest)).text(),
    discard: async () => response?.body?.cancel(),
    // Made when it is sent: a 304 or a HEAD never fetches a part.
    get body() {
      response ??= new Response(joinParts(assets, origin, file, manifest));
      return response;
    },
  };
}

/** A body in chunks as a stream that makes each as it is read; a text or bytes as they are. */
function streamOf(body: ReplyBody | null): string | Uint8Array | ReadableStream<Uint8Array> | null {
  if (body === null || typeof body === 'string' || body instanceof Uint8Array) return body;
  const chunks = body.chunks()[Symbol.iterator]();
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
}

/**
 * Bytes `first` to `last` of a stream, as they pass: the bytes before are dropped, and the
 * stream is cancelled once the last is sent (a file's later parts are never fetched). Framed
 * with its Content-Length where the runtime can.
 */
function sliceOf(body: ReadableStream<Uint8Array>, first: number, last: number): ReadableStream<Uint8Array> {
  let at = 0;
  const sliced = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const start = Math.max(first - at, 0);
        const end = Math.min(last + 1 - at, chunk.length);
        at += chunk.length;
        if (start < end) controller.enqueue(chunk.subarray(start, end));
        if (at > last) controller.terminate();
      },
    }),
  );
  return typeof FixedLengthStream === 'function' ? sliced.pipeThrough(new FixedLengthStream(last - first + 1)) : sliced;
}

/**
 * A file's answer to the request's Range (docs/contract.md, section 2): 206 with the slice, 416,
 * or undefined for the whole file. The asset server sends no length and no range of its own: an
 * asset (at most 25 MiB) is read whole for a range, a file kept in parts is sliced as its parts
 * pass, against the length its manifest gives.
 */
async function rangeAnswer(
  request: Request,
  file: OpenedFile<Response>,
  headers: ReplyHeaders,
): Promise<Response | undefined> {
  const header = request.headers.get('Range');
  if (askedRange(request.method, header).kind !== 'asked') return undefined;
  const bytes = file.size === undefined ? await file.bytes?.() : undefined;
  const size = file.size ?? bytes?.length;
  if (size === undefined) return undefined;
  const range = readRange(request.method, header, size);
  if (range.kind === 'unsatisfiable') {
    if (bytes === undefined) await file.discard?.();
    return new Response(null, { status: 416, headers: { ...headers, 'Content-Range': contentRange(size) } });
  }
  const stream = bytes === undefined ? file.body.body : null;
  if (range.kind !== 'send' || (bytes === undefined && stream === null)) return undefined;
  const body = stream ? sliceOf(stream, range.first, range.last) : bytes?.subarray(range.first, range.last + 1);
  return new Response(body, { status: 206, headers: { ...headers, 'Content-Range': contentRange(size, range) } });
}

/**
 * HEAD is GET without the body. No Content-Length is set by hand: Cloudflare's edge gzips JSON
 * for clients that accept it, and GET then goes out chunked without one, so a hand-set length
 * would announce a size GET never sends (RFC 9110 8.6). workerd frames the answer.
 */
async function toResponse(request: Request, reply: Reply<Response>): Promise<Response> {
  const init = { status: reply.status, headers: reply.headers };
  if ('file' in reply) {
    const ranged = await rangeAnswer(request, reply.file, reply.headers);
    if (ranged !== undefined) return ranged;
  }
  if (request.method !== 'HEAD')
    return new Response('file' in reply ? reply.file.body.body : streamOf(reply.body), init);
  if ('file' in reply) await reply.file.discard?.();
  return new Response(null, init);
}

/** The worker of an API with these `_headers` rules and these resources. */
export function createWorker(rules: readonly HeaderRule[], resources: readonly Routed[]): Worker {
  const handler = createHandler(rules, resources);
  return {
    async fetch(request, env) {
      const { origin } = new URL(request.url);
      // The path as the runtime hands it over, not parsed again: URL parsing resolves dot segments
      // (`/company/./` would be `/company/`), where the contract answers 404. (workerd itself
      // resolves them before the worker runs; a runtime that does not leaves them to the handler.)
      const url = request.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').replace(/#.*/, '') || '/';
      const reply = await handler.answer(
        {
          method: request.method,
          url,
          ifNoneMatch: request.headers.get('If-None-Match'),
          accept: request.headers.get('Accept'),
        },
        assetStore(env.ASSETS, origin),
      );
      try {
        return await toResponse(request, reply);
      } catch (error) {
        logFailure(`sending the answer to ${request.method} ${url}`, error);
        return toResponse(request, handler.failure(url));
      }
    },
  };
}
