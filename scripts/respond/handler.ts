// The one place that decides how the API answers a request: status, headers and body for the
// 301, the 405, OPTIONS, a multi-field ordering, a list file, an invalid page, the 304 and the
// 500. The route table (contract/routes.ts) says which answer a request gets, and the records
// store (store/select.ts) the body of a list filtered, searched or ordered; this module turns
// that answer into a reply. The local server, the Cloudflare worker and the Netlify functions are
// adapters around it: each only opens the build's files its own way and writes the reply out,
// so the targets cannot drift apart in what they answer.

import {
  fixedBody,
  INVALID_PAGE_BODY,
  methodNotAllowedBody,
  NOT_ACCEPTABLE_BODY,
  SERVER_ERROR_BODY,
} from '../contract/bodies.ts';
import { type HeaderRule, headersFor } from '../contract/headers.ts';
import { encode, type Json } from '../contract/json.ts';
import { acceptable } from '../contract/negotiation.ts';
import { sortRecords } from '../contract/ordering.ts';
import type { ListQuery } from '../contract/query.ts';
import {
  type Answer,
  FORMATS,
  NOT_FOUND_FILE,
  prerenderedFilterFile,
  type Routed,
  resolve,
} from '../contract/routes.ts';
import { debugRequested } from '../shared/debug.ts';
import type { ChunkedBody } from '../store/body.ts';
import { type BuildFiles, requiredText, type StoredFile, select } from '../store/select.ts';

export type ReplyHeaders = Record<string, string>;

/** A body the handler writes: a text, bytes, or bytes in chunks to send one after another. */
export type ReplyBody = string | Uint8Array | ChunkedBody;

/** A body's bytes, for an adapter that sends them at once. */
export function bodyBytes(body: ReplyBody): Uint8Array {
  if (typeof body === 'string') return UTF8.encode(body);
  if (body instanceof Uint8Array) return body;
  const bytes = new Uint8Array(body.length);
  let offset = 0;
  for (const chunk of body.chunks()) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

const UTF8 = new TextEncoder();

/** What a request needs to be answered: method, url (path and query), validator. */
export interface ApiRequest {
  method: string;
  /** The path and query as the client sent them (`/event/?ordering=-id`). */
  url: string;
  ifNoneMatch?: string | null;
  /** The Accept header, absent when the client sent none. */
  accept?: string | null;
}

/** A file of the build, opened by an adapter. `Body` is the adapter's handle for sending it. */
export interface OpenedFile<Body> extends StoredFile {
  /** The file's entity tag (quoted), or null when the adapter's store gives none. */
  etag(): Promise<string | null>;
  /** The Content-Type the store would send, used when `_headers` sets none. */
  contentType?: string | null;
  /** Its length in bytes, where the store knows it without reading it: what a Range is read against. */
  size?: number;
  /** Frees a body that is not going to be sent (a 304). */
  discard?(): Promise<void>;
  body: Body;
}

/** How an adapter reaches the build's files. */
export interface FileStore<Body> extends BuildFiles {
  /** BuildFiles' open(), the file opened for sending. */
  open(file: string): Promise<OpenedFile<Body> | null>;
}

/**
 * The reply to write. `body` is the whole GET body: on HEAD the adapter sends the same status and
 * headers and leaves the body out, each as its transport frames it. `file` replies are sent from
 * the store (the adapter's file server or asset binding streams them), always with status 200.
 */
export type Reply<Body> =
  | { status: number; headers: ReplyHeaders; body: ReplyBody }
  | { status: 200; headers: ReplyHeaders; file: OpenedFile<Body> }
  | { status: 304; headers: ReplyHeaders; body: null };

/** If-None-Match (RFC 9110 13.1.2): `*` or a list of entity tags, compared weakly. */
export function notModified(ifNoneMatch: string | null | undefined, etag: string | null): boolean {
  if (ifNoneMatch == null || etag === null) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}

function hasHeader(headers: ReplyHeaders, name: string): boolean {
  const lower = name.toLowerCase();
  return Object.keys(headers).some((key) => key.toLowerCase() === lower);
}

/** Every body this API writes itself is JSON; `_headers` may say otherwise (or add a charset). */
function withContentType(
  headers: ReplyHeaders,
  contentType: string | null | undefined = 'application/json',
): ReplyHeaders {
  return hasHeader(headers, 'Content-Type') || contentType == null
    ? headers
    : { ...headers, 'Content-Type': contentType };
}

/** `headers` with `contentType` in place of theirs: `_headers` types every answer as JSON, a page is not. */
function withType(headers: ReplyHeaders, contentType: string): ReplyHeaders {
  const others = Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-type');
  return { ...Object.fromEntries(others), 'Content-Type': contentType };
}

/**
 * DRF negotiates once the URL has matched a list, before the method and the page are looked at:
 * a request no renderer can answer gets 406, unless a known `format` chose the renderer.
 */
function notAcceptable(request: ApiRequest, answer: Answer): boolean {
  if (answer.kind === 'redirect' || acceptable(request.accept)) return false;
  if (answer.kind === 'file' && (answer.file === NOT_FOUND_FILE || answer.contentType !== undefined)) return false;
  const format = new URLSearchParams(request.url.split('?')[1] ?? '').getAll('format').at(-1) ?? '';
  return !(FORMATS as readonly string[]).includes(format);
}

export interface Handler {
  /** The reply to a request; never throws (a failure is the 500 reply, and is logged). */
  answer<Body>(request: ApiRequest, store: FileStore<Body>): Promise<Reply<Body>>;
  /** The 500 reply, for an adapter whose writing fails before anything was sent. */
  failure(url: string): Reply<never>;
}

/**
 * One line for an answer that failed (a bug, or a build output missing a file); the stack only
 * with DEBUG=1, where the runtime has an environment (Node; not a Cloudflare worker).
 */
export function logFailure(what: string, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`internal error ${what}: ${message.split('\n')[0]} (please report it)`);
  if (debugRequested() && error instanceof Error) console.error(error.stack);
}

