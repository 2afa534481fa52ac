// The requests the end-to-end suite makes of the lists, enumerated from the route table
// (scripts/contract/routes.ts) instead of written out: every route of planRoutes() by GET and
// HEAD, and for each list what its declaration calls for: OPTIONS and the rejected methods, the
// formats, the path without its slash by every method, an ordering by several fields or by an
// unknown one where it orders, and the pages that are not pages where it is paginated. resolve()
// gives the status each must get.

import {
  CONTRACT_METHODS,
  FORMATS,
  REJECTED_METHODS,
  type Route,
  type Routed,
  resolve,
} from '../../../scripts/contract/routes.ts';
import { urlOf } from './site.ts';

export interface CorpusRequest {
  method: string;
  /** The request-target: path and query. */
  target: string;
  /** The status the contract gives it (resolve(), with a page the build has no file for Invalid page). */
  status: number;
}

/** The odd requests of one list, beside its routes. */
function oddTargets(resource: Routed): Array<[method: string, target: string]> {
  const { path } = resource;
  const bare = path.slice(0, -1);
  const read = (target: string): Array<[string, string]> => [
    ['GET', target],
    ['HEAD', target],
  ];
  const targets: Array<[string, string]> = [
    ...read(`${path}?format=xml`),
    ...read(`${path}?format=`),
    ...FORMATS.map((format): [string, string] => ['OPTIONS', `${path}?format=${format}`]),
    ['OPTIONS', path],
    ...REJECTED_METHODS.map((method): [string, string] => [method, path]),
    ...CONTRACT_METHODS.map((method): [string, string] => [method, bare]),
    ['GET', `${bare}?format=api&page=2`],
  ];
  const [first, second] = resource.orderingFields;
  if (first !== undefined && second !== undefined) {
    targets.push(...read(`${path}?ordering=-${first},${second}`), ...read(`${path}?ordering=bogus`));
  }
  if (resource.paginated) {
    for (const page of ['1', '0', '9999', 'abc']) targets.push(...read(`${path}?page=${page}`));
  }
  return targets;
}

/** The corpus of a build whose routes are `routes`, for `resources`. */
export function e2eCorpus(routes: readonly Route[], resources: readonly Routed[]): CorpusRequest[] {
  const files = new Set(routes.map((route) => route.file));
  const statusOf = (method: string, target: string): number => {
    const answer = resolve(method, target, resources);
    if (answer.kind === 'file' && answer.ifMissing !== undefined && !files.has(answer.file))
      return answer.ifMissing.status;
    return answer.status;
  };
  const pairs: Array<[string, string]> = [
    ...routes.flatMap(
      (route): Array<[string, string]> => [
        ['GET', urlOf(route)],
        ['HEAD', urlOf(route)],
      ],
    ),
    ...resources.flatMap(oddTargets),
  ];
  return pairs.map(([method, target]) => ({ method, target, status: statusOf(method, target) }));
}
