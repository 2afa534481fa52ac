// What `npm run verify` asks both sides: every request with a file of its own in the route table
// (every list, every ordering, every page with and without `format`), then the answers
// resolve() decides without one: an ordering by several fields, HEAD, OPTIONS, each rejected
// method, the missing slash, an unknown path, an unknown format and invalid pages.

import { formatOrdering } from '../contract/ordering.ts';
import { orderingsOf, REJECTED_METHODS, type Route, type Routed, requestOf } from '../contract/routes.ts';

export interface VerifyRequest {
  method: string;
  /** Relative to each side's base URL, which may hold a path prefix on the service: `event/?ordering=-id`. */
  url: string;
  /** Set where the contract departs from Django on purpose (docs/contract.md, section 8). */
  departure?: Departure;
}

/** What the contract decides for one answer, each with the note verify prints when it is all that differs. */
export interface Departure {
  /** The service's HTML page of its own (text/html) is answered with the API's JSON. */
  page?: string;
  /** The build's answer carries the contract's headers, whatever the service sends there. */
  headers?: string;
  /**
   * The body's bytes are the contract's own (Django has no JSON there to copy): a service's JSON
   * of the same values, written otherwise, is no difference.
   */
  ownBytes?: boolean;
}

// Django's own 404 is an HTML page; a service with a handler404 of its own may answer JSON, but
// without the headers DRF adds to its views' answers. The contract decides both.
const UNKNOWN_PATH: Departure = {
  page: "Django's 404 page is HTML, the build's is JSON with the API's headers (docs/contract.md, section 8, decisions 1 and 2)",
  headers:
    "the build's 404 carries the API's headers, as the contract decides for every 404 (docs/contract.md, section 8, decision 2)",
  ownBytes: true,
};
const REDIRECT_NOTE =
  "Django's redirect is text/html, the build's has the API's headers (docs/contract.md, section 8, decision 2)";
const MISSING_SLASH: Departure = { page: REDIRECT_NOTE, headers: REDIRECT_NOTE };
// DRF's default renderers answer `format=api` with the browsable API; the description saw JSON there.
const BROWSABLE_API: Departure = {
  page: "DRF's browsable API is an HTML page, the build answers the JSON (docs/contract.md, section 8, decision 11)",
};

/** `/event/` → `event/`: paths relative to a base URL that ends with a slash. */
const relative = (path: string) => path.slice(1);

/** An ordering by two fields, one each way (`-name,slug`), which no file answers; none for a resource without two. */
function severalFields(resource: Routed): string | undefined {
  const terms = orderingsOf(resource.orderingFields).flat();
  const descending = terms.find((term) => term.descending && term.field !== 'id');
  const ascending = terms.find((term) => !term.descending && term.field !== descending?.field);
  return descending && ascending ? formatOrdering([descending, ascending]) : undefined;
}

/**
 * The requests to ask, in the order they are reported; `routes` is the build's route table, of
 * the lists `resources` declares.
 */
export function verifyRequests(routes: readonly Route[], resources: readonly Routed[]): VerifyRequest[] {
  const get = (url: string, departure?: Departure): VerifyRequest =>
    departure === undefined ? { method: 'GET', url } : { method: 'GET', url, departure };
  const lists = resources.map((resource) => relative(resource.path));
  const ordered = routes.find((route) => route.query.ordering !== undefined);
  const browsable = (url: string) => get(url, /[?&]format=api(&|$)/.test(url) ? BROWSABLE_API : undefined);
  // Without `format`, a paginated list's routes with a page are `page=last` and pages 2..N: N of them.
  const invalidPages = (resource: Routed) => {
    const lastPage = routes.filter(
      (route) => route.resource === resource.name && route.query.format === undefined && route.query.page,
    ).length;
    return [get(`${relative(resource.path)}?page=0`), get(`${relative(resource.path)}?page=${lastPage + 1}`)];
  };
  return [
    ...routes.map((route) => browsable(relative(requestOf(route.file, resources) ?? route.path))),
    // Sorted at request time by the deploy targets with code, so it has no file.
    ...resources.flatMap((resource) => {
      const ordering = severalFields(resource);
      return ordering === undefined ? [] : [get(`${relative(resource.path)}?ordering=${ordering}`)];
    }),
    ...lists.map((url) => ({ method: 'HEAD', url })),
    ...lists.map((url) => ({ method: 'OPTIONS', url })),
    ...lists.flatMap((url) => REJECTED_METHODS.map((method) => ({ method, url }))),
    ...lists.map((url) => get(url.slice(0, -1), MISSING_SLASH)),
    // The redirect keeps the query.
    ...(ordered
      ? [get(relative(`${ordered.path.slice(0, -1)}?ordering=${ordered.query.ordering}`), MISSING_SLASH)]
      : []),
    get('no-such-list/', UNKNOWN_PATH),
    ...lists.slice(0, 1).map((url) => get(`${url}?format=no-such-format`)),
    ...resources.filter((resource) => resource.paginated).flatMap(invalidPages),
  ];
}
