// Deploy target `cloudflare-pages-static`: Cloudflare Pages without code, only `_headers` and a
// Pages `_redirects`. Pages matches redirect rules on the path alone and rejects Netlify's query
// conditions (wrangler drops each such line with a warning), so Netlify's _redirects would be
// silently half-applied. This target gets its own `_redirects`, with only rules Pages can keep,
// a `404.html` so unknown paths still get the JSON 404, and a `_headers` without the CORS header
// Pages adds. What it cannot do is in README.md.

import { NOT_FOUND_BODY } from '../../contract/bodies.ts';
import type { HeaderRule } from '../../contract/headers.ts';
import {
  type DocumentRoute,
  INVALID_PAGE_FILE,
  methodNotAllowedFile,
  NOT_FOUND_FILE,
  optionsFile,
  type Route,
  type Routed,
} from '../../contract/routes.ts';
import { generatedMarkdownNote, generatedNote } from '../generated-note.ts';
import { theLists } from '../list-count.ts';
import type { TargetContext } from '../target.ts';
import { cloudflarePagesStatic } from './targets.ts';

const NAME = cloudflarePagesStatic.name;
const DEPLOY_DIR = `.deploy/${NAME}`;
/**
 * Run in the deployed folder: removes what this target does not upload. `.assetsignore` and the
 * parts of the files over 25 MiB are for the targets with the worker (assets.ts; past 25 MiB the
 * build refuses this target), and the precompressed copies would be served at their own paths.
 */
export const PAGES_STATIC_PRUNE = "rm -rf .assetsignore _parts && find . \\( -name '*.br' -o -name '*.gz' \\) -delete";

/** A path with no file: a proxy to it makes Pages answer with 404.html and status 404. */
const NOWHERE = '/_not-found';

/** Top-level folders of the output, so that no file can be requested by its own path. */
function outputFolders(
  routes: readonly Route[],
  documents: readonly DocumentRoute[],
  resources: readonly Routed[],
): string[] {
  const files = [
    ...routes.map((route) => route.file),
    NOT_FOUND_FILE,
    INVALID_PAGE_FILE,
    methodNotAllowedFile('POST'),
    ...resources.map((resource) => optionsFile(resource.name)),
    ...documents.map((document) => document.file),
  ];
  return [...new Set(files.map((file) => file.split('/')[0] as string))];
}

