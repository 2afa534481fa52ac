// What the nginx, Caddy and Apache configs answer, taken from the route table: the files of each
// list (per `format`), the event orderings, the texture page file names, the error files, and
// the one set of headers every answer carries. The three emitters only translate this into
// their own syntax, so the answers cannot drift from what the build writes.

import { methodNotAllowedBody } from '../../contract/bodies.ts';
import { type HeaderRule, headersFor } from '../../contract/headers.ts';
import {
  FORMATS,
  fileFor,
  INVALID_PAGE_FILE,
  methodNotAllowedFile,
  NOT_FOUND_FILE,
  optionsFile,
  type PageRoute,
  REJECTED_METHODS,
  RESOURCES,
  type ResourceName,
  type Route,
  type Routed,
  UNSUPPORTED_ORDERING_FILE,
} from '../../contract/routes.ts';
import type { TargetContext } from '../target.ts';

export interface ResourcePlan {
  name: ResourceName;
  /** `/company/` */
  path: string;
  /** `/company`: answered with a 301 to the path. */
  noSlash: string;
  optionsFile: string;
  /** The list without ordering or page, per `format` value ('' = none): `virtualbooth-texture/format=api.json`. */
  listFile: ReadonlyMap<string, string>;
}

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
  event: ResourcePlan & { orderings: readonly OrderingPlan[] };
  texture: ResourcePlan & {
    /** The file of a page (not 1) with a format ('' = none); `page` is spliced in as it is. */
    pageFile(format: string, page: string): string;
  };
  notFoundFile: string;
  invalidPageFile: string;
  unsupportedOrderingFile: string;
  /** Methods with a pre-rendered 405 body, and its file. */
  rejectedMethods: readonly string[];
  methodNotAllowedFile(method: string): string;
  /** The 405 body around a method name, for methods without a file (`{"detail":"Method \"` + M + …). */
  methodNotAllowedBody: readonly [before: string, after: string];
  /** The headers of every answer, Content-Type included, in `_headers` order. */
  headers: ReadonlyArray<readonly [name: string, value: string]>;
  /** The pages beside the API (the reference), each a GET or HEAD of one path, with its own Content-Type. */
  pages: readonly PageRoute[];
}

/** Query keys the lists read; the route table's own keys must be among them. */
export const QUERY_KEYS = { format: 'format', ordering: 'ordering', page: 'page' } as const;

/** The one list with orderings, and the one paginated list, that these configurations route. */
const ORDERED = RESOURCES.find((resource) => resource.orderingFields.length > 0) as Routed;
const PAGINATED = RESOURCES.find((resource) => resource.paginated) as Routed;

/**
 * The headers of `_headers` for every path these configs answer. A web server config here
 * sets one set of headers for all of them, so rules that give some paths other headers than
 * the rest are refused with the paths that differ, rather than applied to the wrong answers.
 */
export function uniformHeaders(rules: readonly HeaderRule[], target: string): Array<[string, string]> {
  const paths = [
    ...RESOURCES.flatMap((resource) => [resource.path, resource.path.slice(0, -1)]),
    // Unknown paths, the output's own file paths and traversal attempts: all answered with 404s.
    '/',
    '/nope/',
    `/${NOT_FOUND_FILE}`,
    `/${fileFor((RESOURCES[0] as Routed).path, {})}`,
    '/_headers',
  ];
  const [first, ...others] = paths.map((path) => ({
    path,
    text: JSON.stringify(Object.entries(headersFor(rules, path))),
  }));
  const differing = others.filter((other) => other.text !== first?.text);
  if (differing.length > 0) {
    throw new Error(
      `target ${target}: _headers gives ${differing.map((difference) => difference.path).join(', ')} other headers than ${first?.path}; ` +
        `this target applies one set of headers to every answer (leave it out with --target)`,
    );
  }
  return Object.entries(headersFor(rules, paths[0] as string));
}

function resourcePlan(name: ResourceName, routes: readonly Route[]): ResourcePlan {
  const path = `/${name}/`;
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
  return { name, path, noSlash: path.slice(0, -1), optionsFile: optionsFile(name), listFile };
}

/** Every single-field ordering the route table has a file for, plus `id` (the default order). */
function orderingPlans(routes: readonly Route[], defaultFile: string): OrderingPlan[] {
  const planned = routes.filter(
    (route) => route.resource === ORDERED.name && route.query[QUERY_KEYS.ordering] !== undefined,
  );
  const plans = planned.map((route) => ({ term: route.query[QUERY_KEYS.ordering] as string, file: route.file }));
  for (const plan of plans) {
    if (plan.term.includes(',')) throw new Error(`route table: ordering ${plan.term} has several fields`);
  }
  // `id` ascending is the default order; a field with no file of either direction is a bug.
  plans.push({ term: 'id', file: defaultFile });
  for (const field of ORDERED.orderingFields) {
    if (!plans.some((plan) => plan.term === field) || !plans.some((plan) => plan.term === `-${field}`)) {
      throw new Error(`route table: no file for ordering by ${field} in both directions`);
    }
  }
  return plans;
}

/** File names the configs write as bare words (and splice a page number into). */
const SAFE_FILE = /^[-_.=/A-Za-z0-9]+$/;

export function serverPlan(context: TargetContext, target: string): ServerPlan {
  const { routes } = context;
  for (const route of routes) {
    const unknown = Object.keys(route.query).filter((key) => !Object.values(QUERY_KEYS).includes(key as never));
    if (unknown.length > 0) throw new Error(`route table: ${target} cannot route on ${unknown.join(', ')}`);
    if (!SAFE_FILE.test(route.file))
      throw new Error(`route table: ${target} cannot name the file ${route.file} unquoted`);
  }
  const resources = RESOURCES.map((resource) => resourcePlan(resource.name, routes));
  const byName = (name: ResourceName) => resources.find((resource) => resource.name === name) as ResourcePlan;
  const event = byName(ORDERED.name as ResourceName);
  const texture = byName(PAGINATED.name as ResourceName);
  const marker = 'XMETHODX';
  const [before, after] = methodNotAllowedBody(marker).split(marker) as [string, string];
  return {
    resources,
    formats: FORMATS,
    event: { ...event, orderings: orderingPlans(routes, event.listFile.get('') as string) },
    texture: {
      ...texture,
      pageFile: (format, page) => fileFor(texture.path, format === '' ? { page } : { format, page }),
    },
    notFoundFile: NOT_FOUND_FILE,
    invalidPageFile: INVALID_PAGE_FILE,
    unsupportedOrderingFile: UNSUPPORTED_ORDERING_FILE,
    rejectedMethods: REJECTED_METHODS,
    methodNotAllowedFile,
    methodNotAllowedBody: [before, after],
    headers: uniformHeaders(context.headerRules, target),
    pages: context.pages,
  };
}
