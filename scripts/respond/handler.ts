// The one place that decides how the API answers a request: status, headers and body for the
// 301, the 405, OPTIONS, a multi-field ordering, a list file, an invalid page, the 304 and the
// 500. The route table (contract/routes.ts) says which answer a request gets; this module turns
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
import {
  answerPage,
  type ColumnChunk,
  type ListQuery,
  partStarts,
  queryColumns,
  type RecordsManifest,
  recordStarts,
  recordsColumnFile,
  recordsManifestFile,
  recordsPartFile,
  selectedPositions,
} from '../contract/query.ts';
import { type Answer, FORMATS, NOT_FOUND_FILE, type Routed, resolve } from '../contract/routes.ts';
import { debugRequested } from '../shared/debug.ts';
import { mapLimited } from '../shared/map-limited.ts';

export type ReplyHeaders = Record<string, string>;

/**
 * Bytes made in chunks as they are sent, and their length: an answer made of a list's records,
 * which is never held whole beside them. `chunks()` makes them anew at each call.
 */
export interface ChunkedBody {
  length: number;
  chunks(): Iterable<Uint8Array>;
}

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
export interface OpenedFile<Body> {
  /** The file's entity tag (quoted), or null when the adapter's store gives none. */
  etag(): Promise<string | null>;
  /** The Content-Type the store would send, used when `_headers` sets none. */
  contentType?: string | null;
  text(): Promise<string>;
  /** Its bytes, where the store reads them without decoding them (else text()'s, encoded). */
  bytes?(): Promise<Uint8Array>;
  /** Its length in bytes, where the store knows it without reading it: what a Range is read against. */
  size?: number;
  /** Frees a body that is not going to be sent (a 304). */
  discard?(): Promise<void>;
  body: Body;
}

/** How an adapter reaches the build's files. */
export interface FileStore<Body> {
  /** The file at this path of the build output, or null when the build has none. */
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

/**
 * The records of an answer, in its order, where their bytes are held: record `at` is
 * `held[part[at]]` from `from[at]` to before `to[at]`. Only the parts that hold one are read; a
 * part most of whose records the answer shows is kept as read, and of any other only those
 * records are kept, copied out, so what is held is never more than twice the answer.
 */
interface HeldRecords {
  held: Uint8Array[];
  part: Int32Array;
  from: Int32Array;
  to: Int32Array;
}

async function heldRecords<Body>(
  store: FileStore<Body>,
  resource: string,
  partRecords: readonly number[],
  wanted: Int32Array,
): Promise<HeldRecords> {
  const starts = partStarts(partRecords);
  const part = new Int32Array(wanted.length);
  // How many of the answer's records each part holds, then the answer's records grouped by part
  // (a counting sort, each part's in the answer's order).
  const firstOf = new Int32Array(partRecords.length + 1);
  for (let at = 0; at < wanted.length; at++) {
    const position = wanted[at] as number;
    // The last part that starts at or before the position (binary search).
    let low = 0;
    let high = partRecords.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] as number) <= position) low = middle;
      else high = middle - 1;
    }
    part[at] = low;
    firstOf[low + 1] = (firstOf[low + 1] as number) + 1;
  }
  for (let index = 0; index < partRecords.length; index++)
    firstOf[index + 1] = (firstOf[index + 1] as number) + (firstOf[index] as number);
  const grouped = new Int32Array(wanted.length);
  const next = firstOf.slice(0, partRecords.length);
  for (let at = 0; at < wanted.length; at++) {
    const index = part[at] as number;
    const slot = next[index] as number;
    grouped[slot] = at;
    next[index] = slot + 1;
  }
  const held = new Array<Uint8Array>(partRecords.length);
  const from = new Int32Array(wanted.length);
  const to = new Int32Array(wanted.length);
  const needed = partRecords.flatMap((_, index) => (firstOf[index] === firstOf[index + 1] ? [] : [index]));
  await mapLimited(needed, READS_AT_ONCE, async (index) => {
    const first = firstOf[index] as number;
    const end = firstOf[index + 1] as number;
    const read = await bytesOf(store, recordsPartFile(resource, index + 1));
    // Scanned as the store gives it: a Node Buffer finds a byte natively, several times faster.
    const recordAt = recordStarts(read);
    const bytes = new Uint8Array(read.buffer, read.byteOffset, read.byteLength);
    const base = starts[index] as number;
    // Record `i` of the part is from recordAt[i] to before its `,` or `]` and line feed.
    for (let group = first; group < end; group++) {
      const at = grouped[group] as number;
      const record = (wanted[at] as number) - base;
      from[at] = recordAt[record] as number;
      to[at] = (recordAt[record + 1] as number) - 2;
    }
    if ((end - first) * 2 >= (partRecords[index] as number)) {
      held[index] = bytes;
      return;
    }
    let size = 0;
    for (let group = first; group < end; group++) {
      const at = grouped[group] as number;
      size += (to[at] as number) - (from[at] as number);
    }
    const kept = new Uint8Array(size);
    let offset = 0;
    for (let group = first; group < end; group++) {
      const at = grouped[group] as number;
      const length = (to[at] as number) - (from[at] as number);
      kept.set(bytes.subarray(from[at], to[at]), offset);
      from[at] = offset;
      offset += length;
      to[at] = offset;
    }
    held[index] = kept;
  });
  return { held, part, from, to };
}

