// The README.md written beside each web server's config: the one setting, how to run it, and
// what the server answers differently from DRF. The same differences are the entries of
// test/e2e/expectations.ts (KNOWN_DIFFERENCES), which the end-to-end suite holds them to.

import type { Routed } from '../../contract/routes.ts';
import { generatedMarkdownNote } from '../generated-note.ts';
import { theLists } from '../list-count.ts';
import { APACHE_RUNTIME, LOCAL_COMMANDS, LOCAL_HEADING, LOCAL_PORT, NGINX_RUNTIME } from './local-run.ts';

/** What all three answer like DRF, and what none of them can, because they route with regexes. */
const shared = (
  target: string,
  resources: readonly Routed[],
) => `What it answers like the DRF service (the end-to-end suite runs against the real server:
\`E2E_TARGETS=${target} npx playwright test\`):

- ${theLists(resources)} with the \`_headers\` headers (each once), HEAD, ETag and If-None-Match (304);
- a \`Range\` of one byte range on GET (206); several ranges are ignored (200, the whole answer);
- an answer of 4 KiB or more sent as its precompressed \`.br\` or \`.gz\` sibling (written by the
  build beside it) to a client whose \`Accept-Encoding\` accepts it, br first, with
  \`Content-Encoding\`, \`Accept-Encoding\` added to \`Vary\` and an ETag of its own (304 to it);
  nothing is compressed at request time, and a client sending no \`Accept-Encoding\` gets the
  answer as it is;
- \`?format=api\`, \`?format=json\` and an empty format like no format; any other format is
  404 \`{"detail":"Not found."}\`, before the method is looked at;
- \`?ordering=\` by one event field, either direction, percent-encoded or padded with spaces as
  DRF decodes and strips it; an unknown field is the default order (id ascending);
- \`?page=N\` (spaces, a \`%2B\` sign and leading zeros allowed, as Python's \`int()\` reads it),
  \`?page=last\`, and 404 \`{"detail":"Invalid page."}\` for any other value or a page beyond the
  last; the page links are those of the build;
- query keys case-sensitive, the last of a repeated key wins, unknown keys ignored;
- 405 with \`{"detail":"Method \\"POST\\" not allowed."}\` (the method's name) for every method but
  GET, HEAD and OPTIONS;
- 301 from \`/company\` to \`/company/\`, keeping the query, with a relative \`Location\`;
- 404 \`{"detail":"Not found."}\` for every other path, the output's own file names (\`/_headers\`,
  \`/company/index.json\`), dot segments and \`//company/\` included.

What it cannot do, because the server only matches regexes on the raw query string:

- **Several ordering fields.** It cannot sort at request time, so any comma in \`ordering\`
  (raw or \`%2C\`) gets **400** with \`_errors/unsupported-ordering.json\`, never a list in another
  order than DRF's. That includes lists DRF would reduce to one field (\`-start_date,bogus\`).
- **Exotic page numbers.** A page written with percent-encoded or non-ASCII digits (\`%32\`,
  \`%EF%BC%92\`) or with underscores (\`1_0\`) is 404 Invalid page; DRF reads them as numbers.`;

