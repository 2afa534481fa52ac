// Deploy target `netlify`: public/ as it is (its `_headers`), the `_redirects` of
// scripts/targets/netlify/redirects.ts laid into it (they answer every query that has a file;
// kept out of public/, which wrangler reads as Cloudflare's, for Workers), plus what Netlify
// cannot do without code, as two Functions v2 files of the request handler
// (scripts/respond/netlify-function.ts): `methods.mjs` answers OPTIONS and the 405s on the list
// paths, `query.mjs` the queries the rules rewrite to it (empty or unknown `format`, any
// ordering or page that is not a file's). Two files, because Netlify gives each function one
// list of methods for all of its paths, and GET on a list path must stay static. Where Netlify
// still differs from DRF is in the README it writes (and in test/e2e/expectations.ts).

import { type PageRoute, REJECTED_METHODS, RESOURCES, type Routed } from '../../contract/routes.ts';
import { routeUrls } from '../../respond/netlify-function.ts';
import { generatedMarkdownNote, generatedNote } from '../generated-note.ts';
import type { Target } from '../target.ts';
import { bundleFunctionCode, type FunctionConfig, functionFile } from './bundle.ts';
import { FUNCTION_PREFIX, renderRedirects } from './redirects.ts';

const NAME = 'netlify';
const DEPLOY_DIR = `.deploy/${NAME}`;
/** Where netlify.toml tells Netlify the functions are, relative to it. */
export const FUNCTIONS_DIR = 'netlify/functions';

/**
 * Methods Netlify lets a function claim (its config accepts no others: zip-it-and-ship-it's
 * in-source config schema), less GET and HEAD, which stay with the files.
 */
