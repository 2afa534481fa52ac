// The route table: which request (path + query) is answered by which file, with which status.
// It is the one place this is defined. The writer names files with it, the targets' files
// (`_redirects`) are generated from it, the request handler answers with it, and the end-to-end
// tests enumerate it.

import { formatOrdering, type OrderTerm, parseOrdering } from './ordering.ts';
import { pageCount, parsePage } from './pagination.ts';
import { type ListQuery, readListQuery } from './query.ts';
import type { Resource } from './resources/resource.ts';

/**
 * What the route table needs of a declaration (resources/resource.ts): plain data, which a bundle
 * can hold as a literal.
 */
export type Routed = Pick<Resource, 'name' | 'path' | 'title' | 'orderingFields' | 'paginated' | 'query'>;

/**
 * The fields of the route table's own (the request's path and query, by which the files are
 * named), and the settings' filters, search and ordering where a resource has them.
 */
export function routingOf(resources: readonly Routed[]): Routed[] {
  return resources.map(({ name, path, title, orderingFields, paginated, query }) => ({
    name,
    path,
    title,
    orderingFields,
    paginated,
    ...(query === undefined ? {} : { query }),
  }));
}

/**
 * The base URL a page link of a paginated list was built with, what it holds before the list's
 * path: `https://example.com/api`.
 */
export function linkBase(link: unknown, resources: readonly Routed[]): string | undefined {
  if (typeof link !== 'string') return undefined;
  for (const resource of resources) {
    if (!resource.paginated) continue;
    const at = link.indexOf(resource.path);
    if (at >= 0) return link.slice(0, at);
  }
  return undefined;
}

/** `format` values DRF answers with JSON; an empty value means no override. */
export const FORMATS = ['api', 'json'] as const;

/** Methods with a pre-rendered 405 body, for targets that pick a file by method. */
export const REJECTED_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'TRACE'] as const;

/** Every method the contract names an answer for: the reads, OPTIONS and the rejected ones. */
export const CONTRACT_METHODS = ['GET', 'HEAD', 'OPTIONS', ...REJECTED_METHODS] as const;

export const NOT_FOUND_FILE = '_errors/not-found.json';
export const INVALID_PAGE_FILE = '_errors/invalid-page.json';
/**
 * For targets that route on the query without code: a comma-separated ordering they cannot sort
 * gets this explicit error instead of a silently unsorted list (status 400).
 */
export const UNSUPPORTED_ORDERING_FILE = '_errors/unsupported-ordering.json';
/**
 * For targets without code, written only when a list has filters, search or ordering in the
 * settings file: a query of those they have no file for gets this error (status 400).
 */
export const UNSUPPORTED_QUERY_FILE = '_errors/unsupported-query.json';
export const methodNotAllowedFile = (method: string) => `_errors/405/${method}.json`;
export const optionsFile = (resource: string) => `_options/${resource}.json`;

/** A request the build answers with a file of its own (always status 200). */
export interface Route {
  /** The name of the resource whose list it answers. */
  resource: string;
  path: string;
  /** The canonical query: only the parameters that change the body, one value each. */
  query: Readonly<Record<string, string>>;
  file: string;
}

/**
 * The file of a canonical request: `event/index.json`, `event/ordering=-id.json`,
 * `virtualbooth-texture/format=api/page=2.json`. Reversible and readable in a diff.
 */
export function fileFor(path: string, query: Readonly<Record<string, string>>): string {
  const segments = Object.keys(query)
    .sort()
    .map((key) => `${key}=${query[key]}`);
  const dir = path.slice(1, -1);
  return segments.length === 0 ? `${dir}/index.json` : `${dir}/${segments.join('/')}.json`;
}

/**
 * The canonical request of a list file, read back from its name as fileFor() writes it:
 * `event/ordering=-id.json` is `/event/?ordering=-id`; undefined for any other file.
 */
export function requestOf(file: string, resources: readonly Routed[]): string | undefined {
  if (!file.endsWith('.json')) return undefined;
  const [dir, ...segments] = file.slice(0, -'.json'.length).split('/');
  const path = `/${dir}/`;
  if (!resources.some((resource) => resource.path === path)) return undefined;
  if (segments.length === 1 && segments[0] === 'index') return path;
  return segments.length > 0 && segments.every((segment) => segment.includes('='))
    ? `${path}?${segments.join('&')}`
    : undefined;
}

