// Deploy target `nginx`: targets/nginx/api.conf, the API as directives for a server block of its own
// (the user sets `root` to the build output), and an example nginx.conf around it. Everything
// is generated from the route table (./plan.ts) and the query patterns (./query.ts).
// How nginx is made to answer like DRF, and what it cannot do, is in the README it writes.

import type { DocumentRoute } from '../../contract/routes.ts';
import { generatedNote } from '../generated-note.ts';
import { HeadersTargetError, type TargetContext } from '../target.ts';
import { LOCAL_COMMANDS, LOCAL_PORT, NGINX_RUNTIME } from './local-run.ts';
import {
  everywhereValue,
  type HeaderPart,
  type OrderingPlan,
  type PageFile,
  type PlannedHeader,
  QUERY_KEYS,
  type ResourcePlan,
  type ServerPlan,
  type SettingsPlan,
  serverPlan,
  settingsLists,
} from './plan.ts';
import {
  filterState,
  formatValue,
  HAS_COMMA,
  lastValue,
  listState,
  NOT_EMPTY,
  orderingTerm,
  PAGE_LAST,
  PAGE_NUMBER,
  stripped,
} from './query.ts';
import { nginxReadme, settingsSection } from './readmes.ts';
import { nginx } from './targets.ts';

const NAME = nginx.name;
/** Internal prefix the answers' files are served under; never reachable from outside. */
const FILES = '/_api_file_/';
/** Internal location that gives the slash redirect an empty body instead of nginx's HTML page. */
const REDIRECT = '/_api_redirect_';
/** Internal-only statuses: nginx's error_page turns them into the real ones (see below). */
const OPTIONS_STATUS = 418;
const UNSUPPORTED_STATUS = 419;