export function nginxReadme(resources: readonly Routed[]): string {
  return `${generatedMarkdownNote('nginx')}
# nginx

\`api.conf\` holds the directives of one \`server\` block: include it in a server of its own and
set \`root\` to the folder \`npm run build\` wrote. That is the only setting.

\`\`\`nginx
server {
    listen 80;
    server_name api.example.com;
    root /srv/api/public;                  # the build output, readable by nginx's user
    include /etc/nginx/snippets/api.conf;
    include /etc/nginx/snippets/brotli.conf;   # only with the brotli_static module, see below
}
\`\`\`

${LOCAL_HEADING} \`nginx.conf\` is a complete configuration around it that serves
\`public/\` on http://127.0.0.1:${LOCAL_PORT} in the foreground (Ctrl-C stops it). Run it from the project folder as
any user: nginx writes its pid and temp files to \`${NGINX_RUNTIME}/\`, which git ignores, and nothing
outside the folder. \`/usr/sbin/nginx\` is Debian's path, which a user's \`PATH\` leaves out there;
another port is the \`listen\` line of \`nginx.conf\`.

\`\`\`sh
${LOCAL_COMMANDS.nginx}
\`\`\`

\`api.conf\` defines \`location /\` (every other path is the API's 404) and sets
\`merge_slashes off\`, \`absolute_redirect off\`, \`types\` and \`add_header\` for the whole server. An \`add_header\` of your own in that server block replaces
all of the snippet's headers (nginx inherits \`add_header\` only from the level above when a
level has none), so add headers to \`_headers\` instead and build again.

**Compressed answers.** \`api.conf\` turns on \`gzip_static\` (and \`gzip_proxied any\`): a client
that accepts gzip gets the \`.gz\` sibling the build wrote beside each answer of 4 KiB or more.
For br, install the brotli_static module and include \`brotli.conf\` beside \`api.conf\`; without
the module nginx refuses that file, and a client that accepts gzip too (every browser) gets gzip.
On Debian:

\`\`\`sh
apt-get install libnginx-mod-http-brotli-static   # loads itself from /etc/nginx/modules-enabled/
cp targets/nginx/brotli.conf /etc/nginx/snippets/
\`\`\`

Elsewhere, load it at the top of nginx.conf: \`load_module modules/ngx_http_brotli_static_module.so;\`.
\`api.conf\` adds \`Accept-Encoding\` to \`Vary\` where an answer may be sent compressed; leave
\`gzip_vary\` off, which would add a second \`Vary\` header to every answer with a \`.gz\`, and
\`gzip on\` is not needed. nginx ignores \`Range\` on a compressed answer (200, the whole of it).

Written for nginx 1.22 (Debian 12's \`nginx-light\` is enough: core, rewrite, headers, gzip_static).

${shared('nginx', resources)}

Also: nginx's 405 status line reads \`405 Not Allowed\` (the code is what clients read).
`;
}

export function caddyReadme(resources: readonly Routed[]): string {
  return `${generatedMarkdownNote('caddy')}
# Caddy

\`api.caddyfile\` is the API as one Caddy site; \`Caddyfile\` runs it alone, without Caddy's admin
endpoint (so no \`caddy reload\`: restart it). Two environment variables, read when Caddy loads it:

- \`API_ROOT\`: the folder \`npm run build\` wrote, absolute (default \`/srv/api/public\`);
- \`API_ADDRESS\`: the site address, default \`http://localhost:${LOCAL_PORT}\`: plain HTTP on port ${LOCAL_PORT}
  (of every interface) for requests to \`localhost\`.

**When HTTPS starts.** A site address without \`http://\` turns on Caddy's automatic HTTPS: for a
domain name such as \`api.example.com\` Caddy gets a certificate from Let's Encrypt (it needs ports
80 and 443 and the internet); for \`localhost\` or an IP address it makes its own certificate
authority and, run as root, installs that authority's root certificate into the machine's trust
stores, which changes the certificates the machine trusts.

${LOCAL_HEADING} From the project folder, as any user. HOME and the XDG folders put Caddy's state
(its autosaved config, the empty \`.step\` folder it makes in HOME) in \`.caddy/\`, which git
ignores, instead of your home folder. Then ask http://localhost:${LOCAL_PORT}/company/.

\`\`\`sh
${LOCAL_COMMANDS.caddy}
\`\`\`

On a server, as root or with the right to bind ports 80 and 443 (certificates in Caddy's data
folder):

\`\`\`sh
API_ROOT=/srv/api/public API_ADDRESS=api.example.com caddy run --config targets/caddy/Caddyfile --adapter caddyfile
\`\`\`

To serve it from a Caddyfile of your own, \`import\` \`api.caddyfile\` there (it holds only the
site block; put global options before it in yours). Tested on Caddy 2.6.2 (Debian 12); OPTIONS and the
error answers ask the file server with GET, as Caddy 2.7 and later require.

**Compressed answers.** A client that accepts br or gzip gets the \`.br\` or \`.gz\` sibling the
build wrote beside each answer of 4 KiB or more, with a second \`Vary\` header, \`Accept-Encoding\`.
The sibling is served as a file of its own, its \`Content-Encoding\` added as the answer is
written (\`header\` with \`defer\`): the file server's \`precompressed\` sets it first, and Go's
\`http.ServeContent\` then writes no \`Content-Length\` (GET chunked, HEAD with no length). A
\`Range\` gets a slice of the compressed bytes (206).

${shared('caddy', resources)}
`;
}

