// Every request the import makes of a service, relative to its base URL: the import's tests
// expect the build to answer each as the service did, and the bench serves them to the import's
// baseline.

import type { Resource } from '../../../scripts/contract/resources/resource.ts';
import { pageUrl } from '../../../scripts/migrate/read-service.ts';

/** With `pages` pages in each paginated list (one number for all, or each list's by resource name). */
export function importUrls(pages: number | ReadonlyMap<string, number>, resources: readonly Resource[]): string[] {
  const pagesOf = (resource: Resource) => (typeof pages === 'number' ? pages : (pages.get(resource.name) ?? 1));
  return [
    ...resources.filter((resource) => !resource.paginated).map((resource) => pageUrl(resource, 1)),
    ...resources
      .filter((resource) => resource.paginated)
      .flatMap((resource) =>
        Array.from({ length: Math.max(1, pagesOf(resource)) }, (_, i) => pageUrl(resource, i + 1)),
      ),
  ];
}