/**
 * How many of a list's files an answer reads at once: a store that fetches each (the worker's
 * asset binding) waits for one at a time otherwise; a worker may hold six connections open.
 */
const READS_AT_ONCE = 4;

/** The size of the blocks an answer made of records is sent in. */
const BLOCK_BYTES = 256 * 1024;

/**
 * `before`, the records joined by commas, `after`, made in blocks as they are sent: the answer is
 * never held whole besides its records, and a block is a few hundred records' bytes, not one
 * object per record.
 */
function answerBody(before: Uint8Array, records: HeldRecords, after: Uint8Array): ChunkedBody {
  const { held, part, from, to } = records;
  let length = before.length + after.length + Math.max(0, part.length - 1);
  for (let at = 0; at < part.length; at++) length += (to[at] as number) - (from[at] as number);
  function* chunks(): Generator<Uint8Array> {
    const count = part.length;
    let made = 0;
    let block = new Uint8Array(0);
    let offset = 0;
    const full = () => {
      made += offset;
      return block.subarray(0, offset);
    };
    for (let at = -1; at <= count; at++) {
      const piece =
        at === -1
          ? before
          : at === count
            ? after
            : (held[part[at] as number] as Uint8Array).subarray(from[at] as number, to[at] as number);
      const comma = at > 0 && at < count ? 1 : 0;
      if (offset + comma + piece.length > block.length) {
        if (offset > 0) yield full();
        block = new Uint8Array(Math.min(BLOCK_BYTES, length - made));
        offset = 0;
      }
      if (comma) block[offset++] = 44; // ,
      if (offset + piece.length > block.length) {
        // A record longer than a block is sent as it is held.
        if (offset > 0) yield full();
        made += piece.length;
        yield piece;
        block = new Uint8Array(0);
        offset = 0;
        continue;
      }
      block.set(piece, offset);
      offset += piece.length;
    }
    if (offset > 0) yield full();
  }
  return { length, chunks };
}

/** The bytes of a file the build must hold. */
async function bytesOf<Body>(store: FileStore<Body>, file: string): Promise<Uint8Array> {
  const opened = await store.open(file);
  if (opened === null) throw new Error(`the build has no ${file}`);
  return opened.bytes ? opened.bytes() : UTF8.encode(await opened.text());
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

  /** The text of a file the build must hold: its absence is a bug of the build, a 500. */
  async function textOf<Body>(store: FileStore<Body>, file: string): Promise<string> {
    const opened = await store.open(file);
    if (opened === null) throw new Error(`the build has no ${file}`);
    return opened.text();
  }

  /**
   * A list filtered, searched or ordered: the records selected and ordered from the columns the
   * query needs, then only the parts that hold a record of the answer read, each kept only for
   * its records' texts; no record is parsed, so a large list is never held as objects.
   */
  async function queried<Body>(store: FileStore<Body>, query: ListQuery, headers: ReplyHeaders): Promise<Reply<Body>> {
    if (query.errors !== null) return { status: 400, headers: withContentType(headers), body: encode(query.errors) };
    const resource = byName.get(query.resource) as Routed;
    const manifest = JSON.parse(await textOf(store, recordsManifestFile(resource.name))) as RecordsManifest;
    const settings = resource.query ?? manifest.query;
    const wantedColumns = queryColumns(query, settings);
    const chunksOf = wantedColumns.flatMap((column) =>
      (manifest.columns[column] ?? []).map((lines, index) => ({ column, index, lines })),
    );
    const texts = await mapLimited(chunksOf, READS_AT_ONCE, ({ column, index }) =>
      textOf(store, recordsColumnFile(resource.name, column, index + 1)),
    );
    // Every column, a list without records' included (no chunk).
    const columns = new Map(wantedColumns.map((column) => [column, [] as ColumnChunk[]]));
    for (const [at, { column, lines }] of chunksOf.entries())
      columns.get(column)?.push({ text: texts[at] as string, lines });
    const positions = selectedPositions(query, settings, manifest.count, columns);
    columns.clear();
    const page = answerPage(query, positions.length, resource, manifest);
    if (page === null) return { status: 404, headers: withContentType(headers), body: INVALID_PAGE_BODY };
    const wanted = positions.subarray(page.start, page.end);
    const records = await heldRecords(store, resource.name, manifest.partRecords, wanted);
    return {
      status: 200,
      headers: withContentType(headers),
      body: answerBody(UTF8.encode(page.before), records, UTF8.encode(page.after)),
    };
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
        const records = JSON.parse(await textOf(store, answer.file)) as Array<Json & { id: number }>;
        return { status: 200, headers: withContentType(headers), body: encode(sortRecords(records, answer.terms)) };
      }
      case 'query':
        return queried(store, answer.query, headers);
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
        const etag = await file.etag();
        const ownHeaders = answer.contentType === undefined ? headers : withType(headers, answer.contentType);
        const fileHeaders = withContentType(
          etag === null ? ownHeaders : { ...ownHeaders, ETag: etag },
          file.contentType,
        );
        if (notModified(request.ifNoneMatch, etag)) {
          await file.discard?.();
          return { status: 304, headers: fileHeaders, body: null };
        }
        return { status: 200, headers: fileHeaders, file };
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
