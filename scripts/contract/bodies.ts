// The bodies DRF sends besides the lists: OPTIONS metadata and error details. The build writes
// them as files for the web servers, which can only send files; the request handler sends them
// from here (fixedBody), so no adapter has to read them.

import { encode } from './json.ts';
import { NOT_ACCEPTABLE } from './negotiation.ts';
import { INVALID_PAGE_FILE, NOT_FOUND_FILE, optionsFile, type Routed } from './routes.ts';

/** SimpleMetadata of a read-only list view without a docstring. */
export function optionsBody(title: string): string {
  return encode({
    name: title,
    description: '',
    renders: ['application/json', 'text/html'],
    parses: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
  });
}

export const NOT_FOUND_BODY = encode({ detail: 'Not found.' });
export const INVALID_PAGE_BODY = encode({ detail: 'Invalid page.' });
/** exceptions.NotAcceptable: no renderer for the request's Accept header. */
export const NOT_ACCEPTABLE_BODY = encode({ detail: NOT_ACCEPTABLE });
/** exceptions.ParseError: what the local server answers a request line HTTP does not allow. */
export const MALFORMED_BODY = encode({ detail: 'Malformed request.' });
/** Django's handler500 for an API view. */
export const SERVER_ERROR_BODY = encode({ detail: 'A server error occurred.' });
/** Not DRF's: what a target without code answers to an ordering by several fields. */
export const UNSUPPORTED_ORDERING_BODY = encode({
  detail: 'This host cannot order by several fields; use a single field, such as ordering=-start_date.',
});

/**
 * Not DRF's: what a target without code answers to a filter, search or ordering of the settings
 * file it has no file for (any but one filter of `prerendered_filters` with a value the records
 * hold), instead of the unfiltered list.
 */
export const UNSUPPORTED_QUERY_BODY = encode({
  detail:
    'This host answers only a filter on one field of prerendered_filters, with a value the records hold; other filters, search and ordering need a host that runs code.',
});

/** exceptions.MethodNotAllowed: the method's name as the client sent it. */
export function methodNotAllowedBody(method: string): string {
  return encode({ detail: `Method "${method}" not allowed.` });
}

const fixedBodies = new WeakMap<readonly Routed[], ReadonlyMap<string, string>>();

/** The body of an output file that is the same in every build (an error or OPTIONS body), by its path. */
export function fixedBody(file: string, resources: readonly Routed[]): string | undefined {
  let bodies = fixedBodies.get(resources);
  if (bodies === undefined) {
    bodies = new Map([
      [NOT_FOUND_FILE, NOT_FOUND_BODY],
      [INVALID_PAGE_FILE, INVALID_PAGE_BODY],
      ...resources.map((resource) => [optionsFile(resource.name), optionsBody(resource.title)] as const),
    ]);
    fixedBodies.set(resources, bodies);
  }
  return bodies.get(file);
}
