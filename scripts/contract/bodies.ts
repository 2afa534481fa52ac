// The bodies DRF sends besides the lists: OPTIONS metadata and error details.

import { encode } from './json.ts';

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
/** Not DRF's: what a host without code answers to an ordering by several fields. */
export const UNSUPPORTED_ORDERING_BODY = encode({
  detail: 'This host cannot order by several fields; use a single field, such as ordering=-start_date.',
});

/** exceptions.MethodNotAllowed: the method's name as the client sent it. */
export function methodNotAllowedBody(method: string): string {
  return encode({ detail: `Method "${method}" not allowed.` });
}
