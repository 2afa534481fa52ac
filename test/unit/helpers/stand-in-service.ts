// A stand-in for a running DRF service, on node:http and 127.0.0.1 only: the four lists with
// DRF's bytes and headers, the texture list paginated as PageNumberPagination paginates it (any
// page size), an optional path prefix, and faults to inject: error statuses, answers that never
// come, closed connections, other bytes, edited bodies. It is for what a real service cannot be
// made to do on cue; drf-service.test.ts runs the import against a real one, Django and DRF under
// gunicorn. Each test closes the one it starts.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encode, Float, type Json } from '../../../scripts/contract/json.ts';

/** The records each list shows, in the order the service answers them, as the API shows them. */
export interface ServiceLists {
  companies: unknown[];
  fairs: unknown[];
  events: unknown[];
  textures: unknown[];
}

/** What one request gets instead of its answer. */
export type Fault =
  /** This status, with DRF's error body unless one is given, and these headers besides DRF's. */
  | { status: number; body?: string; headers?: Record<string, string> }
  /** A 200 with these bytes (a malformed page, a proxy's HTML). */
  | { body: string; contentType?: string }
  /** The connection stays open and nothing is answered, until the service is closed. */
  | 'hang'
  /** The connection is closed without an answer. */
  | 'reset';

export interface StandInOptions {
  /** The path the API is served under, with slashes at both ends: `/api/v1/`. Default `/`. */
  prefix?: string;
  /** DRF's PAGE_SIZE for the texture list. Default 10. */
  pageSize?: number;
  /** Where the page links point (DRF builds them from the Host header): default the service's own base URL. */
  linkBase?: string;
  /**
   * Faults by request target, relative to the prefix (`virtualbooth-texture/?page=2`): the n-th
   * request of that target gets the n-th fault, later ones the real answer.
   */
  faults?: Record<string, Fault[]>;
  /** Changes an answer's JSON before it is encoded: a wrong count, a foreign link. */
  edit?: (target: string, body: unknown) => unknown;
}

export interface StandInService {
  /** The base URL, with the prefix and a trailing slash: what `--from` takes. */
  url: string;
  origin: string;
  /** Every request target received (relative to the prefix, or the whole path when outside it), in order. */
  requests: string[];
  /** The bytes of the answer to `target` as the service sends it without faults. */
  answer(target: string): Buffer;
  close(): Promise<void>;
}

// What Django and DRF put on every answer of a list (docs/contract.md, section 2).
const HEADERS = {
  'Content-Type': 'application/json',
  Vary: 'Accept',
  Allow: 'GET, HEAD, OPTIONS',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/** DRF's JSONRenderer: compact UTF-8, and a FloatField written as Python writes a float. */
function drfJson(value: unknown): Buffer {
  const withFloats = (item: unknown, key?: string): Json => {
    if (key === 'translation_factor_7' && typeof item === 'number') return new Float(item);
    if (Array.isArray(item)) return item.map((element) => withFloats(element));
    if (item !== null && typeof item === 'object') {
      return Object.fromEntries(Object.entries(item).map(([name, field]) => [name, withFloats(field, name)]));
    }
    return item as Json;
  };
  return Buffer.from(encode(withFloats(value)));
}

export async function startStandInService(lists: ServiceLists, options: StandInOptions = {}): Promise<StandInService> {
  const prefix = options.prefix ?? '/';
  const pageSize = options.pageSize ?? 10;
  const faults = new Map(Object.entries(options.faults ?? {}).map(([target, list]) => [target, [...list]]));
  const requests: string[] = [];
  let linkBase = '';

  /** The status and JSON DRF answers a target with; the page links as its replace_query_param writes them. */
  const bodyOf = (target: string): { status: number; body: unknown } => {
    const [path, query = ''] = target.split('?');
    const byPath: Record<string, unknown[]> = {
      'company/': lists.companies,
      'virtualfair/': lists.fairs,
      'event/': lists.events,
    };
    if (path !== undefined && path in byPath) return { status: 200, body: byPath[path] };
    if (path !== 'virtualbooth-texture/') return { status: 404, body: { detail: 'Not found.' } };
    const raw = new URLSearchParams(query).get('page') ?? '1';
    const pages = Math.max(1, Math.ceil(lists.textures.length / pageSize));
    const page = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(page >= 1 && page <= pages)) return { status: 404, body: { detail: 'Invalid page.' } };
    const link = (n: number) => `${linkBase}virtualbooth-texture/${n === 1 ? '' : `?page=${n}`}`;
    return {
      status: 200,
      body: {
        count: lists.textures.length,
        next: page < pages ? link(page + 1) : null,
        previous: page > 1 ? link(page - 1) : null,
        results: lists.textures.slice((page - 1) * pageSize, page * pageSize),
      },
    };
  };
  const encoded = (target: string) => {
    const { status, body } = bodyOf(target);
    return { status, bytes: drfJson(status === 200 && options.edit ? options.edit(target, body) : body) };
  };

  const server = http.createServer((request, response) => {
    const url = request.url ?? '/';
    const target = url.startsWith(prefix) ? url.slice(prefix.length) : url;
    requests.push(target);
    const fault = url.startsWith(prefix) ? faults.get(target)?.shift() : undefined;
    if (fault === 'hang') return;
    if (fault === 'reset') {
      request.socket.destroy();
      return;
    }
    if (fault && 'status' in fault) {
      response.writeHead(fault.status, { ...HEADERS, ...fault.headers });
      response.end(fault.body ?? JSON.stringify({ detail: http.STATUS_CODES[fault.status] ?? 'Error' }));
      return;
    }
    if (fault) {
      response.writeHead(200, { ...HEADERS, 'Content-Type': fault.contentType ?? HEADERS['Content-Type'] });
      response.end(fault.body);
      return;
    }
    const { status, bytes } = url.startsWith(prefix)
      ? encoded(target)
      : { status: 404, bytes: drfJson({ detail: 'Not found.' }) };
    response.writeHead(status, { ...HEADERS, 'Content-Length': bytes.length });
    response.end(request.method === 'HEAD' ? undefined : bytes);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `${origin}${prefix}`;
  linkBase = options.linkBase ?? url;
  if (!linkBase.endsWith('/')) linkBase += '/';
  return {
    url,
    origin,
    requests,
    answer: (target) => encoded(target).bytes,
    close: () =>
      new Promise<void>((closed) => {
        // Hanging requests would keep close() waiting for ever.
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}