export function renderPagesRedirects(
  routes: readonly Route[],
  documents: readonly DocumentRoute[],
  resources: readonly Routed[],
): string {
  const lists = routes.filter((route) => Object.keys(route.query).length === 0);
  const lines = [
    generatedNote(NAME, '#'),
    '# Pages matches a rule on the path only: the query string is ignored, so ?ordering= and',
    '# ?page= get the plain list (see README.md). Static rules are matched before splats.',
    '# A list path without its slash: 301 to the slash; Pages keeps the query string.',
    ...resources.map((resource) => `${resource.path.slice(0, -1)} ${resource.path} 301`),
    '# Each list from its file; a proxy (200), so the URL stays the list path.',
    ...lists.map((route) => `${route.path} /${route.file} 200`),
    ...(documents.length > 0
      ? ['# The documents beside the API (the reference page, when on) from their files, the same way.']
      : []),
    ...documents.map((document) => `${document.path} /${document.file} 200`),
    '# Pages serves 404.html at /404 with status 200; wrangler pages dev answers /_headers and',
    '# /_redirects with a 502 (on Cloudflare they are not uploaded). All are unknown URLs here.',
    ...['/404', '/404.html', '/_headers', '/_redirects'].map((path) => `${path} ${NOWHERE} 200`),
    '# The output files themselves are not URLs of the API (as on the local server): a proxy to a',
    '# path without a file makes Pages answer with 404.html, status 404.',
    ...outputFolders(routes, documents, resources).map((folder) => `/${folder}/* ${NOWHERE} 200`),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * The project's `_headers` rules with a removal of the `Access-Control-Allow-Origin: *` that
 * Pages adds to every file (DRF sends none), as the first line of the `/*` rule: Pages keeps
 * one rule per path (a second `/*` block would replace the first) and applies a rule's
 * removals before its values, so a CORS header the project sets itself is still sent.
 * (The project's `_headers` cannot hold the removal: `! Name` is Cloudflare's syntax only.)
 *
 * Each document beside the API gets a rule of its own after them: Pages applies every matching rule
 * in the file's order and joins a name set twice with a comma (`application/json, text/html`), so
 * the document's rule first removes the Content-Type the rules above set, then sets its own.
 */
export function renderPagesHeaders(rules: readonly HeaderRule[], documents: readonly DocumentRoute[]): string {
  const unset = '  ! Access-Control-Allow-Origin';
  const all = rules.some((rule) => rule.pattern === '/*') ? rules : [{ pattern: '/*', headers: [] }, ...rules];
  let done = false;
  const lines = all.flatMap((rule) => {
    const first = rule.pattern === '/*' && !done;
    if (first) done = true;
    return [rule.pattern, ...(first ? [unset] : []), ...rule.headers.map(([name, value]) => `  ${name}: ${value}`)];
  });
  const documentLines = documents.flatMap((document) => [
    document.path,
    '  ! Content-Type',
    `  Content-Type: ${document.contentType}`,
  ]);
  return `${[generatedNote(NAME, '#'), ...lines, ...documentLines].join('\n')}\n`;
}

function readme(resources: readonly Routed[]): string {
  return `${generatedMarkdownNote(NAME)}
# Cloudflare Pages, static only (\`_headers\` and \`_redirects\`, no code)

Pages cannot see the query string, so this target serves ${theLists(resources)} and nothing that
depends on a query parameter. Use \`cloudflare-pages\` (\`_worker.js\`) or \`cloudflare-workers\`
for the whole API; both run the same worker as the local server.

Deploy, from the project folder:

\`\`\`sh
npm run build
rm -rf ${DEPLOY_DIR} && mkdir -p .deploy && cp -R public ${DEPLOY_DIR}
# What the targets with the worker need, and precompressed copies: not for Pages without code.
(cd ${DEPLOY_DIR} && ${PAGES_STATIC_PRUNE})
# Adds a _redirects of the rules Pages keeps, replaces public/_headers (the same rules, less
# the CORS header Pages adds), and adds the JSON 404 page.
cp targets/${NAME}/_redirects targets/${NAME}/_headers targets/${NAME}/404.html ${DEPLOY_DIR}/
npx wrangler pages deploy ${DEPLOY_DIR} --project-name <your-project>
\`\`\`

What it serves like the DRF service: ${theLists(resources)} (\`/company/\` ...) with the \`_headers\`
headers, HEAD, the 301 from \`/company\` to \`/company/\` (query kept), and
\`{"detail":"Not found."}\` with 404 for unknown paths and for the output's own file names.

What it cannot do (checked with \`wrangler pages dev\`, which runs Cloudflare's asset server; the
end-to-end suite lists each case in test/e2e/expectations.ts):

- **No query routing.** \`?ordering=\`, \`?page=\` and \`?format=\` are ignored: \`/event/?ordering=-id\`
  is the list in id order, \`/virtualbooth-texture/?page=2\` is page 1 (whose \`next\` link leads
  back to page 1), \`?page=abc\` and \`?format=xml\` are 200, not 404. Clients that order or page
  must not use this target.
- **Methods.** OPTIONS and every method but GET and HEAD get Pages' own 405 with an empty body
  (the \`_headers\` are applied to it), also on unknown paths; not DRF's metadata or
  \`{"detail":"Method \\"POST\\" not allowed."}\`.
- **Escaped paths and \`Accept\`.** Pages matches \`_redirects\` on the path as sent, escapes
  kept: \`/%63ompany/\` and \`/company%2F\`, which Django reads as \`/company/\`, get 404 Not
  found. \`Accept\` is not read: \`Accept: application/xml\` gets the list, not 406.
- **Revalidation.** The 304 answer to \`If-None-Match\` has no \`ETag\`.
- **Extra headers.** Pages adds \`Cache-Control\` (and \`Access-Control-Allow-Origin: *\`, which
  this target's \`_headers\` removes). The 301 has a text body (\`Redirecting to /company/\`);
  404s have no \`ETag\`.
`;
}

/** The files of targets/cloudflare-pages-static/. */
export function pagesStaticFiles({
  routes,
  documents: pages,
  headerRules,
  resources,
}: TargetContext): Map<string, string> {
  return new Map([
    ['_redirects', renderPagesRedirects(routes, pages, resources)],
    ['_headers', renderPagesHeaders(headerRules, pages)],
    ['404.html', NOT_FOUND_BODY],
    ['README.md', readme(resources)],
  ]);
}
