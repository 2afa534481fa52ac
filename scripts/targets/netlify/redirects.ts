// `_redirects` (Netlify format): the route table as rewrite rules with query conditions, for
// Netlify's redirect engine (checked rule by rule with netlify-redirector, the WASM build of
// that engine, in test/unit/netlify.test.ts). How that engine matches decides the layout:
//
// - The first matching rule wins. A condition `key=value` matches when the request's last
//   `key` decodes to exactly `value` (`%2Did` is `-id`; `+` is not a space); other keys are
//   ignored. A `key=:name` placeholder matches any value, the empty one too. No condition can
//   ask for an empty value or for the absence of a key.
// - A rule's path matches with or without its trailing slash, so `/company /company/ 301` would
//   also match `/company/` and redirect it to itself forever. There is no slash rule here:
//   the Netlify target's function answers the path without the slash (targets/netlify/).
// - Rules are fallbacks: a file at the request path wins over a non-forced rule. The 404
//   catch-all is forced, so the output's own files are not reachable by their names.
//
// Which file answers which query is not written here but taken from the route table (a route's
// own query) or asked of its resolve() (any other combination of the values the table knows,
// see fileAnswer in targets/query-answers.ts); a query no file answers (an empty or unknown `format`, an unknown or
// comma-separated ordering, a page written otherwise, or beyond the last) is rewritten to the
// Netlify target's function, which answers it with the same resolve(). So a query is either
// answered from the file DRF's answer is in or by the function; never from another file.

import { NOT_FOUND_FILE, type PageRoute, RESOURCES, type Route, type Routed } from '../../contract/routes.ts';
import { combinations, fileAnswer, listKeys, subsets } from '../query-answers.ts';

/**
 * Where the rules send a query that no file answers: the path of the Netlify target's function,
 * followed by the list path (`/_api/event/`). Netlify passes the query on to a 200 rewrite.
 */
export const FUNCTION_PREFIX = '/_api';

export interface RedirectRule {
  path: string;
  /** Conditions, key → exact value or `:key` (any value). */
  query: Array<[key: string, value: string]>;
  to: string;
  status: number;
  force: boolean;
}

/** The rules of one list path: for each set of query keys (more keys first), exact values, then the rest. */
function listRules(path: string, routes: readonly Route[], resources: readonly Routed[]): RedirectRule[] {
  const { keys, values } = listKeys(path, routes, resources);
  const rules: RedirectRule[] = [];
  for (const subset of subsets(keys)) {
    for (const pairs of combinations(subset, values)) {
      // Only answers that are a file of the build with status 200; anything else is the function's.
      const file = fileAnswer(path, pairs, routes, resources);
      if (file !== undefined) rules.push({ path, query: pairs, to: `/${file}`, status: 200, force: false });
    }
    if (subset.length > 0) {
      rules.push({
        path,
        query: subset.map((key) => [key, `:${key}`]),
        to: `${FUNCTION_PREFIX}${path}`,
        status: 200,
        force: false,
      });
    }
  }
  return rules;
}

/**
 * The rules in order: each list path's, each page's beside the API (its path to its file, before
 * the 404 that hides the file's own name), then the forced 404 for every other path.
 */
export function redirectRules(
  routes: readonly Route[],
  pages: readonly PageRoute[],
  resources: readonly Routed[] = RESOURCES,
): RedirectRule[] {
  return [
    ...resources.flatMap((resource) => listRules(resource.path, routes, resources)),
    ...pages.map((page) => ({ path: page.path, query: [], to: `/${page.file}`, status: 200, force: false })),
    { path: '/*', query: [], to: `/${NOT_FOUND_FILE}`, status: 404, force: true },
  ];
}

export function formatRule(rule: RedirectRule): string {
  const conditions = rule.query.map(([key, value]) => `${key}=${value} `).join('');
  return `${rule.path} ${conditions}${rule.to} ${rule.status}${rule.force ? '!' : ''}`;
}

export function renderRedirects(
  routes: readonly Route[],
  pages: readonly PageRoute[],
  resources: readonly Routed[] = RESOURCES,
): string {
  const lines = [
    '# Generated from the route table by `npm run build` (scripts/targets/netlify/redirects.ts). Netlify reads it,',
    '# together with the functions of targets/netlify/ (a query no file answers is rewritten to',
    `# ${FUNCTION_PREFIX}/...); Cloudflare Pages cannot match query strings (see README, "Hosts").`,
    '# First match wins: for each list, rules with more query keys come first, exact values before',
    '# `key=:key` (any value). A rule matches a path with or without its trailing slash.',
    ...redirectRules(routes, pages, resources).map(formatRule),
  ];
  return `${lines.join('\n')}\n`;
}
