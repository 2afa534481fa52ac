// Deploy target `vercel`: vercel.json for a static deployment of the build output (no functions),
// generated from the route table like Netlify's _redirects (scripts/targets/netlify/redirects.ts, with
// the same answers: targets/query-answers.ts): each list path is rewritten to the file resolve()
// names for the query, with `has` conditions (their `value` is a regular expression: anchored and
// escaped here). A query no file answers is never
// served another file: it gets Vercel's 404 page, which this target makes the JSON 404 body, or
// (an ordering by one unknown term, which DRF ignores) the default list. vercel.json is JSON
// without comments (Vercel rejects unknown keys), so the why is in this file and in README.md.
// `vercel dev` cannot run offline: test/unit/vercel.test.ts checks the file with Vercel's own
// schema and route compiler (@vercel/routing-utils) and evaluates the compiled rewrites.

import { NOT_FOUND_BODY } from '../../contract/bodies.ts';
import type { HeaderRule } from '../../contract/headers.ts';
import {
  type DocumentRoute,
  type FilterRoute,
  FORMATS,
  fileFor,
  filterFile,
  type Route,
  type Routed,
} from '../../contract/routes.ts';
import { SEARCH_PARAM } from '../../contract/search.ts';
import { DEFAULT_OUTPUT_FOLDER } from '../../shared/folders.ts';
import { generatedMarkdownNote } from '../generated-note.ts';
import { combinations, fileAnswer, listKeys, subsets } from '../query-answers.ts';
import type { TargetContext } from '../target.ts';
import { vercel } from './target.ts';

const NAME = vercel.name;
const DEPLOY_DIR = `.deploy/${NAME}`;
/** A path with no file: a rewrite to it ends in Vercel's 404 page (404.html), status 404. */
export const NOWHERE = '/_not-found';
/** An ordering value DRF reads as one term that is not a field (dropped: the default order). */
const UNKNOWN_TERM = '^[A-Za-z0-9_-]+$';

export interface HasQuery {
  type: 'query';
  key: string;
  value?: string;
}
export interface VercelRewrite {
  source: string;
  destination: string;
  has?: HasQuery[];
  missing?: HasQuery[];
}
export interface VercelConfig {
  $schema: string;
  framework: null;
  outputDirectory: string;
  cleanUrls: boolean;
  redirects: Array<{ source: string; destination: string; statusCode: number }>;
  rewrites: VercelRewrite[];
  headers: Array<{ source: string; headers: Array<{ key: string; value: string }> }>;
}

/** A regular expression matching exactly `text`. */
export function exactly(text: string): string {
  return `^${text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`;
}

/**
 * A page number from 2 up, written as DRF writes it in its links (no sign, no leading zero).
 * Each has a file named after it (contract/routes.ts), so one rule that captures the number serves
 * every page: a rule per page would pass Vercel's limit of 2,048 routes at about 680 pages. A
 * number past the last page names no file, which is Vercel's 404, as for any rewrite to a
 * missing file (NOWHERE).
 */
const PAGE_NUMBER = '^(?<page>[2-9]|[1-9][0-9]+)$';
const PAGE_NUMBER_PATTERN = new RegExp(PAGE_NUMBER);
const isPageNumber = (value: string): boolean => PAGE_NUMBER_PATTERN.test(value);

const query = (key: string, value?: string): HasQuery =>
  value === undefined ? { type: 'query', key } : { type: 'query', key, value };
const VALID_FORMAT = query('format', `^(${FORMATS.join('|')})$`);

/**
 * One list path's rewrites, first match wins: for each set of query keys present (more keys
 * first), the exact values that have a file, then the rest of that set: a valid format with an
 * unanswerable ordering or page, then any format (an unknown one: 404).
 */
