// What the nginx, Caddy and Apache configs answer, taken from the route table: the files of each
// list (per `format`), the orderings of each ordered list, the page file names of each paginated
// list, the error files, and the one set of headers every answer carries. The three emitters only translate this into
// their own syntax, so the answers cannot drift from what the build writes.

import { methodNotAllowedBody } from '../../contract/bodies.ts';
import type { HeaderRule } from '../../contract/headers.ts';
import {
  type DocumentRoute,
  type FilterRoute,
  FORMATS,
  fileFor,
  INVALID_PAGE_FILE,
  methodNotAllowedFile,
  NOT_FOUND_FILE,
  optionsFile,
  REJECTED_METHODS,
  type Route,
  type Routed,
  UNSUPPORTED_ORDERING_FILE,
  UNSUPPORTED_QUERY_FILE,
} from '../../contract/routes.ts';
import { SEARCH_PARAM } from '../../contract/search.ts';
import { HeadersTargetError, type TargetContext } from '../target.ts';
import { filterValuePattern } from './query.ts';

export interface ResourcePlan {
  name: string;
  /** `/company/` */
  path: string;
  /** `/company`: answered with a 301 to the path. */
  noSlash: string;
  optionsFile: string;
  /** The list without ordering or page, per `format` value ('' = none): `virtualbooth-texture/format=api.json`. */
  listFile: ReadonlyMap<string, string>;
  /** What its query chooses besides `format`: an ordering, a page, or nothing. */
  query: ListQuery;
  /** The filters, search and ordering the settings file gives it: none when absent. */
  settings?: SettingsPlan;
}

/**
 * How a list with settings is answered without code. Each key of `keys` sent with a value is
 * counted; the request is answered by the list's own files when only `ordering` of a list that
 * orders itself (the events) is, by a pre-rendered filter's files when only that filter is and
 * its value is one of those written (and, on a paginated list, without `format`), and with the
 * unsupported-query error (400) otherwise: never with the list unfiltered.
 */
export interface SettingsPlan {
  /** The settings' query keys: each filter's field, `search`, `ordering`. */
  keys: readonly string[];
  /** Whether `ordering` alone is the list's own (its files answer it). */
  ownOrdering: boolean;
  paginated: boolean;
  filters: readonly PrerenderedPlan[];
  unsupportedFile: string;
}

/** A filter of `prerendered_filters` and the spellings of each value it has files for. */
export interface PrerenderedPlan {
  field: string;
  values: ReadonlyArray<{ pattern: string; dir: string }>;
}

/** A list with ordering fields, a paginated list, or a list that reads no query key but `format`. */
export type ListQuery =
  | { kind: 'ordered'; orderings: readonly OrderingPlan[] }
  | { kind: 'paginated'; pageFile: PageFile }
  | { kind: 'plain' };

/** The file of a page (not 1) with a format ('' = none); `page` is spliced in as it is. */
export type PageFile = (format: string, page: string) => string;

export interface OrderingPlan {
  /** The ordering term as DRF reads it after decoding and stripping: `-start_date`. */
  term: string;
  /** Its file; the default list for `id` (DRF's default order is id ascending). */
  file: string;
}

export interface ServerPlan {
  resources: readonly ResourcePlan[];
  /** Non-empty `format` values that DRF answers like no format. */
  formats: readonly string[];
  notFoundFile: string;
  invalidPageFile: string;
  unsupportedOrderingFile: string;
  /** Methods with a pre-rendered 405 body, and its file. */
  rejectedMethods: readonly string[];
  methodNotAllowedFile(method: string): string;
  /** The 405 body around a method name, for methods without a file (`{"detail":"Method \"` + M + …). */
  methodNotAllowedBody: readonly [before: string, after: string];
  /** The headers of `_headers`, Content-Type included, in the order of the file. */
  headers: readonly PlannedHeader[];
  /** The documents beside the API (the reference page), each a GET or HEAD of one path, with its own Content-Type. */
  documents: readonly DocumentRoute[];
}

/** Query keys the lists read; the route table's own keys must be among them. */
export const QUERY_KEYS = { format: 'format', ordering: 'ordering', page: 'page' } as const;

