// The request a file of the output answers, as the report names it: `event/ordering=-id.json` is
// `/event/?ordering=-id`, `_options/company.json` is `OPTIONS /company/`. The names of the files
// are the route table's (contract/routes.ts), read backwards.

import {
  INVALID_PAGE_FILE,
  methodNotAllowedFile,
  NOT_FOUND_FILE,
  optionsFile,
  REJECTED_METHODS,
  type Routed,
  requestOf,
  UNSUPPORTED_ORDERING_FILE,
} from '../contract/routes.ts';

/** How a build's files are named as requests: its fixed bodies, and its lists by the route table. */
export interface AnswerNames {
  /** The request a file answers; undefined for a file that is not an answer (`_headers`, `_redirects`). */
  answerOf(file: string): string | undefined;
  /** Whether the file is a fixed body: OPTIONS metadata or an error. */
  isFixedBody(file: string): boolean;
}

/** The names of the answers of a build of `resources`. */
export function answerNames(resources: readonly Routed[]): AnswerNames {
  const fixedBodies = new Map<string, string>([
    [NOT_FOUND_FILE, '404 Not found'],
    [INVALID_PAGE_FILE, '404 Invalid page'],
    [UNSUPPORTED_ORDERING_FILE, '400 unsupported ordering'],
    ...REJECTED_METHODS.map((method): [string, string] => [methodNotAllowedFile(method), `405 ${method}`]),
    ...resources.map((resource): [string, string] => [optionsFile(resource.name), `OPTIONS ${resource.path}`]),
  ]);
  return {
    answerOf: (file) => fixedBodies.get(file) ?? requestOf(file, resources),
    isFixedBody: (file) => fixedBodies.has(file),
  };
}