function listRewrites(path: string, routes: readonly Route[], resources: readonly Routed[]): VercelRewrite[] {
  const { keys, values } = listKeys(path, routes, resources);
  const pageNumbers = (values.get('page') ?? []).filter(isPageNumber);
  const exactValues = new Map(
    [...values].map(([key, list]) => [key, key === 'page' ? list.filter((value) => !isPageNumber(value)) : list]),
  );
  const rewrites: VercelRewrite[] = [];
  for (const subset of subsets(keys)) {
    for (const pairs of combinations(subset, exactValues)) {
      const file = fileAnswer(path, pairs, routes, resources);
      if (file === undefined) continue;
      const conditions = pairs.map(([key, value]) => query(key, exactly(value)));
      rewrites.push({ source: path, destination: `/${file}`, ...(conditions.length ? { has: conditions } : {}) });
    }
    if (subset.includes('page') && pageNumbers.length > 0) {
      for (const pairs of combinations(
        subset.filter((key) => key !== 'page'),
        values,
      )) {
        const fileOf = (page: string) => fileFor(path, Object.fromEntries([...pairs, ['page', page]]));
        const unlike = pageNumbers.find(
          (page) => fileAnswer(path, [...pairs, ['page', page]], routes, resources) !== fileOf(page),
        );
        if (unlike !== undefined) throw new Error(`vercel: page ${unlike} of ${path} is not in ${fileOf(unlike)}`);
        const conditions = [...pairs.map(([key, value]) => query(key, exactly(value))), query('page', PAGE_NUMBER)];
        rewrites.push({ source: path, destination: `/${fileOf(':page')}`, has: conditions });
      }
    }
    if (subset.length === 0) continue;
    const others = subset.filter((key) => key !== 'format');
    if (others.length > 1)
      throw new Error(`vercel: ${path} has several query keys besides format: ${others.join(', ')}`);
    const otherKey = others[0];
    if (otherKey !== undefined) {
      const formats = subset.includes('format')
        ? FORMATS.map((format) => [['format', format] as [string, string]])
        : [[]];
      if (otherKey === 'ordering') {
        // One term that is not a field: DRF drops it, so the list without ordering (for each format).
        for (const pairs of formats) {
          const file = fileAnswer(path, pairs, routes, resources);
          if (file === undefined) throw new Error(`vercel: no file for ${path} ${JSON.stringify(pairs)}`);
          const conditions = [
            ...pairs.map(([key, value]) => query(key, exactly(value))),
            query(otherKey, UNKNOWN_TERM),
          ];
          rewrites.push({ source: path, destination: `/${file}`, has: conditions });
        }
      }
      // Several ordering fields, padding, or a page that is not a file's: an error, never a list.
      rewrites.push({
        source: path,
        destination: NOWHERE,
        has: [...(subset.includes('format') ? [VALID_FORMAT] : []), query(otherKey)],
      });
    }
    // Any other format value: DRF's 404.
    if (subset.includes('format'))
      rewrites.push({ source: path, destination: NOWHERE, has: subset.map((key) => query(key)) });
  }
  return rewrites;
}

/**
 * The rewrites of a list with filters, search or ordering in the settings file, before its own:
 * one filter of `prerendered_filters` alone, with a value written as the build wrote its files
 * (`has` reads the decoded value; spaces around it or another spelling of a number are not
 * matched), and on a paginated list without `format`, is rewritten to its files, each page by one
 * rewrite that captures the number; any other request naming a filter, `search` or (where the
 * settings give it) `ordering` ends in the 404, never the unfiltered list. An ordering of a list
 * that orders itself (the events) goes on to the list's own rewrites.
 */
