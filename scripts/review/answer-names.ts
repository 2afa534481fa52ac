// The request a file of the output answers, as the report names it: `event/ordering=-id.json` is
// `/event/?ordering=-id`, `_options/company.json` is `OPTIONS /company/`. The names of the files
// are the route table's (contract/routes.ts), read backwards.

import {
  INVALID_PAGE_FILE,
  methodNotAllowedFile,
  NOT_FOUND_FILE,
  optionsFile,
  REJECTED_METHODS,
  RESOURCES,
  requestOf,
  UNSUPPORTED_ORDERING_FILE,
} from '../contract/routes.ts';

/** The fixed bodies (OPTIONS metadata and the errors), by file. */
const FIXED_BODIES = new Map<string, string>([
  [NOT_FOUND_FILE, '404 Not found'],
  [INVALID_PAGE_FILE, '404 Invalid page'],
  [UNSUPPORTED_ORDERING_FILE, '400 unsupported ordering'],
  ...REJECTED_METHODS.map((method): [string, string] => [methodNotAllowedFile(method), `405 ${method}`]),
  ...RESOURCES.map((resource): [string, string] => [optionsFile(resource.name), `OPTIONS ${resource.path}`]),
]);

/** The request a file answers; undefined for a file that is not an answer (`_headers`, `_redirects`). */
export function answerOf(file: string): string | undefined {
  return FIXED_BODIES.get(file) ?? requestOf(file);
}

/** Whether the file is a fixed body: OPTIONS metadata or an error. */
export function isFixedBody(file: string): boolean {
  return FIXED_BODIES.has(file);
}
