// The Netlify target's functions (Functions v2: a fetch-style handler): the Cloudflare worker on
// Netlify, for the answers the static rules cannot give: OPTIONS, 405, the 301 for a path
// without its slash, and the queries Netlify's _redirects rewrites to the function's prefix.
//
// A Netlify function cannot read the deployed files, and the forced 404 catch-all hides them
// from their own URLs. So the worker's ASSETS binding is a stand-in: a list's file is fetched
// from the site by its canonical URL (`/event/?ordering=-id`), which a static rule answers with
// exactly that file (test/unit/netlify.test.ts checks that for every route). The error and
// OPTIONS bodies, which no URL serves with status 200, the handler has built in.

import type { HeaderRule } from '../contract/headers.ts';
import { buildUrl } from '../contract/pagination.ts';
import type { Route } from '../contract/routes.ts';
import { type Assets, createWorker, type Env } from './cloudflare-worker.ts';

/** What the function needs of a route: its file and the canonical URL a static rule serves it at. */
export type RouteUrls = ReadonlyArray<readonly [file: string, url: string]>;

/** `/event/?ordering=-id`: the route's canonical request, keys sorted, values form-encoded. */
export function canonicalUrl(route: Route): string {
  return buildUrl('', route.path, route.query);
}

export function routeUrls(routes: readonly Route[]): RouteUrls {
  return routes.map((route) => [route.file, canonicalUrl(route)] as const);
}

/** The ASSETS stand-in: a file of the build, read through the site's own static rules. */
export function siteAssets(urls: RouteUrls, fetchSite: typeof fetch = fetch): Assets {
  const canonical = new Map(urls);
  return {
    async fetch(input) {
      const url = new URL(input instanceof Request ? input.url : input);
      const canonicalPath = canonical.get(decodeURIComponent(url.pathname.slice(1)));
      // Not a file of the build (a page beyond the last): the handler then answers Invalid page.
      if (canonicalPath === undefined) return new Response(null, { status: 404 });
      return fetchSite(new URL(canonicalPath, url), { redirect: 'manual' });
    },
  };
}

/**
 * The function. `prefix` is the path the static rules rewrite to (`/_api` + the list path): the
 * list path is what the handler is asked about, whichever URL Netlify hands the function after
 * the rewrite (the original or the rewritten one).
 */
export function createNetlifyFunction(
  rules: readonly HeaderRule[],
  urls: RouteUrls,
  prefix: string,
  fetchSite: typeof fetch = fetch,
) {
  const worker = createWorker(rules);
  const env: Env = { ASSETS: siteAssets(urls, fetchSite) };
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname.startsWith(`${prefix}/`)) {
      url.pathname = url.pathname.slice(prefix.length);
      // No body: the handler never reads one, and a streamed body would need `duplex` in Node.
      return worker.fetch(new Request(url, { method: request.method, headers: request.headers }), env);
    }
    return worker.fetch(request, env);
  };
}
