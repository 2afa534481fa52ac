// The `_headers` rules on Netlify. The function answers the paths of its config (the lists and
// the documents beside the API) and applies every rule itself, on the path as asked. Every other path
// is answered by the 404 rule with one static file, and netlify dev gives that file the rules of
// its own path, /_errors/not-found.json, whatever path was asked: one set of headers for every
// path outside the function's, with no invocation. So a rule holds on Netlify as on the other
// targets only if it matches every path (`/*`: the file's path too) or only paths the function
// answers (a list's path, `/company/`); any other is refused. A rewrite per pattern to a copy of
// the file with headers of its own was weighed and left out: Netlify matches a rewrite's path
// case-insensitively, with or without its trailing slash, and only with a trailing `*`, where
// `_headers` patterns are matched as written, so the copies would need rules for every overlap.
//
// Netlify gives a name that several matching rules set the value of the last one
// (@netlify/headers-parser: "the later one overrides (does not concatenate)"), where the project
// joins them; a netlify.toml rule for the file's path, read after `_headers`, gives it the joined
// values.

import { type HeaderRule, headersFor } from '../../contract/headers.ts';
import { NOT_FOUND_FILE } from '../../contract/routes.ts';
import { HeadersTargetError } from '../target.ts';
import { netlify } from './target.ts';

/** The path of the file the 404 rule answers every path outside the function's with. */
export const NOT_FOUND_PATH = `/${NOT_FOUND_FILE}`;

/** A pattern every path matches: `/*`. */
const matchesEveryPath = (pattern: string) => /^\/\*+$/.test(pattern);

/**
 * Refuses a rule that would give a path outside `functionPaths` (the function's config: a path
 * without its trailing slash, lower-cased, as Netlify compares them) other headers than the 404
 * file's path gets: a pattern with a `*` that is not `/*` matches paths outside them, and so does
 * a path of its own that is not one of them.
 */
export function refuseStaticOnlyRules(rules: readonly HeaderRule[], functionPaths: readonly string[]): void {
  const functions = new Set(functionPaths);
  for (const { pattern, headers } of rules) {
    if (headers.length === 0 || matchesEveryPath(pattern)) continue;
    if (!pattern.includes('*') && functions.has(pattern.replace(/\/$/, '').toLowerCase())) continue;
    const example = functionPaths[0] === undefined ? '' : `a list's path (${functionPaths[0]}/) or `;
    throw new HeadersTargetError(
      netlify.name,
      pattern,
      `matches paths outside the lists, whose 404 Netlify sends as one static file with the headers of ${NOT_FOUND_PATH}: write it for ${example}every path (/*)`,
    );
  }
}

/** A TOML key: bare where it can be, quoted otherwise (`X-A` bare, `X.A` quoted). */
const tomlKey = (name: string) => (/^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name));

/**
 * netlify.toml's rule for the 404 file: each header the rules give its path, joined as on the
 * other targets, under each spelling a rule uses (netlify-cli keeps names apart by their case,
 * and the later spelling would win).
 */
export function notFoundHeadersToml(rules: readonly HeaderRule[]): string {
  const joined = headersFor(rules, NOT_FOUND_PATH);
  const canonical = new Map(Object.keys(joined).map((name) => [name.toLowerCase(), name]));
  const spellings = new Set(rules.flatMap((rule) => Object.keys(headersFor([rule], NOT_FOUND_PATH))));
  if (spellings.size === 0) return '';
  const values = [...spellings].map(
    (name) => `    ${tomlKey(name)} = ${JSON.stringify(joined[canonical.get(name.toLowerCase()) as string])}`,
  );
  return `
# The 404 of every path outside the function's is this file: the headers _headers gives it,
# joined where several rules set one (Netlify would keep the last value).
[[headers]]
  for = ${JSON.stringify(NOT_FOUND_PATH)}
  [headers.values]
${values.join('\n')}
`;
}
