// Deploy target `netlify`: public/ as it is (its `_headers`), the `_redirects` of
// scripts/targets/netlify/redirects.ts laid into it (kept out of public/, which wrangler reads as
// Cloudflare's, for Workers), and the request handler as one Functions v2 function
// (scripts/respond/netlify-function.ts) that answers every request on a list path and on the
// documents beside the API: every method, every query. Netlify's CDN keeps its GET answers until
// the next deploy. Where Netlify still differs from DRF is in the README it writes (and in
// test/e2e/expectations.ts).

import type { HeaderRule } from '../../contract/headers.ts';
import type { DocumentRoute, Routed } from '../../contract/routes.ts';
import { CDN_CACHE_CONTROL } from '../../respond/netlify-function.ts';
import { DEFAULT_OUTPUT_FOLDER } from '../../shared/folders.ts';
import { generatedMarkdownNote, generatedNote } from '../generated-note.ts';
import type { TargetContext } from '../target.ts';
import { bundleFunctionCode, type FunctionConfig, functionFile } from './bundle.ts';
import { NOT_FOUND_PATH, notFoundHeadersToml, refuseStaticOnlyRules } from './headers.ts';
import { FILES_PREFIX, renderRedirects } from './redirects.ts';
import { netlify } from './target.ts';

const NAME = netlify.name;
const DEPLOY_DIR = `.deploy/${NAME}`;
/** Where netlify.toml tells Netlify the functions are, relative to it. */
export const FUNCTIONS_DIR = 'netlify/functions';
/** The function's file, under FUNCTIONS_DIR. */
export const FUNCTION_FILE = 'api.mjs';

/**
 * Each list path and each page's path, every method. Netlify compares a request's path, its
 * trailing slash dropped and lower-cased, with a declared literal path (zip-it-and-ship-it's
 * routes, netlify-cli's matchURLPath): so the path is declared without its slash, and
 * `/company` takes `/company/`, `/company` and `/Company/` alike, which the handler answers with
 * the list, the 301 and the 404. What lies under a list path (`/company/x/`) is not the
 * function's: the rule that serves the function its files rewrites to such paths, and
 * `netlify dev` matches functions again on the rewritten path.
 */
export function functionConfig(resources: readonly Routed[], documents: readonly DocumentRoute[] = []): FunctionConfig {
  const paths = [...resources.map((resource) => resource.path), ...documents.map((document) => document.path)];
  return { path: paths.map((path) => path.replace(/\/$/, '').toLowerCase()) };
}

/**
 * The Content-Type of each document beside the API: public/_headers is the project's and types every
 * path as JSON. netlify.toml's headers are read after it, and netlify-cli gives a name the value
 * of the last rule that matches (@netlify/headers-parser, headersForPath); whether Netlify's CDN
 * does the same for two paths no offline run can show (netlify dev types files by their name).
 */
function documentHeaders(documents: readonly DocumentRoute[]): string {
  const tables = documents.map(
    (document) =>
      `\n[[headers]]\n  for = ${JSON.stringify(document.path)}\n  [headers.values]\n    Content-Type = ${JSON.stringify(document.contentType)}\n`,
  );
  return tables.length > 0
    ? `\n# The documents beside the API (the reference, when on): HTML, not _headers' JSON.${tables.join('')}`
    : '';
}

function netlifyToml(documents: readonly DocumentRoute[], rules: readonly HeaderRule[]): string {
  return `${generatedNote(NAME, '#')}
# Netlify's settings for the deployed folder (see README.md): the build output as the publish
# directory (its _headers and _redirects are Netlify's own format), and the function.
# There is no build command: build before deploying, with your production --base-url.

[build]
  publish = "${DEFAULT_OUTPUT_FOLDER}"

[functions]
  directory = "${FUNCTIONS_DIR}"
${documentHeaders(documents)}${notFoundHeadersToml(rules)}`;
}

