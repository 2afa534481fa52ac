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
// see fileAnswer); a query no file answers (an empty or unknown `format`, an unknown or
// comma-separated ordering, a page written otherwise, or beyond the last) is rewritten to the
// Netlify target's function, which answers it with the same resolve(). So a query is either
// answered from the file DRF's answer is in or by the function; never from another file.

import {
  FORMATS,
  NOT_FOUND_FILE,
  type PageRoute,
  RESOURCES,
  type Route,
  type Routed,
  resolve,
} from '../../contract/routes.ts';

/**
 * Where the rules send a query that no file answers: the path of the Netlify target's function,
 * followed by the list path (`/_api/event/`). Netlify passes the query on to a 200 rewrite.
 */
export const FUNCTION_PREFIX = '/_api';

/** Values worth a rule besides those of the route table: every ordering term of `resources`, the first page. */
function probesOf(resources: readonly Routed[]): Readonly<Record<string, readonly string[]>> {
  const fields = [...new Set(resources.flatMap((resource) => resource.orderingFields))];
  return { format: FORMATS, ordering: fields.flatMap((field) => [field, `-${field}`]), page: ['1'] };
}

export interface RedirectRule {
  path: string;
  /** Conditions, key → exact value or `:key` (any value). */
  query: Array<[key: string, value: string]>;
  to: string;
  status: number;
  force: boolean;
}

/** Every subset of `keys`, largest first; same-size subsets keep the order of `keys`. */
export function subsets(keys: readonly string[]): string[][] {
  const allSubsets: string[][] = [[]];
  for (const key of keys) allSubsets.push(...allSubsets.map((subset) => [...subset, key]));
  return allSubsets.sort((a, b) => b.length - a.length);
}

/** Every combination of one value per key. */
export function combinations(
  keys: readonly string[],
  values: ReadonlyMap<string, readonly string[]>,
): Array<Array<[string, string]>> {
  return keys.reduce<Array<Array<[string, string]>>>(
    (partial, key) =>
      partial.flatMap((pairs) => (values.get(key) ?? []).map((value) => [...pairs, [key, value] as [string, string]])),
    [[]],
  );
}

/** The query keys whose value changes a list's answer (`format` always can: a 404), and the values worth a rule. */
export function listKeys(
  path: string,
  routes: readonly Route[],
  resources: readonly Routed[] = RESOURCES,
): { keys: string[]; values: Map<string, string[]> } {
  const probes = probesOf(resources);
  const listRoutes = routes.filter((route) => route.path === path);
  const keys = [...new Set(['format', ...listRoutes.flatMap((route) => Object.keys(route.query))])].sort();
  const values = new Map(
    keys.map((key) => [
      key,
      [...new Set([...listRoutes.flatMap((route) => route.query[key] ?? []), ...(probes[key] ?? [])])],
    ]),
  );
  return { keys, values };
}

interface Table {
  files: ReadonlySet<string>;
  /** Each route's file, by its path and query (sorted keys) as JSON. */
  routeFiles: ReadonlyMap<string, string>;
  /** What resolve() answered, by request. */
  answers: Map<string, string | undefined>;
}

/**
 * Per route table: its files, and who answers which query. A route's own query is answered by
 * its file: that is what the table says (routes.test.ts checks it against resolve()). So
 * resolve() is asked only about the other queries, a few dozen however many pages there are,
 * and once each (_redirects and vercel.json ask about the same ones): a large catalogue has
 * thousands of pages, and asking about each of them made writing the targets' files slow.
 */
const tables = new WeakMap<readonly Route[], Table>();

const queryKey = (path: string, pairs: ReadonlyArray<readonly [string, string]>) => JSON.stringify([path, pairs]);

function tableOf(routes: readonly Route[]): Table {
  let table = tables.get(routes);
  if (!table) {
    const routeFiles = new Map(
      routes.map((route) => [
        queryKey(
          route.path,
          Object.keys(route.query)
            .sort()
            .map((key) => [key, route.query[key] as string]),
        ),
        route.file,
      ]),
    );
    table = { files: new Set(routes.map((route) => route.file)), routeFiles, answers: new Map() };
    tables.set(routes, table);
  }
  return table;
}

/**
 * The file of the build that answers `path` with these query values (status 200), per
 * resolve(); undefined when the answer is not such a file (an error, a sort, a page beyond the last).
 */
export function fileAnswer(
  path: string,
  pairs: ReadonlyArray<readonly [string, string]>,
  routes: readonly Route[],
  resources: readonly Routed[] = RESOURCES,
): string | undefined {
  const table = tableOf(routes);
  const routeFile = table.routeFiles.get(queryKey(path, pairs));
  if (routeFile !== undefined) return routeFile;
  const search = new URLSearchParams(pairs.map(([key, value]): [string, string] => [key, value])).toString();
  const target = `${path}${search ? `?${search}` : ''}`;
  if (table.answers.has(target)) return table.answers.get(target);
  const answer = resolve('GET', target, resources);
  const file =
    answer.kind === 'file' && answer.status === 200 && table.files.has(answer.file) ? answer.file : undefined;
  table.answers.set(target, file);
  return file;
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
