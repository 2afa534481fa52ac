// The Cloudflare worker (Workers with static assets, and Pages `_worker.js`): the local server's
// logic on workerd. The route table's resolve() decides every answer, exactly as in
// scripts/serve/server.ts; the asset binding only reads the file an answer names. Runtime-neutral
// (fetch API only), so it is bundled as it is, with the `_headers` rules built in.

import { methodNotAllowedBody } from '../contract/bodies.ts';
import { headersFor, type HeaderRule } from '../contract/headers.ts';
import { encode, type Json } from '../contract/json.ts';
import { sortRecords } from '../contract/ordering.ts';
import { resolve, type Answer } from '../contract/routes.ts';
import { notModified } from './revalidate.ts';

/** The one binding the worker needs: Cloudflare's static assets (a Fetcher). */
export interface Env {
  ASSETS: { fetch(input: Request | URL | string, init?: RequestInit): Promise<Response> };
}

export interface Worker {
  fetch(request: Request, env: Env): Promise<Response>;
}

/**
 * Of the asset's own headers only the validator is kept, so a CDN can revalidate. Everything
 * else comes from `_headers` for the client's path, as on the local server: the asset worker's
 * own (Cache-Control, CF-Cache-Status, or Pages' CORS header) would make the hosts differ.
 */
const KEPT_ASSET_HEADERS = ['etag'];

export function createWorker(rules: readonly HeaderRule[]): Worker {
  /**
   * HEAD is GET without the body. No Content-Length is set by hand: Cloudflare's edge gzips
   * JSON for clients that accept it, and GET then goes out chunked without one, so a hand-set
   * length would announce a size GET never sends (RFC 9110 8.6). workerd frames the answer.
   */
  async function reply(request: Request, status: number, headers: Headers, body: string | Response | null): Promise<Response> {
    if (request.method !== 'HEAD') return new Response(body instanceof Response ? body.body : body, { status, headers });
    if (body instanceof Response) await body.body?.cancel();
    return new Response(null, { status, headers });
  }

  async function answer(request: Request, env: Env, result: Answer, base: Record<string, string>): Promise<Response> {
    const headers = new Headers(base);
    switch (result.kind) {
      case 'redirect':
        headers.set('Location', result.location);
        // An empty body rather than none, so the 301 carries Content-Length: 0 as locally.
        return reply(request, 301, headers, '');
      case 'not-allowed':
        return reply(request, 405, headers, methodNotAllowedBody(result.method));
      case 'sorted': {
        // A multi-field ordering: too many to pre-render, so sort the default list's records.
        const list = await env.ASSETS.fetch(new URL(`/${result.file}`, request.url));
        if (!list.ok) throw new Error(`asset /${result.file} answered ${list.status}`);
        const records = (await list.json()) as Array<Json & { id: number }>;
        return reply(request, 200, headers, encode(sortRecords(records, result.terms)));
      }
      case 'file': {
        // Always a GET: the asset worker answers other methods (OPTIONS here) with an empty 405.
        const asset = await env.ASSETS.fetch(new URL(`/${result.file}`, request.url));
        if (asset.status === 404 && result.ifMissing) {
          await asset.body?.cancel();
          return answer(request, env, result.ifMissing, base);
        }
        if (asset.status !== 200) throw new Error(`asset /${result.file} answered ${asset.status}`);
        for (const name of KEPT_ASSET_HEADERS) {
          const value = asset.headers.get(name);
          if (value !== null) headers.set(name, value);
        }
        if (!headers.has('Content-Type')) headers.set('Content-Type', asset.headers.get('Content-Type') ?? 'application/json');
        // Revalidation is decided here, not by the asset server (Pages' 304 has no ETag), and
        // only for a 200: an error answer is never turned into a 304.
        if (result.status === 200 && notModified(request.headers.get('If-None-Match'), headers.get('ETag'))) {
          await asset.body?.cancel();
          return new Response(null, { status: 304, headers });
        }
        return reply(request, result.status, headers, asset);
      }
    }
  }

  return {
    async fetch(request, env) {
      const url = new URL(request.url);
      const base = headersFor(rules, url.pathname);
      try {
        return await answer(request, env, resolve(request.method, url.pathname + url.search), base);
      } catch (error) {
        console.error(error);
        return reply(request, 500, new Headers(base), encode({ detail: 'A server error occurred.' }));
      }
    },
  };
}