function readme(): string {
  return `${generatedMarkdownNote(NAME)}
# Netlify

The build output is served by Netlify with one function, the project's request handler
(\`scripts/respond/handler.ts\`, bundled with the \`_headers\` rules into
\`${FUNCTIONS_DIR}/${FUNCTION_FILE}\`). Its config claims each list path and each page beside the API
(the reference, when on), every method: the function answers every request there, with any
query, as the local server does: the lists, orderings and pages from the build's files, DRF's
OPTIONS metadata, the 405s, the 301 of a path without its slash, an ordering by several fields
(sorted), \`format\` and \`page\` as Django reads them, percent-encoded keys included.
\`_redirects\` (copied into the deployed folder) has two rules: the build's files under
\`${FILES_PREFIX}/\`, which the function reads them through (a function cannot read the deployed
files), and a forced \`{"detail":"Not found."}\` 404 for every other path.

**What it costs.** A request on a list path is a function invocation unless Netlify's CDN holds
the answer. The function marks every GET answer but a 5xx
\`Netlify-CDN-Cache-Control: ${CDN_CACHE_CONTROL}\` (unless a \`_headers\` rule sets that header or
\`CDN-Cache-Control\` itself): Netlify's durable cache, shared by its edge nodes, keeps it until
the next deploy, which invalidates it as it does the static files, and strips the header before
the client. The cache key is the URL with its query and the request's \`Accept\` (the answer's
\`Vary: Accept\`). So each list URL costs about one invocation per deploy; HEAD, OPTIONS and the
other methods, a request with \`If-None-Match\` the CDN cannot answer, and each new query
(\`?x=1\`, \`?page=02\`) cost one each. An invocation reads one file through \`${FILES_PREFIX}/\`, a static
request. Unknown paths are static (the 404 rule).

**\`_headers\`.** The function applies every rule on the path as asked. Every other path gets
the 404 rule's one static file, which Netlify gives the rules of the file's own path
(\`${NOT_FOUND_PATH}\`), whatever path was asked. So the build takes a rule for every path
(\`/*\`) or for a list's path (\`/company/\`, in any case, with or without the slash) and
refuses any other (\`/company/*\`, \`/nope/\`) with one line naming it. Netlify keeps the last
value of a name that several rules set, where the other targets join them: \`netlify.toml\`
gives the 404 file the joined values. netlify dev's file server sends its own
\`Cache-Control: public, max-age=0\` on it; Netlify's CDN sends the rules'.

\`npm run build\` writes the function with the build's \`_headers\` rules and resources; it is not
kept in git.

Deploy, from the project folder:

\`\`\`sh
npm run build -- --base-url https://api.example.com
rm -rf ${DEPLOY_DIR} && mkdir -p ${DEPLOY_DIR}
cp -R public ${DEPLOY_DIR}/public
cp targets/${NAME}/_redirects ${DEPLOY_DIR}/public/
find ${DEPLOY_DIR}/public -type f \\( -name '*.br' -o -name '*.gz' \\) -delete
cp -R targets/${NAME}/netlify.toml targets/${NAME}/netlify ${DEPLOY_DIR}/
cd ${DEPLOY_DIR} && npx netlify deploy --prod
\`\`\`

\`_redirects\` is kept beside this file, not in \`public/\`: wrangler reads a \`_redirects\` in the
folder it serves as Cloudflare's. The \`find\` leaves out the build's precompressed \`.br\` and \`.gz\` siblings of the answers:
Netlify compresses answers itself. \`netlify deploy\` has no setting to exclude files; uploaded,
the siblings would be reachable only under \`${FILES_PREFIX}/\`.

What Netlify cannot do like the DRF service:

- **No \`Allow\` header on the 404 of an unknown path.** Netlify ignores a custom \`Allow\` in
  \`_headers\` on static answers (docs.netlify.com/routing/headers); the function's answers carry
  it. \`netlify dev\` does send it, so no local test can show this.
- **\`${FILES_PREFIX}/<file>\`** answers with a file of the build (status 200), instead of 404: the
  function reads the files there.
- **\`/_errors/not-found.json\`** is 200 with the not-found body: Netlify's redirect engine skips
  the forced 404 rule for the path the rule rewrites to (it would rewrite the path to itself).
- **Methods** other than GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS (PROPFIND ...):
  \`netlify dev\` hands them to the function; whether Netlify's CDN does is not shown offline.

How it is tested:

- test/process/headers-per-path.test.ts asks \`netlify dev\`, nginx, Caddy, Apache and the local
  server for lists, queries, redirects, OPTIONS, 304s and 404s with rules for the lists' paths
  and for every path, and finds the same headers, but for two of netlify dev's file server on
  the 404 file: its own \`Cache-Control: public, max-age=0\` and a charset in \`Content-Type\`.
- test/unit/netlify.test.ts runs \`_redirects\` through netlify-redirector (the WASM build of
  Netlify's redirect engine) and the function in-process, on a model of Netlify's routing,
  against the local server's answers.
- The end-to-end suite and its request fuzzer run against \`netlify dev --offline
  --internal-disable-edge-functions\` (netlify-cli 26.2.0, the last for Node 20; \`npm run
  setup:targets\` installs it apart from the project into node_modules/.cache/netlify-cli: about
  60 s and 420 MB), on a folder laid out as above: \`E2E_TARGETS=netlify npx playwright test\`.
  netlify dev runs Netlify's redirect engine and the function as Netlify does, but its own file
  server, which answers the unknown paths' 404: it types it \`application/json; charset=utf-8\`.
  test/e2e/expectations.ts lists each difference.
- Not proven offline: Netlify's CDN itself (its cache, its headers on static answers, the
  methods it passes on).
`;
}

/** The files of targets/netlify/: the function bundled with the build's rules and resources. */
export async function netlifyFiles(context: TargetContext): Promise<Map<string, string>> {
  const config = functionConfig(context.resources, context.documents);
  refuseStaticOnlyRules(context.headerRules, config.path);
  const code = await bundleFunctionCode(context, FILES_PREFIX);
  return new Map([
    ['netlify.toml', netlifyToml(context.documents, context.headerRules)],
    [`${FUNCTIONS_DIR}/${FUNCTION_FILE}`, functionFile(generatedNote(NAME, '//'), code, config)],
    ['_redirects', renderRedirects()],
    ['README.md', readme()],
  ]);
}