function route(resource: Routed, query: Record<string, string> = {}): Route {
  return { resource: resource.name, path: resource.path, query, file: fileFor(resource.path, query) };
}

/** Every single-field ordering of `fields`, both directions, except `id` (the default order). */
export function orderingsOf(fields: readonly string[]): OrderTerm[][] {
  return fields.flatMap((field) => [
    ...(field === 'id' ? [] : [[{ field, descending: false }]]),
    [{ field, descending: true }],
  ]);
}

/** The routes of one resource: its list, each single-field ordering, each page with and without `format`. */
function routesOfResource(resource: Routed, pageCount: number): Route[] {
  if (resource.paginated) {
    // The page links repeat `format`, so each value is a body of its own.
    const pages = ['last', ...Array.from({ length: pageCount - 1 }, (_, i) => String(i + 2))];
    const formats: Array<Record<string, string>> = [{}, ...FORMATS.map((format) => ({ format }))];
    return formats.flatMap((format) => [
      route(resource, format),
      ...pages.map((page) => route(resource, { ...format, page })),
    ]);
  }
  return [
    route(resource),
    ...orderingsOf(resource.orderingFields).map((terms) => route(resource, { ordering: formatOrdering(terms) })),
  ];
}

/**
 * Every route of a catalogue, resource by resource: each list, each single-field ordering, and
 * each page of a paginated list (`page=2`..N and `page=last`) with and without `format`.
 * `pageCounts` gives each paginated resource's number of pages (one number: the same for all).
 */
export function planRoutes(
  pageCounts: number | Readonly<Record<string, number>>,
  resources: readonly Routed[],
): Route[] {
  return resources.flatMap((resource) => {
    if (resource.paginated && resource.orderingFields.length > 0) {
      // Every ordering of every page would be a file: not made until a resource needs it.
      throw new Error(`${resource.path} is paginated and has ordering fields: the route table has no files for both`);
    }
    const pages = typeof pageCounts === 'number' ? pageCounts : (pageCounts[resource.name] ?? 1);
    return routesOfResource(resource, pages);
  });
}

/**
 * A value of a filter of `prerendered_filters`, as a request writes it (decoded): `Italy`,
 * `true`, `42`; and how many records hold it.
 */
export interface FilterValue {
  value: string;
  count: number;
}

/**
 * The answers of one value of a pre-rendered filter, for the targets without code: the list
 * filtered on that field alone, and for a paginated list each of its pages (`2`.., `last`), in
 * files of a folder of its own under the list's, `company/_filters/country_name/_49taly`.
 */
export interface FilterRoute {
  resource: string;
  path: string;
  field: string;
  value: string;
  /** Its folder: the list's, `_filters`, the field and the value's segment (filterSegment()). */
  dir: string;
  /** A paginated list's pages besides the first (`2`.., and `last`, as the list's own), each `<dir>/page=<page>.json`. */
  pages: readonly string[];
}

/** The folder of a list's pre-rendered filters: no route names a file under it but FilterRoute's. */
export const FILTERS_FOLDER = '_filters';

/** The file of a pre-rendered filter's answer: its first page (or whole list), or one of its pages. */
export const filterFile = (dir: string, page?: string) =>
  `${dir}/${page === undefined ? 'index' : `page=${page}`}.json`;

/** The folder of the answers of a list's pre-rendered filter on `field` = `value`. */
const filterDir = (resource: Pick<Routed, 'path'>, field: string, value: string) =>
  `${resource.path.slice(1, -1)}/${FILTERS_FOLDER}/${field}/${filterSegment(value)}`;

/**
 * The file that answers `query` as the build wrote it, or undefined: one filter of
 * `prerendered_filters`, alone, on a list without pages (a page's links repeat the request's own
 * spelling of the value, which a file cannot). The condition holds the value in the record's own
 * form, the text planFilterRoutes() names the file by.
 */
