// What `npm run verify` asks both sides: every request with a file of its own in the route table
// (every list, every ordering, every texture page with and without `format`), then the answers
// resolve() decides without one: an ordering by several fields, HEAD, OPTIONS, each rejected
// method, the missing slash, an unknown path, an unknown format and invalid pages.

import { formatOrdering } from '../contract/ordering.ts';
import {
  eventOrderings,
  REJECTED_METHODS,
  RESOURCES,
  type ResourceName,
  type Route,
  requestOf,
  TEXTURES,
} from '../contract/routes.ts';

export interface VerifyRequest {
  method: string;
  /** Relative to each side's base URL, which may hold a path prefix on the service: `event/?ordering=-id`. */
  target: string;
  /**
   * Set where the contract departs from Django on purpose: Django or DRF answers with a page of
   * its own (text/html), the build with the API's headers and a JSON body (docs/contract.md).
   */
  departure?: string;
}

const UNKNOWN_PATH =
  "Django's 404 page is HTML, the build's is JSON with the API's headers (docs/contract.md, section 8, decisions 1 and 2)";
const MISSING_SLASH =
  "Django's redirect is text/html, the build's has the API's headers (docs/contract.md, section 8, decision 2)";
// DRF's default renderers answer `format=api` with the browsable API; the description saw JSON there.
const BROWSABLE_API =
  "DRF's browsable API is an HTML page, the build answers the JSON (docs/contract.md, section 8, decision 11)";

/** `/event/` → `event/`: paths relative to a base URL that ends with a slash. */
const relative = (path: string) => path.slice(1);

/** The requests to ask, in the order they are reported; `routes` is the build's route table. */
export function verifyRequests(routes: readonly Route[]): VerifyRequest[] {
  const get = (target: string, departure?: string): VerifyRequest =>
    departure === undefined ? { method: 'GET', target } : { method: 'GET', target, departure };
  const lists = RESOURCES.map((resource) => relative(resource.path));
  const list = (name: ResourceName) => relative(RESOURCES.find((resource) => resource.name === name)?.path ?? '/');
  // Without `format`, the texture routes with a page are `page=last` and pages 2..N: N of them.
  const lastPage = routes.filter(
    (route) => route.resource === TEXTURES && route.query.format === undefined && route.query.page,
  ).length;
  // Two fields, one each way (`-name,slug`): an ordering that no file answers.
  const terms = eventOrderings().flat();
  const descending = terms.find((term) => term.descending && term.field !== 'id');
  const ascending = terms.find((term) => !term.descending && term.field !== descending?.field);
  const severalFields = formatOrdering([descending, ascending].filter((term) => term !== undefined));
  const ordered = routes.find((route) => route.query.ordering !== undefined);
  const browsable = (target: string) => get(target, /[?&]format=api(&|$)/.test(target) ? BROWSABLE_API : undefined);
  return [
    ...routes.map((route) => browsable(relative(requestOf(route.file) ?? route.path))),
    // Sorted at request time by the targets with code, so it has no file.
    get(`${list('event')}?ordering=${severalFields}`),
    ...lists.map((target) => ({ method: 'HEAD', target })),
    ...lists.map((target) => ({ method: 'OPTIONS', target })),
    ...lists.flatMap((target) => REJECTED_METHODS.map((method) => ({ method, target }))),
    ...lists.map((target) => get(target.slice(0, -1), MISSING_SLASH)),
    // The redirect keeps the query.
    ...(ordered
      ? [get(relative(`${ordered.path.slice(0, -1)}?ordering=${ordered.query.ordering}`), MISSING_SLASH)]
      : []),
    get('no-such-list/', UNKNOWN_PATH),
    get(`${list('company')}?format=no-such-format`),
    get(`${list(TEXTURES)}?page=0`),
    get(`${list(TEXTURES)}?page=${lastPage + 1}`),
  ];
}