/** The handler of an API with these `_headers` rules and these resources. */
export function createHandler(rules: readonly HeaderRule[], resources: readonly Routed[]): Handler {
  // An asterisk-form url (`OPTIONS *`) names no path: it gets the headers of the root.
  const headersOf = (url: string): ReplyHeaders =>
    headersFor(rules, url.startsWith('/') ? (url.split('?')[0] as string) : '/');

  const failure = (url: string): Reply<never> => ({
    status: 500,
    headers: withContentType(headersOf(url)),
    body: SERVER_ERROR_BODY,
  });

  const byName = new Map(resources.map((resource) => [resource.name, resource]));

  /** A file of the build, with its validator: 304 to a matching If-None-Match. */
  async function sendFile<Body>(
    request: ApiRequest,
    file: OpenedFile<Body>,
    headers: ReplyHeaders,
  ): Promise<Reply<Body>> {
    const etag = await file.etag();
    const fileHeaders = withContentType(etag === null ? headers : { ...headers, ETag: etag }, file.contentType);
    if (notModified(request.ifNoneMatch, etag)) {
      await file.discard?.();
      return { status: 304, headers: fileHeaders, body: null };
    }
    return { status: 200, headers: fileHeaders, file };
  }

  /**
   * A list filtered, searched or ordered: django-filter's 400; a filter of `prerendered_filters`
   * from the file the build wrote for it, read as it is (no column decoded: the request the edge
   * answers most cheaply); else its records from the store, or Invalid page.
   */
  async function queried<Body>(
    request: ApiRequest,
    store: FileStore<Body>,
    query: ListQuery,
    headers: ReplyHeaders,
  ): Promise<Reply<Body>> {
    if (query.errors !== null) return { status: 400, headers: withContentType(headers), body: encode(query.errors) };
    const resource = byName.get(query.resource) as Routed;
    const prerendered = prerenderedFilterFile(resource, query);
    // A value no record holds has no file: the store answers it (an empty list).
    const file = prerendered === undefined ? null : await store.open(prerendered);
    if (file !== null) return sendFile(request, file, headers);
    const body = await select(store, resource, query);
    if (body === null) return { status: 404, headers: withContentType(headers), body: INVALID_PAGE_BODY };
    return { status: 200, headers: withContentType(headers), body };
  }

  async function reply<Body>(
    request: ApiRequest,
    store: FileStore<Body>,
    answer: Answer,
    headers: ReplyHeaders,
  ): Promise<Reply<Body>> {
    switch (answer.kind) {
      case 'redirect':
        // An empty body rather than none, so that the 301 carries Content-Length: 0 everywhere.
        return { status: 301, headers: { ...withContentType(headers), Location: answer.location }, body: '' };
      case 'not-allowed':
        return { status: 405, headers: withContentType(headers), body: methodNotAllowedBody(answer.method) };
      case 'sorted': {
        // Too many multi-field orderings to pre-render each: sort the default list's records.
        const records = JSON.parse(await requiredText(store, answer.file)) as Array<Json & { id: number }>;
        return { status: 200, headers: withContentType(headers), body: encode(sortRecords(records, answer.terms)) };
      }
      case 'query':
        return queried(request, store, answer.query, headers);
      case 'file': {
        // Error and OPTIONS bodies are the contract's own: whole answers, without a validator
        // (DRF sends none), so never a 304, and no store needs them as files.
        const fixed = fixedBody(answer.file, resources);
        if (fixed !== undefined) return { status: answer.status, headers: withContentType(headers), body: fixed };
        if (answer.status !== 200) throw new Error(`${answer.file} is not a body of the contract`);
        const file = await store.open(answer.file);
        if (file === null) {
          // A page beyond the last has no file: the route table's fallback (Invalid page).
          if (answer.ifMissing) return reply(request, store, answer.ifMissing, headers);
          throw new Error(`the build has no ${answer.file}`);
        }
        return sendFile(
          request,
          file,
          answer.contentType === undefined ? headers : withType(headers, answer.contentType),
        );
      }
    }
  }

  return {
    async answer(request, store) {
      try {
        const answer = resolve(request.method, request.url, resources);
        const headers = headersOf(request.url);
        if (notAcceptable(request, answer))
          return { status: 406, headers: withContentType(headers), body: NOT_ACCEPTABLE_BODY };
        return await reply(request, store, answer, headers);
      } catch (error) {
        logFailure(`answering ${request.method} ${request.url}`, error);
        return failure(request.url);
      }
    },
    failure,
  };
}