export function prerenderedFilterFile(resource: Routed, query: ListQuery): string | undefined {
  const [condition, ...others] = query.conditions;
  if (condition === undefined || others.length > 0 || query.terms.length > 0 || query.ordering.length > 0)
    return undefined;
  if (resource.paginated || !resource.query?.prerendered.includes(condition.field)) return undefined;
  return filterFile(filterDir(resource, condition.field, String(condition.equals)));
}

/** FNV-1a of the UTF-8 bytes, 32 bits, from `seed`: a short, stable tag for a long value. */
function fnv1a(bytes: Uint8Array, seed: number): string {
  let hash = seed >>> 0;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

/** Past this many characters a value's segment is cut and tagged with its hash. */
const LONGEST_SEGMENT = 96;

/**
 * A filter value as one segment of a file name that every target writes unquoted and every file
 * system keeps apart: lower-case ASCII letters, digits and `-` as they are, every other byte of
 * its UTF-8 (upper-case letters, `/`, spaces, `_` itself) as `_` and two upper-case hex digits,
 * so `Italy` is `_49taly` and no two values, nor two cases of one on a file system that ignores
 * case, share a name; the empty value is `_`. A segment longer than 96 characters is cut to 64
 * and ends with `_h` and 16 hex digits of two FNV-1a hashes of the value (planFilterRoutes
 * refuses two values of one field that would still meet).
 */
export function filterSegment(value: string): string {
  const bytes = new TextEncoder().encode(value);
  let segment = '';
  for (const byte of bytes) {
    const char = String.fromCharCode(byte);
    segment += /[a-z0-9-]/.test(char) ? char : `_${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  if (segment === '') return '_';
  if (segment.length <= LONGEST_SEGMENT) return segment;
  return `${segment.slice(0, 64)}_h${fnv1a(bytes, 0x811c9dc5)}${fnv1a(bytes, 0x050c5d1f)}`;
}

/**
 * The pre-rendered filters' answers: for each resource and field of `prerendered_filters`, each
 * value `values` gives (the build reads them from the records), with its pages at `pageSize`.
 */
export function planFilterRoutes(
  values: Readonly<Record<string, Readonly<Record<string, readonly FilterValue[]>>>>,
  pageSize: number,
  resources: readonly Routed[],
): FilterRoute[] {
  return resources.flatMap((resource) =>
    (resource.query?.prerendered ?? []).flatMap((field) => {
      const dirs = new Map<string, string>();
      return (values[resource.name]?.[field] ?? []).map(({ value, count }) => {
        const dir = filterDir(resource, field, value);
        const other = dirs.get(dir);
        if (other !== undefined)
          throw new Error(`${resource.path} ${field}: values ${other} and ${value} share ${dir}`);
        dirs.set(dir, value);
        const pageTotal = pageCount(count, pageSize);
        const pages = resource.paginated
          ? [...Array.from({ length: pageTotal - 1 }, (_, i) => String(i + 2)), 'last']
          : [];
        return { resource: resource.name, path: resource.path, field, value, dir, pages };
      });
    }),
  );
}

/**
 * A document for people beside the API, at a path outside it: written only when its setting is on,
 * so the targets that route without code get its rule from planDocuments(), and the others find its
 * file or answer 404 Not found as for any unknown path. The file has no `.html` name: no host
 * serves it on its own (an `index.html` would be served at its folder by Netlify and Cloudflare
 * Pages whether or not the route exists), and Cloudflare's asset server does not redirect it.
 */
export interface DocumentRoute {
  path: string;
  file: string;
  contentType: string;
}

/** The API reference (builder/documents/reference.ts), where `npm start` and `npm run dev` serve it by default. */
export const REFERENCE_DOCUMENT: DocumentRoute = {
  path: '/_reference/',
  file: '_reference/index.htm',
  contentType: 'text/html; charset=utf-8',
};

/** The documents a build with these settings writes: none unless the reference is on. */
export function planDocuments(options: { reference: boolean }): DocumentRoute[] {
  return options.reference ? [REFERENCE_DOCUMENT] : [];
}

/** What the server sends. `file` answers name a file of the build output. */
export type Answer =
  | { kind: 'redirect'; status: 301; location: string }
  | {
      kind: 'file';
      status: 200 | 404;
      file: string;
      ifMissing?: Answer;
      /** Sent instead of the `_headers` Content-Type: a page is not JSON. */
      contentType?: string;
    }
  | { kind: 'not-allowed'; status: 405; method: string }
  | { kind: 'sorted'; status: 200; file: string; terms: OrderTerm[] }
  /** A list filtered, searched or ordered at request time, from the records the build wrote for it. */
  | { kind: 'query'; status: 200; query: ListQuery };

const NOT_FOUND: Answer = { kind: 'file', status: 404, file: NOT_FOUND_FILE };
const INVALID_PAGE: Answer = { kind: 'file', status: 404, file: INVALID_PAGE_FILE };
const byPath = new WeakMap<readonly Routed[], ReadonlyMap<string, Routed>>();

/** The resources by their path, made once per list of resources. */
function pathsOf(resources: readonly Routed[]): ReadonlyMap<string, Routed> {
  let paths = byPath.get(resources);
  if (paths === undefined) {
    paths = new Map(resources.map((resource) => [resource.path, resource]));
    byPath.set(resources, paths);
  }
  return paths;
}

/** Query parameters as Django's QueryDict.get reads them: the last value of a key wins. */
function lastValues(search: string): Map<string, string> {
  return new Map(new URLSearchParams(search));
}

function decodePath(rawPath: string): string | null {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    return null;
  }
}

/**
 * Answers a request the way the DRF service does, in its order: the URL (APPEND_SLASH, 404),
 * content negotiation (`format`), the method, then the list's filter and pagination.
 */
export function resolve(method: string, rawUrl: string, resources: readonly Routed[]): Answer {
  const queryStart = rawUrl.indexOf('?');
  const rawPath = queryStart < 0 ? rawUrl : rawUrl.slice(0, queryStart);
  const search = queryStart < 0 ? '' : rawUrl.slice(queryStart + 1);
  const path = decodePath(rawPath);
  if (path === null) return NOT_FOUND;
  if (path === REFERENCE_DOCUMENT.path) {
    // Its file exists only when the build wrote the page: without it, the API's 404, whatever the method.
    if (method !== 'GET' && method !== 'HEAD') return NOT_FOUND;
    const { file, contentType } = REFERENCE_DOCUMENT;
    return { kind: 'file', status: 200, file, contentType, ifMissing: NOT_FOUND };
  }
  const paths = pathsOf(resources);
  const resource = paths.get(path);
  if (resource === undefined) {
    if (paths.has(`${path}/`)) {
      // The decoded path, as Django's APPEND_SLASH writes it (`/%63ompany` → `/company/`).
      return { kind: 'redirect', status: 301, location: `${path}/${search ? `?${search}` : ''}` };
    }
    return NOT_FOUND;
  }
  const params = lastValues(search);
  const format = params.get('format') ?? '';
  if (format !== '' && !(FORMATS as readonly string[]).includes(format)) return NOT_FOUND;
  if (method === 'OPTIONS') return { kind: 'file', status: 200, file: optionsFile(resource.name) };
  if (method !== 'GET' && method !== 'HEAD') return { kind: 'not-allowed', status: 405, method };

  const query = readListQuery(resource, params, search);
  if (query !== undefined) return { kind: 'query', status: 200, query };
  if (resource.orderingFields.length > 0) {
    const terms = parseOrdering(params.get('ordering') ?? '', resource.orderingFields);
    if (terms.length > 1) return { kind: 'sorted', status: 200, file: fileFor(path, {}), terms };
    const query: Record<string, string> = terms.length === 1 ? { ordering: formatOrdering(terms) } : {};
    return { kind: 'file', status: 200, file: fileFor(path, query) };
  }
  if (resource.paginated) {
    const query: Record<string, string> = format === '' ? {} : { format };
    const rawPage = params.get('page');
    if (rawPage !== undefined) {
      const page = parsePage(rawPage);
      if (page === null) return INVALID_PAGE;
      if (page !== '1') query.page = page;
    }
    return { kind: 'file', status: 200, file: fileFor(path, query), ifMissing: INVALID_PAGE };
  }
  return { kind: 'file', status: 200, file: fileFor(path, {}) };
}
