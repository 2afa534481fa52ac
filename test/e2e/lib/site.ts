// Helpers over the build result: the URL a route answers and the texture page links.

import type { Route } from '../../../scripts/contract/routes.ts';
import { TEXTURE_PATH } from './contract.ts';

/** `/event/?ordering=-id` for a route of the table (the canonical request it is built for). */
export function urlOf(route: Route): string {
  const query = new URLSearchParams(Object.entries(route.query)).toString();
  return query ? `${route.path}?${query}` : route.path;
}

/**
 * The absolute link to texture page `n` as DRF builds it: keys sorted, `page` left out for
 * page 1. Written out here (not taken from the project) so the test states the expected text.
 */
export function textureLink(baseUrl: string, n: number, format?: string): string {
  const parts = [...(format ? [`format=${format}`] : []), ...(n > 1 ? [`page=${n}`] : [])];
  return `${baseUrl}${TEXTURE_PATH}${parts.length ? `?${parts.join('&')}` : ''}`;
}

export interface TexturePage {
  count: number;
  next: string | null;
  previous: string | null;
  results: Array<{ id: string; name: string; texture: string; categories: string[] }>;
}