function settingsRewrites(resource: Routed, filterRoutes: readonly FilterRoute[]): VercelRewrite[] {
  const settings = resource.query;
  if (settings === undefined || settings.filters.length + settings.search.length + settings.ordering.length === 0)
    return [];
  const { path } = resource;
  const keys = [
    ...settings.filters.map((filter) => filter.field),
    ...(settings.search.length > 0 ? [SEARCH_PARAM] : []),
    'ordering',
  ];
  const rewrites: VercelRewrite[] = [];
  for (const route of filterRoutes.filter((each) => each.resource === resource.name)) {
    const kind = settings.filters.find((filter) => filter.field === route.field)?.kind;
    const value =
      kind === 'boolean'
        ? route.value === 'true'
          ? '^(?:1|[tT][rR][uU][eE])$'
          : '^(?:0|[fF][aA][lL][sS][eE])$'
        : exactly(route.value);
    const has = query(route.field, value);
    const others = keys.filter((key) => key !== route.field).map((key) => query(key));
    if (!resource.paginated) {
      const index = `/${filterFile(route.dir)}`;
      rewrites.push(
        { source: path, destination: index, has: [has], missing: [...others, query('format')] },
        { source: path, destination: index, has: [has, VALID_FORMAT], missing: others },
      );
      continue;
    }
    const missing = [...others, query('format')];
    rewrites.push(
      { source: path, destination: `/${filterFile(route.dir)}`, has: [has], missing: [...missing, query('page')] },
      { source: path, destination: `/${filterFile(route.dir)}`, has: [has, query('page', '^1$')], missing },
      { source: path, destination: `/${filterFile(route.dir, 'last')}`, has: [has, query('page', '^last$')], missing },
      {
        source: path,
        destination: `/${filterFile(route.dir, ':page')}`,
        has: [has, query('page', PAGE_NUMBER)],
        missing,
      },
    );
  }
  const refused = resource.orderingFields.length > 0 ? keys.filter((key) => key !== 'ordering') : keys;
  for (const key of refused) rewrites.push({ source: path, destination: NOWHERE, has: [query(key)] });
  return rewrites;
}

/** A `_headers` pattern (`/*`) as a Vercel source (path-to-regexp: `/(.*)`). */
export function headerSource(pattern: string): string {
  return pattern
    .split('*')
    .map((part) => part.replace(/[:()+?{}[\]\\]/g, '\\$&'))
    .join('(.*)');
}

/**
 * `documents` are the documents beside the API (the reference page, when on): each a rewrite of its path to its
 * file, and a header rule after the `_headers` ones, as Vercel lets the last rule that sets a
 * name win, so the document is HTML where `_headers` types every path as JSON. The rule covers the
 * file's own path too: Vercel serves a file there before any rewrite, and HTML typed as JSON is
 * no page for people.
 */
export function vercelConfig(
  routes: readonly Route[],
  rules: readonly HeaderRule[],
  documents: readonly DocumentRoute[],
  resources: readonly Routed[],
  filterRoutes: readonly FilterRoute[] = [],
): VercelConfig {
  return {
    $schema: 'https://openapi.vercel.sh/vercel.json',
    framework: null,
    outputDirectory: DEFAULT_OUTPUT_FOLDER,
    // No .html guessing; trailingSlash is left unset: `true` would 308 every path without a
    // slash (unknown ones too), `false` would redirect /company/ to /company.
    cleanUrls: false,
    redirects: resources.map((resource) => ({
      source: resource.path.slice(0, -1),
      destination: resource.path,
      statusCode: 301,
    })),
    rewrites: [
      ...resources.flatMap((resource) => [
        ...settingsRewrites(resource, filterRoutes),
        ...listRewrites(resource.path, routes, resources),
      ]),
      ...documents.map((document) => ({ source: document.path, destination: `/${document.file}` })),
    ],
    headers: [
      ...rules.map((rule) => ({
        source: headerSource(rule.pattern),
        headers: rule.headers.map(([key, value]) => ({ key, value })),
      })),
      ...documents.flatMap((document) =>
        [document.path, `/${document.file}`].map((source) => ({
          source: headerSource(source),
          headers: [{ key: 'Content-Type', value: document.contentType }],
        })),
      ),
    ],
  };
}

