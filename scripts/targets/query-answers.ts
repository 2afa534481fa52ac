// Which file of the build answers a list's query, for the targets whose rules name a file per
// query (Netlify's `_redirects`, Vercel's vercel.json): the query keys that change a list's
// answer, every combination of their values worth a rule, and the file resolve() names for each.
// Which file answers which query is not written here but taken from the route table (a route's
// own query) or asked of its resolve() (any other combination of the values the table knows).

import { FORMATS, type Route, type Routed, resolve } from '../contract/routes.ts';

/** Values worth a rule besides those of the route table: every ordering term of `resources`, the first page. */
function probesOf(resources: readonly Routed[]): Readonly<Record<string, readonly string[]>> {
  const fields = [...new Set(resources.flatMap((resource) => resource.orderingFields))];
  return { format: FORMATS, ordering: fields.flatMap((field) => [field, `-${field}`]), page: ['1'] };
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
  resources: readonly Routed[],
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
  resources: readonly Routed[],
): string | undefined {
  const table = tableOf(routes);
  const routeFile = table.routeFiles.get(queryKey(path, pairs));
  if (routeFile !== undefined) return routeFile;
  const search = new URLSearchParams(pairs.map(([key, value]): [string, string] => [key, value])).toString();
  const url = `${path}${search ? `?${search}` : ''}`;
  if (table.answers.has(url)) return table.answers.get(url);
  const answer = resolve('GET', url, resources);
  const file =
    answer.kind === 'file' && answer.status === 200 && table.files.has(answer.file) ? answer.file : undefined;
  table.answers.set(url, file);
  return file;
}