/** One rule's value of a header, and the requests it goes on. */
export interface HeaderPart {
  /** The rule's path pattern, as written in `_headers`. */
  pattern: string;
  value: string;
  /** The pattern matches every path (`/*`): the value needs no condition. */
  everywhere: boolean;
  /**
   * The pattern as a regex over the path as sent, unanchored, written with character classes
   * only (no backslash), so each config can quote it as it is: `*` is any run of characters but
   * `?` (where the query starts) and a space (where the request line goes on).
   */
  path: string;
  /** `path` as a regex over the whole URL as sent, path and query (`/company/?x=1`). */
  url: string;
}

/** A header of `_headers` and the values each matching rule adds, in file order. */
export interface PlannedHeader {
  /** As the first rule that sets it spells it. */
  name: string;
  parts: readonly HeaderPart[];
}

/** The characters a path pattern may hold here: those of a URL path, and `*`. */
const PATTERN_CHARACTER = /^[-A-Za-z0-9._~/%:@!&'()+,;=*]$/;

/**
 * A path pattern as a regex over the path (headersFor's `*` is any run of characters). The
 * local server, Netlify and Cloudflare match the path; a configuration sees it with its query.
 */
function pathRegex(pattern: string): string {
  const literal = (character: string) => (/[A-Za-z0-9/_~:@!&',;=-]/.test(character) ? character : `[${character}]`);
  return pattern
    .split('*')
    .map((part) => [...part].map(literal).join(''))
    .join('[^? ]*');
}

/**
 * The headers of `_headers` as the configurations apply them: each rule's values on the requests
 * its pattern matches, a name set by several matching rules joined with ", " in file order (as
 * headersFor does, and Netlify and Cloudflare). `everywhereOnly` names the headers this target
 * can only set for every path alike; a rule that sets one for some paths is refused.
 */
export function plannedHeaders(
  rules: readonly HeaderRule[],
  target: string,
  everywhereOnly: readonly string[] = [],
): PlannedHeader[] {
  const byName = new Map<string, { name: string; parts: HeaderPart[] }>();
  for (const rule of rules) {
    const odd = [...rule.pattern].find((character) => !PATTERN_CHARACTER.test(character));
    if (odd !== undefined) throw new HeadersTargetError(target, rule.pattern, `has "${odd}", which is not in a path`);
    const everywhere = /^\/\*+$/.test(rule.pattern);
    for (const [name, value] of rule.headers) {
      if (!everywhere && everywhereOnly.includes(name.toLowerCase())) {
        throw new HeadersTargetError(
          target,
          rule.pattern,
          `sets ${name}, which ${target} can only set for every path (/*)`,
        );
      }
      const key = name.toLowerCase();
      const header = byName.get(key) ?? { name, parts: [] };
      const path = pathRegex(rule.pattern);
      header.parts.push({ pattern: rule.pattern, value, everywhere, path, url: `^${path}(?:[?].*)?$` });
      byName.set(key, header);
    }
  }
  return [...byName.values()];
}

/** A header's value on every path, when it has one: all its parts apply everywhere. */
export function everywhereValue(header: PlannedHeader | undefined): string | undefined {
  if (header === undefined || !header.parts.every((part) => part.everywhere)) return undefined;
  return header.parts.map((part) => part.value).join(', ');
}

function resourcePlan(resource: Routed, routes: readonly Route[], filterRoutes: readonly FilterRoute[]): ResourcePlan {
  const { name, path } = resource;
  const resourceRoutes = routes.filter((route) => route.resource === name);
  const plain = resourceRoutes.find((route) => Object.keys(route.query).length === 0);
  if (!plain) throw new Error(`route table: no plain route for ${path}`);
  // A list whose body depends on the format has a route per format; the others answer every
  // format with the plain file (DRF renders the same JSON).
  const listFile = new Map(
    ['', ...FORMATS].map((format) => {
      const route = resourceRoutes.find(
        (candidate) => Object.keys(candidate.query).length === 1 && candidate.query[QUERY_KEYS.format] === format,
      );
      return [format, route?.file ?? plain.file] as const;
    }),
  );
  const query: ListQuery =
    resource.orderingFields.length > 0
      ? { kind: 'ordered', orderings: orderingPlans(resource, resourceRoutes, plain.file) }
      : resource.paginated
        ? { kind: 'paginated', pageFile: (format, page) => fileFor(path, format === '' ? { page } : { format, page }) }
        : { kind: 'plain' };
  const settings = settingsPlan(resource, filterRoutes);
  return {
    name,
    path,
    noSlash: path.slice(0, -1),
    optionsFile: optionsFile(name),
    listFile,
    query,
    ...(settings ? { settings } : {}),
  };
}

function settingsPlan(resource: Routed, filterRoutes: readonly FilterRoute[]): SettingsPlan | undefined {
  const settings = resource.query;
  if (settings === undefined || settings.filters.length + settings.search.length + settings.ordering.length === 0)
    return undefined;
  const keys = [
    ...settings.filters.map((filter) => filter.field),
    ...(settings.search.length > 0 ? [SEARCH_PARAM] : []),
    QUERY_KEYS.ordering,
  ];
  const filters = settings.prerendered.map((field) => {
    const kind = settings.filters.find((filter) => filter.field === field)?.kind ?? 'text';
    const values = filterRoutes
      .filter((route) => route.resource === resource.name && route.field === field)
      .map((route) => ({ pattern: filterValuePattern(kind, route.value, resource.paginated), dir: route.dir }));
    return { field, values };
  });
  return {
    keys,
    ownOrdering: resource.orderingFields.length > 0,
    paginated: resource.paginated,
    filters,
    unsupportedFile: UNSUPPORTED_QUERY_FILE,
  };
}

/** Every single-field ordering the route table has a file for, plus `id` (the default order). */
function orderingPlans(resource: Routed, routes: readonly Route[], defaultFile: string): OrderingPlan[] {
  const planned = routes.filter((route) => route.query[QUERY_KEYS.ordering] !== undefined);
  const plans = planned.map((route) => ({ term: route.query[QUERY_KEYS.ordering] as string, file: route.file }));
  for (const plan of plans) {
    if (plan.term.includes(',')) throw new Error(`route table: ordering ${plan.term} has several fields`);
  }
  // `id` ascending is the default order; a field with no file of either direction is a bug.
  plans.push({ term: 'id', file: defaultFile });
  for (const field of resource.orderingFields) {
    if (!plans.some((plan) => plan.term === field) || !plans.some((plan) => plan.term === `-${field}`)) {
      throw new Error(`route table: no file for ordering ${resource.path} by ${field} in both directions`);
    }
  }
  return plans;
}

/** File names the configs write as bare words (and splice a page number into). */
const SAFE_FILE = /^[-_.=/A-Za-z0-9]+$/;

export function serverPlan(context: TargetContext, target: string, everywhereOnly: readonly string[] = []): ServerPlan {
  const { routes } = context;
  for (const route of routes) {
    const unknown = Object.keys(route.query).filter((key) => !Object.values(QUERY_KEYS).includes(key as never));
    if (unknown.length > 0) throw new Error(`route table: ${target} cannot route on ${unknown.join(', ')}`);
    if (!SAFE_FILE.test(route.file))
      throw new Error(`route table: ${target} cannot name the file ${route.file} unquoted`);
  }
  const filterRoutes = context.filterRoutes ?? [];
  for (const route of filterRoutes) {
    if (!SAFE_FILE.test(route.dir))
      throw new Error(`route table: ${target} cannot name the folder ${route.dir} unquoted`);
  }
  const resources = context.resources.map((resource) => resourcePlan(resource, routes, filterRoutes));
  const marker = 'XMETHODX';
  const [before, after] = methodNotAllowedBody(marker).split(marker) as [string, string];
  return {
    resources,
    formats: FORMATS,
    notFoundFile: NOT_FOUND_FILE,
    invalidPageFile: INVALID_PAGE_FILE,
    unsupportedOrderingFile: UNSUPPORTED_ORDERING_FILE,
    rejectedMethods: REJECTED_METHODS,
    methodNotAllowedFile,
    methodNotAllowedBody: [before, after],
    headers: plannedHeaders(context.headerRules, target, everywhereOnly),
    documents: context.documents,
  };
}

/** The lists with settings, and their pre-rendered filters, for the README. */
export function settingsLists(plan: ServerPlan): Array<{ path: string; prerendered: string[] }> {
  return plan.resources.flatMap(({ path, settings }) =>
    settings ? [{ path, prerendered: settings.filters.map((filter) => filter.field) }] : [],
  );
}
