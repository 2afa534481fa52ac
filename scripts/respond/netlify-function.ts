// The Netlify target's function (Functions v2: a fetch-style handler): the Cloudflare worker's
// code (scripts/respond/fetch-handler.ts, i.e. the route table's resolve() and the `_headers`
// rules) on Netlify, for the answers the static rules cannot give: OPTIONS, 405, the 301 for a
// path without its slash, and the queries public/_redirects rewrites to FUNCTION_PREFIX.
//
// A Netlify function cannot read the deployed files, and the forced 404 catch-all hides them
// from their own URLs. So the worker's ASSETS binding is a stand-in: a list's file is fetched
// from the site by its canonical URL (`/event/?ordering=-id`), which a static rule answers with
// exactly that file (test/unit/netlify.test.ts checks that for every route); the error and
// OPTIONS bodies, which no URL serves with status 200, are built in.

import { INVALID_PAGE_BODY, NOT_FOUND_BODY, optionsBody } from '../contract/bodies.ts';
import type { HeaderRule } from '../contract/headers.ts';
import { buildUrl } from '../contract/pagination.ts';
import { INVALID_PAGE_FILE, NOT_FOUND_FILE, RESOURCES, optionsFile, type Route } from '../contract/routes.ts';
import { createWorker, type Env } from './fetch-handler.ts';

/** What the function needs of a route: its file and the canonical URL a static rule serves it at. */
export type RouteUrls = ReadonlyArray<readonly [file: string, url: string]>;

/** `/event/?ordering=-id`: the route's canonical request, keys sorted, values form-encoded. */
export function canonicalUrl(route: Route): string {
  return buildUrl('', route.path, route.query);
}

export function routeUrls(routes: readonly Route[]): RouteUrls {
  return routes.map((route) => [route.file, canonicalUrl(route)] as const);
}

/** The bodies no URL of the site answers with status 200: built in. */
function builtInFiles(): Map<string, string> {
  return new Map([
    [NOT_FOUND_FILE, NOT_FOUND_BODY],
    [INVALID_PAGE_FILE, INVALID_PAGE_BODY],
    ...RESOURCES.map((r) => [optionsFile(r.name), optionsBody(r.title)] as const),
  ]);
}

/** The ASSETS stand-in: a file of the build, read through the site's own static rules. */
export function siteAssets(urls: RouteUrls, fetchSite: typeof fetch = fetch): Env['ASSETS'] {
  const canonical = new Map(urls);
  const builtIn = builtInFiles();
  return {
    async fetch(input) {
      const url = new URL(input instanceof Request ? input.url : input);
      const file = decodeURIComponent(url.pathname.slice(1));
      const body = builtIn.get(file);
      if (body !== undefined) return new Response(body, { headers: { 'Content-Type': 'application/json' } });
      const at = canonical.get(file);
      // Not a file of the build (a page beyond the last): the worker then answers Invalid page.
      if (at === undefined) return new Response(null, { status: 404 });
      return fetchSite(new URL(at, url), { redirect: 'manual' });
    },
  };
}

/**
 * The handler. `prefix` is the path the static rules rewrite to (`/_api` + the list path):
 * the list path is what resolve() is asked about, whichever URL Netlify hands the function
 * after the rewrite (the original or the rewritten one).
 */
export function createNetlifyFunction(rules: readonly HeaderRule[], urls: RouteUrls, prefix: string, fetchSite: typeof fetch = fetch) {
  const worker = createWorker(rules);
  const env: Env = { ASSETS: siteAssets(urls, fetchSite) };
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname.startsWith(`${prefix}/`)) {
      url.pathname = url.pathname.slice(prefix.length);
      // No body: resolve() never reads one, and a streamed body would need `duplex` in Node.
      return worker.fetch(new Request(url, { method: request.method, headers: request.headers }), env);
    }
    return worker.fetch(request, env);
  };
}
