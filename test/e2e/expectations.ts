// The one place that says which rules a target is known not to meet. Every test title starts
// with a rule id (`[pages.invalid] ...`); the auto fixture in fixtures.ts looks the id up here
// and marks the test with test.fail(true, reason): the assertions stay exactly as strict, the
// run stays green while the target fails, and turns red if the target starts to pass (then
// delete the entry). Never skip a test or loosen an assertion for a target.

/** Rule ids, grouped by the prefix before the dot. The README table is target × rule. */
export const RULES = {
  headers: 'Section 2 headers, exactly once each, on 200, 404, 405 and OPTIONS answers',
  'headers.redirect': 'Section 2 headers on the 301 slash redirect',
  'headers.not-modified': 'A 304 answer to If-None-Match keeps ETag and Vary: Accept (RFC 9110 15.4.5)',
  body: 'Exact bytes of every built route; DRF JSON encoding; the error bodies',
  'methods.head': 'HEAD: status and headers of GET, no body',
  'methods.options': 'OPTIONS: 200 with DRF metadata body',
  'methods.not-allowed': 'POST/PUT/PATCH/DELETE: 405 with body and headers',
  'paths.slash-redirect': 'A list path without its slash: 301 to the slash, query kept',
  'paths.not-found': 'Unknown paths: 404 {"detail":"Not found."}',
  'paths.traversal': 'Traversal and file paths never reach a file: 404 Not found',
  'paths.absolute-form': 'An absolute-form request-target (RFC 9112 3.2.2) is answered as its path',
  format: 'format=api, format=json and an empty format give the same JSON',
  'format.unknown': 'Any other format: 404 Not found',
  'format.links': 'Texture page links keep the format',
  ordering: 'Event ordering by one field, ascending and descending',
  'ordering.multi': 'Event ordering by several comma-separated fields',
  'ordering.invalid': 'Invalid ordering terms dropped; none left: default order',
  pages: 'Texture pagination: page=N, page=last, next/previous links',
  'pages.invalid': 'Invalid pages: 404 {"detail":"Invalid page."}',
  order: 'Record order of each list',
  query: 'Query strings as Django reads them (decoding, repeated and unknown keys)',
} as const;

export type RuleId = keyof typeof RULES;

/**
 * Target name → rule id → why that target cannot meet the rule (cite the host's docs or
 * source). A rule listed here marks every test of that rule id on that target.
 */
export const KNOWN_DIFFERENCES: Readonly<Record<string, Partial<Record<RuleId, string>>>> = {
  local: {},
};

/**
 * Target name → exact test title → a bug of the project (not a limit of the host) that a test
 * shows. Same mechanism as above, per test: remove the entry together with the fix.
 */
export const KNOWN_BUGS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  local: {},
};

const TITLE = /^\[([a-z.-]+)\] /;

/** The rule id a title starts with; throws for a title without a known one. */
export function ruleOf(title: string): RuleId {
  const id = TITLE.exec(title)?.[1];
  if (id === undefined || !(id in RULES)) {
    throw new Error(`test title must start with "[<rule id>] " using an id of RULES in expectations.ts: ${title}`);
  }
  return id as RuleId;
}

/** Why `target` is expected to fail the test titled `title`, or undefined. */
export function expectedFailure(target: string, title: string): string | undefined {
  const rule = ruleOf(title);
  const difference = KNOWN_DIFFERENCES[target]?.[rule];
  if (difference !== undefined) return `known difference of ${target} for [${rule}]: ${difference}`;
  const bug = KNOWN_BUGS[target]?.[title];
  return bug === undefined ? undefined : `known bug: ${bug}`;
}
