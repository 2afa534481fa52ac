// The Netlify target's function (Functions v2: a fetch-style handler): the Cloudflare worker on
// Netlify. It answers every request on a list path and on the documents beside the API, whatever
// the method and the query: Netlify's `_redirects` match a query key only as written
// (`%70age=2` is not `page`), so no rule can tell which file answers a query as Django reads it,
// and a rule that guessed would send another list's bytes under 200.
//
// A Netlify function cannot read the deployed files, and the forced 404 catch-all hides them
// from their own URLs. So the worker's ASSETS binding is a stand-in: a file of the build is
// fetched from the site under a prefix that one `_redirects` rule rewrites to the file itself
// (`/_files/event/ordering=-id.json` → `/event/ordering=-id.json`), a path no function claims.
// The error and OPTIONS bodies the handler has built in.
//
// Netlify's CDN keeps a function's answer only when it says so: every GET answer but a 5xx and
// an answer to a Range says so until the next deploy, which invalidates it (the static files are kept the same way), so a
// list is asked of the function about once per URL and deploy, not once per request.

import type { HeaderRule } from '../contract/headers.ts';
import type { Routed } from '../contract/routes.ts';
import { type Assets, createWorker, type Env } from './cloudflare-worker.ts';

/**
 * The instruction to Netlify's CDN alone (it strips the header before the client): keep the
 * answer in the durable cache, shared by every edge node, for a year; a deploy invalidates it.
 * The answer's own `Vary: Accept` and its query are part of the cache key.
 */
export const CDN_CACHE_CONTROL = 'public, durable, max-age=31536000';
const CDN_CACHE_HEADERS = ['Netlify-CDN-Cache-Control', 'CDN-Cache-Control'];

/** The ASSETS stand-in: a file of the build, read through the site's rule for `filesPrefix`. */
export function siteAssets(filesPrefix: string, fetchSite: typeof fetch = fetch): Assets {
  return {
    fetch(input) {
      const url = new URL(input instanceof Request ? input.url : input);
      return fetchSite(new URL(`${filesPrefix}${url.pathname}`, url), { redirect: 'manual' });
    },
  };
}

/**
 * The function of an API with these `_headers` rules and these resources. `filesPrefix` is the
 * path under which the site's `_redirects` serve the build's files.
 */
export function createNetlifyFunction(
  rules: readonly HeaderRule[],
  filesPrefix: string,
  resources: readonly Routed[],
  fetchSite: typeof fetch = fetch,
) {
  const worker = createWorker(rules, resources);
  const env: Env = { ASSETS: siteAssets(filesPrefix, fetchSite) };
  return async (request: Request): Promise<Response> => {
    const response = await worker.fetch(request, env);
    // A rule of the user's `_headers` that speaks to the CDN itself wins. An answer to a Range
    // (206, 416) is not kept: the cache key (the URL and Vary) does not hold the Range, so a
    // slice kept would answer the next request for the whole list.
    const ranged = response.status === 206 || response.status === 416;
    if (response.status < 500 && !ranged && !CDN_CACHE_HEADERS.some((name) => response.headers.has(name))) {
      response.headers.set('Netlify-CDN-Cache-Control', CDN_CACHE_CONTROL);
    }
    return response;
  };
}
