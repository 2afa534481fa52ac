// Helpers over the build result: the URL a route answers and the page links of a paginated list.

import type { Route } from '../../../scripts/contract/routes.ts';

/** `/event/?ordering=-id` for a route of the table (the canonical request it is built for). */
export function urlOf(route: Route): string {
  const query = new URLSearchParams(Object.entries(route.query)).toString();
  return query ? `${route.path}?${query}` : route.path;
}

/**
 * The absolute link to page `n` of the paginated list at `listPath` as DRF builds it: keys sorted,
 * `page` left out for page 1. Written out here (not taken from the project) so the test states the
 * expected text.
 */
export function pageLinkOf(baseUrl: string, listPath: string, n: number, format?: string): string {
  const parts = [...(format ? [`format=${format}`] : []), ...(n > 1 ? [`page=${n}`] : [])];
  return `${baseUrl}${listPath}${parts.length ? `?${parts.join('&')}` : ''}`;
}

/** A page of any paginated list: DRF's envelope around records with an id. */
export interface Page {
  count: number;
  next: string | null;
  previous: string | null;
  results: Array<{ id: string | number }>;
}