export function apacheReadme(resources: readonly Routed[]): string {
  return `${generatedMarkdownNote('apache')}
# Apache httpd

\`api.conf\` holds the directives of one \`<VirtualHost>\`: mod_rewrite rules generated from the
route table, headers and ErrorDocuments. Define \`API_ROOT\` (the folder \`npm run build\` wrote)
before including it; that is the only setting. It sets \`DocumentRoot\` and grants access to it.

\`\`\`apache
<VirtualHost *:80>
    ServerName api.example.com
    Define API_ROOT /srv/api/public
    Include /etc/apache2/api.conf
</VirtualHost>
\`\`\`

${LOCAL_HEADING} \`httpd.conf\` is a complete server configuration around it that serves
\`public/\` on http://127.0.0.1:${LOCAL_PORT} in the foreground (Ctrl-C stops it). Run it from the project folder as a
user other than root: Apache writes its pid, lock and error log to \`${APACHE_RUNTIME}/\`, which git
ignores, and nothing outside the folder. \`/usr/sbin/apache2\` is Debian's path (\`httpd\` elsewhere);
another port is the \`Listen\` and \`<VirtualHost>\` lines of \`httpd.conf\`.

\`\`\`sh
${LOCAL_COMMANDS.apache}
\`\`\`

Needs mod_rewrite, mod_headers and mod_mime (\`a2enmod rewrite headers\`). It is server
configuration, not \`.htaccess\`: ErrorDocument bodies chosen per request, \`MergeSlashes\` and
\`AllowEncodedSlashes\` are not available there. The slash redirect's empty body is \`/dev/null\`,
which the config lets Apache read. Tested on Apache 2.4 (Debian 12).

**Compressed answers.** The rules send the \`.br\` or \`.gz\` sibling the build wrote beside each
answer of 4 KiB or more to a client whose \`Accept-Encoding\` accepts it (a \`;q=0\` refuses it),
typed by \`AddEncoding\`, with \`Accept-Encoding\` appended to \`Vary\`; a \`Range\` gets a slice of
the compressed bytes (206). mod_deflate and mod_brotli are not needed; where they are loaded,
the \`no-gzip\` and \`no-brotli\` variables the rules set keep them from compressing a sibling
again (they still compress the smaller answers on the fly, as without siblings).

${shared('apache', resources)}

What Apache cannot do besides:

- **OPTIONS has no body.** Apache's core answers OPTIONS itself: 200 with the headers and an
  empty body, not DRF's metadata. A body needs a script module (mod_lua, CGI).
- **A path above the root** (\`/../x\`, \`/%2e%2e/x\`) is refused by Apache's core with **400**
  before any module runs; the body is still \`{"detail":"Not found."}\`, the status is not 404.
- **Other methods.** A method without a pre-rendered 405 body (anything but POST, PUT, PATCH,
  DELETE and TRACE, e.g. PROPFIND) gets Apache's own HTML 405 page, with a second \`Allow\`
  header.
`;
}

/**
 * What the configuration does with the settings file's filters, search and ordering, appended to
 * its README only when a list has them (the README of a build without settings is unchanged).
 */
export function settingsSection(lists: ReadonlyArray<{ path: string; prerendered: readonly string[] }>): string {
  if (lists.length === 0) return '';
  const named = lists
    .map(
      ({ path, prerendered }) =>
        `\`${path}\`${prerendered.length > 0 ? ` (pre-rendered: ${prerendered.map((field) => `\`${field}\``).join(', ')})` : ''}`,
    )
    .join(', ');
  return `
## Filters, search and ordering of the settings file

The settings file gives ${named} filters, search or ordering. This server runs no code, so it
answers a filter of \`prerendered_filters\` alone, with a value the records hold, from the files
the build wrote for that value (\`<list>/_filters/<field>/<value>/\`, the bytes the local server
sends, pages included), in every spelling Django reads as that value; every other filter, search
or settings ordering of those lists gets **400** with \`_errors/unsupported-query.json\`, never the
whole list. A parameter the list does not read is ignored, as without settings: on a paginated
list the page's file answers \`?x=1&page=2\`, and its \`next\` and \`previous\` leave \`x\` out,
where DRF keeps it. See docs/filters.md in the project.
`;
}