/** A regex in double quotes: nginx does not expand variables in a regex, and ours have no `"` or `\\`. */
function regex(pattern: string): string {
  if (/["\\]/.test(pattern)) throw new Error(`nginx: cannot quote the regex ${pattern}`);
  return `"${pattern}"`;
}

/** A literal value in double quotes; nginx would expand a `$` in it, and has no escape for one. */
function literal(text: string): string {
  if (/["\\$]/.test(text)) throw new Error(`nginx: cannot write ${text} literally`);
  return `"${text}"`;
}

/**
 * The query's last `key` into $api_value (empty when absent or empty). A named capture sets the
 * variable itself, as sent: nginx would percent-encode a $1 again when the path was encoded.
 */
function readKey(key: string): string[] {
  return ['set $api_value "";', `if ($args ~ ${regex(lastValue(key, 'api_value'))}) { }`];
}

function formatAndMethod(plan: ServerPlan, resource: ResourcePlan): string[] {
  const rejected = plan.rejectedMethods.join('|');
  const [before, after] = plan.methodNotAllowedBody;
  // nginx's single-quoted string: `\\` is a backslash; `"` needs no escape.
  const body = `${before.replaceAll('\\', '\\\\')}$request_method${after.replaceAll('\\', '\\\\')}`;
  return [
    '# format: api and json answer like no format; any other value is 404 Not found (DRF checks it first).',
    ...readKey(QUERY_KEYS.format),
    'set $api_format "-";',
    'if ($api_value = "") { set $api_format ""; }',
    ...plan.formats.map((format) => `if ($api_value ~ ${regex(formatValue(format))}) { set $api_format ${format}; }`),
    'if ($api_format = "-") { return 404; }',
    '# Methods: OPTIONS gets the metadata, every method but GET and HEAD a 405.',
    `if ($request_method = OPTIONS) { set $api_error ${resource.optionsFile}; return ${OPTIONS_STATUS}; }`,
    `if ($request_method ~ "^(?:${rejected})$") { return 405; }`,
    `if ($request_method !~ "^(?:GET|HEAD)$") { return 405 '${body}'; }`,
  ];
}

function orderingQuery(plan: ServerPlan, list: ResourcePlan, orderings: readonly OrderingPlan[]): string[] {
  return [
    '# ordering: one field, either direction (the term may be percent-encoded and padded with',
    '# spaces, as DRF decodes and strips it); an unknown term is the default order. Several',
    '# comma-separated fields cannot be sorted here: 400 with an explicit error, never a wrong list.',
    ...readKey(QUERY_KEYS.ordering),
    `set $api_file ${list.listFile.get('')};`,
    `if ($api_value ~ ${regex(HAS_COMMA)}) { set $api_error ${plan.unsupportedOrderingFile}; return ${UNSUPPORTED_STATUS}; }`,
    `if ($api_value ~ ${regex(stripped('api_term'))}) { }`,
    ...orderings.map(
      (ordering) => `if ($api_term ~ ${regex(orderingTerm(ordering.term))}) { set $api_file ${ordering.file}; }`,
    ),
  ];
}

function pageQuery(plan: ServerPlan, list: ResourcePlan, pageFile: PageFile): string[] {
  const formats = ['', ...plan.formats];
  return [
    `set $api_file ${list.listFile.get('')};`,
    ...plan.formats.map((format) => `if ($api_format = ${format}) { set $api_file ${list.listFile.get(format)}; }`),
    "# page: a number as Python's int() reads it (spaces, a sign and leading zeros allowed) or",
    '# "last"; anything else is 404 Invalid page, and so is a number beyond the last page (no file).',
    'set $api_value "";',
    'set $api_page "";',
    `if ($args ~ ${regex(lastValue(QUERY_KEYS.page, 'api_value'))}) { set $api_page invalid; }`,
    `if ($api_value ~ ${regex(PAGE_LAST)}) { set $api_page last; }`,
    `if ($api_value ~ ${regex(PAGE_NUMBER)}) { set $api_page $1; }`,
    `if ($api_page = invalid) { set $api_error ${plan.invalidPageFile}; return 404; }`,
    'if ($api_page = 1) { set $api_page ""; }',
    `if ($api_page != "") { set $api_error ${plan.invalidPageFile}; }`,
    'set $api_key "$api_format:$api_page";',
    ...formats.map((format) => `if ($api_key ~ "^${format}:(.+)$") { set $api_file ${pageFile(format, '$1')}; }`),
  ];
}

/**
 * The settings file's filters, search and ordering (SettingsPlan): $api_answer is `list` for a
 * request the list's own files answer, `filter` for a pre-rendered filter's (its folder in
 * $api_filter_dir); any other request gets the unsupported-query error.
 */
function settingsQuery(settings: SettingsPlan): string[] {
  const lines = [
    '# The filters, search and ordering of the settings file: one filter of prerendered_filters',
    '# alone, with a value the build wrote files for, is answered from them; anything else the',
    '# settings name gets 400 with an explicit error, never the unfiltered list.',
    'set $api_keys "";',
    'set $api_filter "";',
    'set $api_filter_dir "";',
  ];
  for (const key of settings.keys) {
    lines.push(...readKey(key), `if ($api_value ~ ${regex(NOT_EMPTY)}) { set $api_keys "\${api_keys}${key};"; }`);
    for (const value of settings.filters.find((filter) => filter.field === key)?.values ?? []) {
      lines.push(
        `if ($api_value ~ ${regex(value.pattern)}) { set $api_filter ${key}; set $api_filter_dir ${value.dir}; }`,
      );
    }
  }
  lines.push(
    'set $api_state "$api_format:$api_keys:$api_filter";',
    'set $api_answer "";',
    `if ($api_state ~ ${regex(listState(settings))}) { set $api_answer list; }`,
  );
  if (settings.filters.length > 0)
    lines.push(`if ($api_state ~ ${regex(filterState(settings))}) { set $api_answer filter; }`);
  lines.push(`if ($api_answer = "") { set $api_error ${settings.unsupportedFile}; return ${UNSUPPORTED_STATUS}; }`);
  return lines;
}

/** The file of a pre-rendered filter's answer: its first page, or the page $api_page names. */
function filterAnswer(settings: SettingsPlan): string[] {
  if (settings.filters.length === 0) return [];
  if (!settings.paginated) return ['if ($api_answer = filter) { set $api_file "${api_filter_dir}/index.json"; }'];
  return [
    'set $api_key "$api_answer:$api_page";',
    'if ($api_key = "filter:") { set $api_file "${api_filter_dir}/index.json"; }',
    `if ($api_key ~ ${regex('^filter:(.+)$')}) { set $api_file "\${api_filter_dir}/page=$1.json"; }`,
  ];
}

function resourceLocation(plan: ServerPlan, resource: ResourcePlan): string[] {
  const query =
    resource.query.kind === 'ordered'
      ? orderingQuery(plan, resource, resource.query.orderings)
      : resource.query.kind === 'paginated'
        ? pageQuery(plan, resource, resource.query.pageFile)
        : [`set $api_file ${resource.listFile.get('')};`];
  const { settings } = resource;
  const body = [
    ...dotSegmentCheck(),
    ...formatAndMethod(plan, resource),
    ...(settings ? settingsQuery(settings) : []),
    ...query,
    ...(settings ? filterAnswer(settings) : []),
    ...encodingVary(),
    '# Served from this location, so HEAD, ETag, If-None-Match and Range work as for any file.',
    'rewrite ^ /$api_file break;',
  ];
  return [`location = ${resource.path} {`, ...body.map((line) => `    ${line}`), '}'];
}

/**
 * Vary names Accept-Encoding on the answers that may be sent compressed: those with siblings
 * (the build writes `.gz` and `.br` together), to a client naming gzip or br. gzip_vary would
 * add it to every answer with a `.gz`, identity answers included, as a second Vary header; a
 * client sending no Accept-Encoding gets the answer exactly as without siblings.
 */
function encodingVary(): string[] {
  return [
    '# Vary names Accept-Encoding where the answer may be sent compressed.',
    'set $api_encodings "";',
    'if (-f $document_root/$api_file.gz) { set $api_encodings "sibling"; }',
    `if ($http_accept_encoding ~* ${regex('gzip|br')}) { set $api_encodings "$api_encodings:accepted"; }`,
    'if ($api_encodings = "sibling:accepted") { set $api_vary $api_vary_encoded; }',
  ];
}

/** nginx resolves `.` and `..` segments before matching a location; Django would not. */
function dotSegmentCheck(): string[] {
  return ['if ($request_uri ~ "^[^?]*(?:[.]|%2[eE])") { return 404; }'];
}

/** A document beside the API: its file for GET and HEAD, typed as the document, the API's 404 otherwise. */
function documentLocation(document: DocumentRoute): string[] {
  return [
    `location = ${document.path} {`,
    ...dotSegmentCheck().map((line) => `    ${line}`),
    '    if ($request_method !~ ^(?:GET|HEAD)$) { return 404; }',
    `    default_type ${literal(document.contentType)};`,
    `    rewrite ^ /${document.file} break;`,
    '}',
  ];
}

function redirectLocation(resource: ResourcePlan): string[] {
  return [
    `location = ${resource.noSlash} {`,
    ...dotSegmentCheck().map((line) => `    ${line}`),
    `    return 301 ${resource.path}$is_args$args;`,
    '}',
  ];
}

/** A header value in double quotes: nginx expands a `$` in it, and has no escape for one. */
function headerValue(header: PlannedHeader, part: HeaderPart): string {
  if (part.value.includes('$')) {
    throw new HeadersTargetError(
      NAME,
      part.pattern,
      `sets ${header.name} to a value with "$", which nginx cannot write`,
    );
  }
  return part.value.replaceAll('\\', '\\\\').replaceAll('"', '\\"');
}

/**
 * A header of _headers: in `variable`, the values of the rules that match the request joined
 * with ", " (the first `, ` dropped), then sent when not empty. A value of every path is sent as
 * it is, unless the locations read it (`alwaysVariable`).
 */
function headerLines(header: PlannedHeader, variable: string, alwaysVariable: boolean): string[] {
  const sends = `add_header ${header.name} ${variable} always;`;
  if (everywhereValue(header) !== undefined) {
    const value = `"${header.parts.map((part) => headerValue(header, part)).join(', ')}"`;
    return alwaysVariable ? [`set ${variable} ${value};`, sends] : [`add_header ${header.name} ${value} always;`];
  }
  return [
    `set ${variable} "";`,
    ...header.parts.map((part) => {
      const append = `set ${variable} "${variable.replace('$', '${')}}, ${headerValue(header, part)}";`;
      return part.everywhere ? append : `if ($request_uri ~ ${regex(part.url)}) { ${append} }`;
    }),
    `if (${variable} ~ ${regex('^, (.*)$')}) { set ${variable} $1; }`,
    sends,
  ];
}

export function renderApiConf(plan: ServerPlan): string {
  for (const resource of plan.resources) {
    // The dot-segment check rejects any dot in the path as sent.
    if (resource.path.includes('.')) throw new Error(`nginx: list path with a dot: ${resource.path}`);
  }
  const contentType = everywhereValue(plan.headers.find((header) => header.name.toLowerCase() === 'content-type'));
  const others = plan.headers.filter((header) => header.name.toLowerCase() !== 'content-type');
  const vary = others.find((header) => header.name.toLowerCase() === 'vary');
  const lines = [
    generatedNote(NAME, '#'),
    '#',
    '# The DRF catalogue API as nginx directives. Include this file in a server block of its own',
    '# and set `root` to the folder `npm run build` wrote (public/); see README.md beside it.',
    '#',
    '#     server {',
    '#         listen 80;',
    '#         server_name api.example.com;',
    '#         root /srv/api/public;',
    '#         include /etc/nginx/snippets/api.conf;',
    '#     }',
    '',
    '# Django matches the path as sent: //company/ is not /company/.',
    'merge_slashes off;',
    '# The 301 for a list path without its slash names a relative Location, as Django does.',
    'absolute_redirect off;',
    '# Several ranges in one Range are ignored (a whole 200), as the API answers them; nginx would',
    '# send a multipart/byteranges 206.',
    'max_ranges 1;',
    '',
    "# The headers of _headers, each rule's on the requests its path pattern matches (on the path",
    '# as sent; several matching rules join their values with ", "). No location below has an',
    '# add_header of its own, which would drop these; `always` puts them on 4xx answers too, and',
    '# an empty value sends no header. Vary is $api_vary, which a location that may send a',
    '# precompressed answer sets to $api_vary_encoded, naming Accept-Encoding too.',
    ...others.flatMap((header, index) =>
      headerLines(header, header === vary ? '$api_vary' : `$api_header_${index}`, header === vary),
    ),
    ...(vary === undefined ? ['set $api_vary "";'] : []),
    'set $api_vary_encoded "$api_vary, Accept-Encoding";',
    `if ($api_vary_encoded ~ ${regex('^, (.*)$')}) { set $api_vary_encoded $1; }`,
    ...(vary === undefined ? ['add_header Vary $api_vary always;'] : []),
    '',
    '# Precompressed answers: the build writes <file>.gz (and <file>.br) beside every answer of',
    '# 4 KiB or more, and a client that accepts gzip gets the .gz, with its own ETag and',
    '# Content-Length; nothing is compressed at request time. brotli.conf, beside this file, does',
    '# the same for br where the brotli_static module is loaded. gzip_proxied: the answers carry',
    '# Vary, so a client behind a proxy (Via) gets them too.',
    'gzip_static on;',
    'gzip_proxied any;',
    '# Content-Type comes from the type of the file: every answer is one of the JSON files.',
    'types { }',
    `default_type ${literal(contentType ?? 'application/octet-stream')};`,
    'charset off;',
    '',
    '# Error answers are the pre-rendered files, chosen per request through $api_error. The',
    `# statuses ${OPTIONS_STATUS} and ${UNSUPPORTED_STATUS} never leave the server: they are how a location asks for`,
    '# the OPTIONS body (200) and for the unsupported-ordering error (400).',
    `set $api_error ${plan.notFoundFile};`,
    `error_page 404 ${FILES}$api_error;`,
    `error_page 405 ${FILES}_errors/405/$request_method.json;`,
    `error_page ${OPTIONS_STATUS} =200 ${FILES}$api_error;`,
    `error_page ${UNSUPPORTED_STATUS} =400 ${FILES}$api_error;`,
    '# The 301 keeps its Location and headers but gets an empty JSON answer, as the local server',
    "# sends, instead of nginx's HTML page.",
    `error_page 301 ${REDIRECT};`,
    '# nginx refuses a path that climbs above the root (/../x) with its own 400: to a client of',
    '# the API that is an unknown path.',
    `error_page 400 =404 ${FILES}${plan.notFoundFile};`,
    '',
    '# The files, for the error_page redirects above only. An error or OPTIONS answer is whole:',
    '# no Range slices it and no validator turns it into a 304 (the OPTIONS answer is a 200).',
    `location ^~ ${FILES} {`,
    '    internal;',
    '    max_ranges 0;',
    '    etag off;',
    '    if_modified_since off;',
    `    rewrite ^${FILES}(.*)$ /$1 break;`,
    '}',
    '',
    `location = ${REDIRECT} {`,
    '    internal;',
    '    return 200 "";',
    '}',
    '',
    "# Everything that is not a list path, the output's own files included: 404 Not found.",
    'location / {',
    '    return 404;',
    '}',
    '',
    ...plan.resources.flatMap((resource) => ['', ...resourceLocation(plan, resource)]),
    '',
    "# A list path without its slash: 301 to the slash, keeping the query (Django's APPEND_SLASH).",
    ...plan.resources.flatMap(redirectLocation),
    ...(plan.documents.length > 0 ? ['', '# The documents beside the API (npm run build with the reference on).'] : []),
    ...plan.documents.flatMap(documentLocation),
  ];
  return `${lines.join('\n')}\n`;
}

export function renderExampleConf(): string {
  const temp = (name: string) => `    ${name}_temp_path ${NGINX_RUNTIME}/${name}_temp;`;
  return `${generatedNote(NAME, '#')}
#
# A complete nginx.conf around api.conf that serves public/ on http://127.0.0.1:${LOCAL_PORT}, in the
# foreground, as any user (README.md). Run it from the project folder:
#
#     ${LOCAL_COMMANDS.nginx}
#
# Relative paths are from the folder given with -p: public/ is the root, and nginx writes its pid
# and temp files to ${NGINX_RUNTIME}/ and nothing anywhere else (no access log; errors on stderr).

daemon off;
worker_processes 1;
pid ${NGINX_RUNTIME}/nginx.pid;
error_log stderr;
# The br answers need the brotli_static module (README.md): once installed, uncomment this line
# and the include of brotli.conf below.
# load_module /usr/lib/nginx/modules/ngx_http_brotli_static_module.so;

events {
    worker_connections 256;
}

http {
    sendfile on;
    server_tokens off;
    access_log off;
${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n')}

    server {
        listen 127.0.0.1:${LOCAL_PORT};
        # The folder \`npm run build\` wrote, relative to the -p folder.
        root public;
        include api.conf;
        # include brotli.conf;
    }
}
`;
}

/** The brotli_static directive, apart: nginx refuses a directive of a module it has not loaded. */
export function renderBrotliConf(): string {
  return `${generatedNote(NAME, '#')}
#
# Include this file beside api.conf, in the same server block, where nginx loads the
# brotli_static module (Debian: apt-get install libnginx-mod-http-brotli-static, which loads it
# from /etc/nginx/modules-enabled/). A client that accepts br then gets <file>.br, which the
# build writes beside every answer of 4 KiB or more; see README.md.
brotli_static on;
`;
}

/** The files of targets/nginx/. */
export function nginxFiles(context: TargetContext): Map<string, string> {
  // default_type is one type for every answer: nginx sets no Content-Type per request.
  const plan = serverPlan(context, NAME, ['content-type']);
  return new Map([
    ['api.conf', renderApiConf(plan)],
    ['brotli.conf', renderBrotliConf()],
    ['nginx.conf', renderExampleConf()],
    ['README.md', nginxReadme(context.resources) + settingsSection(settingsLists(plan))],
  ]);
}