function readme(): string {
  return `${generatedMarkdownNote(NAME)}
# Vercel (static, \`vercel.json\`)

\`vercel.json\` rewrites each list path, and each query that has a file, to that file
(\`rewrites[].has\` with \`type: "query"\`; each \`value\` an anchored, escaped regular expression),
sets the \`_headers\` headers on every path (\`headers[]\`), and redirects \`/company\` to
\`/company/\` with a 301 (\`redirects[]\`). \`404.html\` is the JSON 404 body: Vercel sends it, with
status 404, for every path that no file or rewrite answers. It is written from the route table,
like Netlify's \`_redirects\`; JSON has no comments, so the reasons are in \`scripts/targets/vercel/vercel.ts\`.

Deploy, from the project folder:

\`\`\`sh
npm run build -- --base-url https://api.example.com
rm -rf ${DEPLOY_DIR} && mkdir -p ${DEPLOY_DIR}
cp -R public ${DEPLOY_DIR}/public && rm ${DEPLOY_DIR}/public/_headers
find ${DEPLOY_DIR}/public -type f \\( -name '*.br' -o -name '*.gz' \\) -delete
cp targets/${NAME}/vercel.json ${DEPLOY_DIR}/ && cp targets/${NAME}/404.html ${DEPLOY_DIR}/public/
cd ${DEPLOY_DIR} && npx vercel deploy --prod
\`\`\`

The \`find\` leaves out the build's precompressed \`.br\` and \`.gz\` siblings of the answers:
Vercel compresses answers itself, and would serve the siblings at their own paths.

What it cannot do like the DRF service (a rewrite has no status of its own, and there is no code):

- **Errors have one body.** Every 404 is \`404.html\`, \`{"detail":"Not found."}\`: an unknown
  \`format\` (right), and also an invalid page or a page beyond the last (DRF:
  \`{"detail":"Invalid page."}\`).
- **Orderings.** One field as written (\`-start_date\`), or one unknown term (\`bogus\`, which DRF
  ignores: the default order), is served from its file. Anything else (several fields,
  \`%2C\`, spaces around a term) is the 404, never a list in another order.
- **Pages** only as written (\`page=2\`, \`page=last\`); \`02\` or \` 2\` (DRF: page 2) are the 404.
  One rewrite per format serves every page number (\`(?<page>...)\` in \`has\`, \`:page\` in the
  destination), so \`vercel.json\` does not grow with the catalogue.
- **OPTIONS and other methods**: Vercel's static server answers them itself; no DRF metadata
  body, no 405 \`{"detail":...}\`.
- **The output's own files** (\`/company/index.json\`) are served at their own paths: Vercel serves
  a file before it looks at rewrites.
- **Not known without a deployment**: whether Vercel sends the \`Content-Type\` of \`headers[]\`
  for a \`.json\` file and for 404.html (which it may send as text/html), whether it adds its own
  headers (\`cache-control\`, \`strict-transport-security\`), whether the 301 keeps the query string,
  how \`has\` reads an empty value (\`?format=\`: if as absent, this is DRF's answer; if as present,
  the 404) and a repeated key.

What is checked (test/unit/vercel.test.ts, offline): the file against Vercel's JSON schemas
(\`rewritesSchema\`, \`redirectsSchema\`, \`headersSchema\`, \`hasSchema\` of @vercel/routing-utils, with
ajv); \`getTransformedRoutes()\` compiles it without an error; and the compiled routes, evaluated in
order (first match wins; \`has\` on the decoded last value of a key, an empty value read both ways),
send every route of the route table to its file and every odd query to the file resolve() names
or to the 404. What is not proven: Vercel's router itself (\`vercel dev\` needs a login and the
network, and does not evaluate \`has\` either), its headers, its method handling, its 404 page.
`;
}

/** What vercel.json does with the settings file's filters, search and ordering; nothing without them. */
function settingsNote(resources: readonly Routed[]): string {
  const lists = resources.filter(
    ({ query }) => query && query.filters.length + query.search.length + query.ordering.length > 0,
  );
  if (lists.length === 0) return '';
  return `
## Filters, search and ordering of the settings file

The settings file gives ${lists.map(({ path }) => `\`${path}\``).join(', ')} filters, search or ordering.
Without code, \`vercel.json\` rewrites a filter of \`prerendered_filters\` alone, its value exactly
as written (\`has\` reads the decoded value), to the files the build wrote for that value
(\`<list>/_filters/<field>/<value>/\`, the bytes the local server sends, pages included); every
other filter, search or settings ordering of those lists is the 404, never the whole list. Each
value takes two rewrites (four on a paginated list) of the 2,048 routes the build checks. See
docs/filters.md in the project.
`;
}

/** The files of targets/vercel/. */
export function vercelFiles({
  routes,
  documents: pages,
  headerRules,
  resources,
  filterRoutes,
}: TargetContext): Map<string, string> {
  return new Map([
    ['vercel.json', `${JSON.stringify(vercelConfig(routes, headerRules, pages, resources, filterRoutes), null, 2)}\n`],
    ['404.html', NOT_FOUND_BODY],
    ['README.md', readme() + settingsNote(resources)],
  ]);
}