const FUNCTION_METHODS = ['OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Each list path, and everything under it: Netlify matches a function's path without its
 * trailing slash and lower-cased (so `/company/` also takes `/company` and `/Company/`, which
 * resolve() answers with the 301 and the 404), and `netlify dev` matches functions again on the
 * rewritten path (`/company/index.json`).
 */
export function methodsConfig(resources: readonly Routed[] = RESOURCES): FunctionConfig {
  return { path: resources.flatMap((resource) => [resource.path, `${resource.path}*`]), method: FUNCTION_METHODS };
}

/** The rewrite target of the `_redirects` rules, every method (only GET and HEAD get there). */
export const QUERY_CONFIG: FunctionConfig = { path: [`${FUNCTION_PREFIX}/*`] };

/**
 * The Content-Type of each page beside the API: public/_headers is the project's and types every
 * path as JSON. netlify.toml's headers are read after it, and netlify-cli gives a name the value
 * of the last rule that matches (@netlify/headers-parser, headersForPath); whether Netlify's CDN
 * does the same for two paths no offline run can show (netlify dev types files by their name).
 */
function pageHeaders(pages: readonly PageRoute[]): string {
  const tables = pages.map(
    (page) =>
      `\n[[headers]]\n  for = ${JSON.stringify(page.path)}\n  [headers.values]\n    Content-Type = ${JSON.stringify(page.contentType)}\n`,
  );
  return tables.length > 0
    ? `\n# The pages beside the API (the reference, when on): HTML, not _headers' JSON.${tables.join('')}`
    : '';
}

function netlifyToml(pages: readonly PageRoute[]): string {
  return `${generatedNote(NAME, '#')}
# Netlify's settings for the deployed folder (see README.md): the build output as the publish
# directory (its _headers and _redirects are Netlify's own format), and the two functions.
# There is no build command: build before deploying, with your production --base-url.

[build]
  publish = "public"

[functions]
  directory = "${FUNCTIONS_DIR}"
${pageHeaders(pages)}`;
}

function readme(): string {
  const rejected = REJECTED_METHODS.filter((method) => !FUNCTION_METHODS.includes(method));
  return `${generatedMarkdownNote(NAME)}
# Netlify

The build output is served by Netlify as it is: \`public/_headers\` gives every answer its
headers, \`_redirects\` (generated from the route table, copied into the deployed folder) rewrites each list path, and each
query that has a file, to that file, with a forced \`{"detail":"Not found."}\` 404 for every
other path. Two functions (the project's request handler, \`scripts/respond/handler.ts\`, bundled
with the route table and the \`_headers\` rules) answer what files cannot:

- \`${FUNCTIONS_DIR}/methods.mjs\`: ${FUNCTION_METHODS.join(', ')} on the list paths: DRF's
  OPTIONS metadata and the 405 \`{"detail":"Method \\"POST\\" not allowed."}\`.
- \`${FUNCTIONS_DIR}/query.mjs\`: the queries \`_redirects\` rewrites to \`${FUNCTION_PREFIX}/<list>/\`:
  an empty or unknown \`format\` (Netlify's query conditions cannot tell \`format=\` from
  \`format=xml\`), an ordering that is not one field as written (several fields are sorted, as
  on the local server; unknown terms dropped; spaces stripped), a page written otherwise
  (\`02\`, \` 2\`) or beyond the last. It reads the list it needs from the site by the list's
  canonical URL, which a rule serves from the file.

\`npm run build\` writes both functions with the build's route table and \`_headers\` rules; they
are not kept in git.

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
folder it serves as Cloudflare's, whose format has no query conditions. The \`find\` leaves out the build's precompressed \`.br\` and \`.gz\` siblings of the answers:
Netlify compresses answers itself. \`netlify deploy\` has no setting to exclude files; uploaded,
the siblings would still answer 404, as the forced \`/*\` rule of \`_redirects\` answers every path
that no rule rewrites.

What Netlify cannot do like the DRF service:

- **No \`Allow\` header on the files' answers.** Netlify ignores a custom \`Allow\` in
  \`_headers\` (docs.netlify.com/routing/headers); the functions' answers (OPTIONS, 405, the
  rewritten queries) carry it. \`netlify dev\` does send it, so no local test can show this.
- **No 301 for a list path without its slash.** Netlify matches redirect rules and function
  paths with or without the trailing slash, so a rule \`/company /company/ 301\` redirects
  \`/company/\` to itself forever, and a function on \`/company\` takes \`/company/\` too.
  \`/company\` is answered like \`/company/\` (200).
- **Other methods.** Netlify lets a function claim only GET, HEAD, POST, PUT, PATCH, DELETE
  and OPTIONS; ${rejected.length ? `${rejected.join(', ')} and` : ''} other methods (PROPFIND ...) get Netlify's own answer.
- **\`/_errors/not-found.json\`** is 200 with the not-found body: Netlify's redirect engine skips
  the forced 404 rule for the path the rule rewrites to (it would rewrite the path to itself).
- **\`${FUNCTION_PREFIX}/<list>/\`** answers like \`/<list>/\` (the function cannot tell a rewritten request
  from a direct one), instead of 404.
- **Function answers cost an invocation** each; the files are served from Netlify's CDN.

How it is tested:

- test/unit/netlify.test.ts runs \`_redirects\` through netlify-redirector (the WASM build of
  Netlify's redirect engine) for every route and the odd queries, and runs the functions'
  handler in-process, on a model of Netlify's routing, against the local server's answers.
- The end-to-end suite runs against \`netlify dev --offline --internal-disable-edge-functions\`
  (netlify-cli 26.2.0, the last for Node 20; \`npm run setup:targets\` installs it apart
  from the project into node_modules/.cache/netlify-cli: about 60 s and 420 MB), on a folder
  laid out as above: \`E2E_TARGETS=netlify npx playwright test\`. netlify dev runs Netlify's
  redirect engine and the functions as Netlify does, but its own file server: it sends the
  files as \`application/json; charset=utf-8\`, applies \`Allow\` (production ignores it),
  and gives HEAD another ETag. test/e2e/expectations.ts lists each difference.
- Not proven offline: Netlify's CDN itself (its headers on files, its methods on files, which
  URL a rewritten function is handed: the handler accepts either).
`;
}

export const netlify: Target = {
  name: NAME,
  files: async ({ routes, pages, headerRules, resources }) => {
    const code = await bundleFunctionCode(headerRules, routeUrls(routes), FUNCTION_PREFIX);
    const banner = generatedNote(NAME, '//');
    return new Map([
      ['netlify.toml', netlifyToml(pages)],
      [`${FUNCTIONS_DIR}/methods.mjs`, functionFile(banner, code, methodsConfig(resources))],
      [`${FUNCTIONS_DIR}/query.mjs`, functionFile(banner, code, QUERY_CONFIG)],
      ['_redirects', renderRedirects(routes, pages, resources)],
      ['README.md', readme()],
    ]);
  },
};
