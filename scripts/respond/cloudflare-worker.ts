// The Cloudflare worker (Workers with static assets, and Pages `_worker.js`): the request handler
// on the fetch API, reading the build's files through the ASSETS binding. It uses nothing but the
// fetch API, so it is bundled as it is, with the `_headers` rules built in, and the Netlify
// functions run it too, with a stand-in binding (netlify-function.ts).

import type { HeaderRule } from '../contract/headers.ts';
import { createHandler, type FileStore, logFailure, type Reply } from './handler.ts';

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
function assetStore(assets: Assets, origin: string): FileStore<Response> {
  return {
    async open(file) {
      const asset = await assets.fetch(new URL(`/${file}`, origin));
      if (asset.status === 404) {
        await asset.body?.cancel();
        return null;
      }
      if (asset.status !== 200) throw new Error(`asset /${file} answered ${asset.status}`);
      return {
        etag: async () => asset.headers.get('ETag'),
        contentType: asset.headers.get('Content-Type') ?? 'application/json',
        text: () => asset.text(),
        discard: async () => asset.body?.cancel(),
        body: asset,
      };
    },
  };
}

/**
 * HEAD is GET without the body. No Content-Length is set by hand: Cloudflare's edge gzips JSON
 * for clients that accept it, and GET then goes out chunked without one, so a hand-set length
 * would announce a size GET never sends (RFC 9110 8.6). workerd frames the answer.
 */
async function toResponse(request: Request, reply: Reply<Response>): Promise<Response> {
  const init = { status: reply.status, headers: reply.headers };
  const body = 'file' in reply ? reply.file.body.body : reply.body;
  if (request.method !== 'HEAD') return new Response(body, init);
  if ('file' in reply) await reply.file.discard?.();
  return new Response(null, init);
}

export function createWorker(rules: readonly HeaderRule[]): Worker {
  const handler = createHandler(rules);
  return {
    async fetch(request, env) {
      const url = new URL(request.url);
      const target = url.pathname + url.search;
      const reply = await handler.answer(
        { method: request.method, target, ifNoneMatch: request.headers.get('If-None-Match') },
        assetStore(env.ASSETS, url.origin),
      );
      try {
        return await toResponse(request, reply);
      } catch (error) {
        logFailure(`sending the answer to ${request.method} ${target}`, error);
        return toResponse(request, handler.failure(target));
      }
    },
  };
}
