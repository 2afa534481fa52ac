// Deploy target `apache`: targets/apache/api.conf, the API as mod_rewrite rules for a <VirtualHost>
// of its own (the user defines API_ROOT, the build output). Generated from the route table
// (./plan.ts) and the query patterns (./query.ts). Apache's core answers OPTIONS
// itself, with an empty body: without a script module it cannot send DRF's metadata there.

import { generatedNote } from '../generated-note.ts';
import { HeadersTargetError, type TargetContext } from '../target.ts';
import { APACHE_RUNTIME, LOCAL_COMMANDS, LOCAL_PORT } from './local-run.ts';
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
  exactPath,
  filterState,
  formatValue,
  formatValues,
  HAS_COMMA,
  lastValue,
  listState,
  NOT_EMPTY,
  orderingTerm,
  PAGE_LAST,
  PAGE_NUMBER,
  stripped,
} from './query.ts';
import { apacheReadme, settingsSection } from './readmes.ts';
import { apache } from './targets.ts';

const NAME = apache.name;
/** The URL every ErrorDocument points at; the rules below serve the body the request chose. */
const ERROR_URL = '/_api_error_';
/** The URL the 301's ErrorDocument points at: answered with an empty body (/dev/null). */
const REDIRECT_URL = '/_api_redirect_';

/** A config argument in double quotes; ours never hold a quote or a backslash. */
function quoted(text: string): string {
  if (/["\\]/.test(text)) throw new Error(`apache: cannot quote ${text}`);
  return `"${text}"`;
}

/** The rule pattern of one path (RewriteRule sees the decoded URL-path in server context). */
const pathPattern = (path: string) => quoted(exactPath(path));

/**
 * A rule that answers with the file; Apache's core serves it (HEAD, ETag, Range). [L], not
 * [END]: END would also skip the rules of an ErrorDocument request that may follow (a page
 * file that does not exist becomes the 404 Invalid page through them).
 */
function serveFile(pattern: string, file: string, flags = ''): string {
  return `RewriteRule ${pattern} "%{DOCUMENT_ROOT}/${file}" [${flags}L]`;
}

/** Accept-Encoding names the coding with a weight above 0 (a `;q=0` refuses it). */
const ACCEPTS = (coding: string) => [
  `RewriteCond %{HTTP:Accept-Encoding} ${quoted(`(?:^|,)[[:blank:]]*${coding}[[:blank:]]*(?:[,;]|$)`)} [NC]`,
  `RewriteCond %{HTTP:Accept-Encoding} ${quoted(`!(?:^|,)[[:blank:]]*${coding}[[:blank:]]*;[[:blank:]]*q=0(?:[.]0*)?[[:blank:]]*(?:,|$)`)} [NC]`,
];

/**
 * The rules that answer with an answer file under `conditions`: its br sibling, then its gzip
 * sibling, to a client that accepts that coding, where the build wrote one (answers of 4 KiB or
 * more); else the file itself. `file` names no %N: the conditions are not the last ones matched.
 * API_ENCODED adds Accept-Encoding to Vary; no-gzip and no-brotli keep mod_deflate and
 * mod_brotli, where loaded, from compressing the sibling again.
 */
function serveAnswer(conditions: readonly string[], pattern: string, file: string, flags = ''): string[] {
  const sibling = (coding: string, extension: string) => [
    ...conditions,
    ...ACCEPTS(coding),
    `RewriteCond "%{DOCUMENT_ROOT}/${file}${extension}" -f`,
    serveFile(pattern, `${file}${extension}`, `${flags}E=API_ENCODED:1,E=no-gzip:1,E=no-brotli:1,`),
  ];
  return [...sibling('br', '.br'), ...sibling('gzip', '.gz'), ...conditions, serveFile(pattern, file, flags)];
}

/** A rule that fails with a status; the ErrorDocument then serves the file named in API_ERROR. */
function fail(pattern: string, status: number, file?: string): string {
  return `RewriteRule ${pattern} - [${file ? `E=API_ERROR:${file},` : ''}R=${status},L]`;
}

function formatAndMethod(plan: ServerPlan): string[] {
  const lists = quoted(`^(?:${plan.resources.map((resource) => exactPath(resource.path).slice(1, -1)).join('|')})$`);
  return [
    '# format: api and json answer like no format; any other value is 404 Not found (DRF checks it',
    '# before the method).',
    'RewriteCond %{ENV:API_FORMAT_RAW} .',
    `RewriteCond %{ENV:API_FORMAT_RAW} ${quoted(`!${formatValues(plan.formats)}`)}`,
    fail(lists, 404),
    ...plan.formats.flatMap((format) => [
      `RewriteCond %{ENV:API_FORMAT_RAW} ${quoted(formatValue(format))}`,
      `RewriteRule ^ - [E=API_FORMAT:${format}]`,
    ]),
    "# OPTIONS: Apache's core answers it (200, no body) for the list's OPTIONS file.",
    ...plan.resources.flatMap((resource) => [
      'RewriteCond %{REQUEST_METHOD} =OPTIONS',
      serveFile(pathPattern(resource.path), resource.optionsFile),
    ]),
    '# Every other method but GET and HEAD: 405 with the pre-rendered body of that method.',
    'RewriteCond %{REQUEST_METHOD} !^(?:GET|HEAD)$',
    fail(lists, 405, plan.methodNotAllowedFile('%{REQUEST_METHOD}')),
  ];
}

function orderingRules(plan: ServerPlan, list: ResourcePlan, orderings: readonly OrderingPlan[]): string[] {
  const pattern = pathPattern(list.path);
  return [
    '# ordering: one field, either direction (the term may be percent-encoded and padded with',
    '# spaces, as DRF decodes and strips it); an unknown term is the default order. Several',
    '# comma-separated fields cannot be sorted here: 400 with an explicit error, never a wrong list.',
    `RewriteCond %{ENV:API_ORDERING} ${quoted(HAS_COMMA)}`,
    fail(pattern, 400, plan.unsupportedOrderingFile),
    `RewriteCond %{ENV:API_ORDERING} ${quoted(stripped())}`,
    `RewriteRule ${pattern} - [E=API_TERM:%1]`,
    ...orderings
      .filter((ordering) => ordering.file !== list.listFile.get(''))
      .flatMap((ordering) =>
        serveAnswer([`RewriteCond %{ENV:API_TERM} ${quoted(orderingTerm(ordering.term))}`], pattern, ordering.file),
      ),
    ...serveAnswer([], pattern, list.listFile.get('') as string),
  ];
}

/**
 * The settings file's filters, search and ordering of one list (SettingsPlan): API_ANSWER is
 * `list` for a request the list's own files answer, `filter` for a pre-rendered filter's (its
 * folder in API_FILTER_DIR); any other request gets the unsupported-query error. Each key sent
 * with a value adds `<key>;` to API_KEYS (a comma would end the flag).
 */
function settingsRules(list: ResourcePlan, settings: SettingsPlan): string[] {
  const pattern = pathPattern(list.path);
  const state = '%{ENV:API_FORMAT}:%{ENV:API_KEYS}:%{ENV:API_FILTER}';
  return [
    `# ${list.path}: the filters, search and ordering of the settings file. One filter of`,
    '# prerendered_filters alone, with a value the build wrote files for, is answered from them;',
    '# anything else the settings name gets 400 with an explicit error, never the unfiltered list.',
    `RewriteRule ${pattern} - [E=API_KEYS:,E=API_FILTER:,E=API_FILTER_DIR:,E=API_ANSWER:]`,
    ...settings.keys.flatMap((key) => [
      `RewriteRule ${pattern} - [E=API_VALUE:]`,
      `RewriteCond %{QUERY_STRING} ${quoted(lastValue(key))}`,
      `RewriteRule ${pattern} - [E=API_VALUE:%1]`,
      `RewriteCond %{ENV:API_VALUE} ${quoted(NOT_EMPTY)}`,
      `RewriteRule ${pattern} - [E=API_KEYS:%{ENV:API_KEYS}${key};]`,
      ...(settings.filters.find((filter) => filter.field === key)?.values ?? []).flatMap((value) => [
        `RewriteCond %{ENV:API_VALUE} ${quoted(value.pattern)}`,
        `RewriteRule ${pattern} - [E=API_FILTER:${key},E=API_FILTER_DIR:${value.dir}]`,
      ]),
    ]),
    `RewriteCond ${state} ${quoted(listState(settings))}`,
    `RewriteRule ${pattern} - [E=API_ANSWER:list]`,
    ...(settings.filters.length > 0
      ? [`RewriteCond ${state} ${quoted(filterState(settings))}`, `RewriteRule ${pattern} - [E=API_ANSWER:filter]`]
      : []),
    'RewriteCond %{ENV:API_ANSWER} ^$',
    fail(pattern, 400, settings.unsupportedFile),
    ...(settings.paginated || settings.filters.length === 0
      ? []
      : serveAnswer(['RewriteCond %{ENV:API_ANSWER} =filter'], pattern, '%{ENV:API_FILTER_DIR}/index.json')),
    '',
  ];
}

/** A paginated list's pre-rendered filter answer, once API_PAGE is read: its first page or that page. */
function filterPageRules(plan: ServerPlan, pattern: string, settings: SettingsPlan | undefined): string[] {
  if (!settings || settings.filters.length === 0) return [];
  return [
    ...serveAnswer(
      ['RewriteCond %{ENV:API_ANSWER}:%{ENV:API_PAGE} =filter:'],
      pattern,
      '%{ENV:API_FILTER_DIR}/index.json',
    ),
    ...serveAnswer(
      ['RewriteCond %{ENV:API_ANSWER}:%{ENV:API_PAGE} ^filter:.'],
      pattern,
      '%{ENV:API_FILTER_DIR}/page=%{ENV:API_PAGE}.json',
      `E=API_ERROR:${plan.invalidPageFile},`,
    ),
  ];
}

function pageRules(plan: ServerPlan, list: ResourcePlan, pageFile: PageFile): string[] {
  const pattern = pathPattern(list.path);
  const formats = ['', ...plan.formats];
  return [
    "# page: a number as Python's int() reads it (spaces, a sign and leading zeros allowed) or",
    '# "last"; anything else is 404 Invalid page, and so is a number beyond the last page (no file).',
    `RewriteCond %{ENV:API_PAGE_RAW} ${quoted(PAGE_LAST)}`,
    `RewriteRule ${pattern} - [E=API_PAGE:last]`,
    `RewriteCond %{ENV:API_PAGE_RAW} ${quoted(PAGE_NUMBER)}`,
    `RewriteRule ${pattern} - [E=API_PAGE:%1]`,
    'RewriteCond %{ENV:API_PAGE} =invalid',
    fail(pattern, 404, plan.invalidPageFile),
    'RewriteCond %{ENV:API_PAGE} =1',
    `RewriteRule ${pattern} - [E=API_PAGE:]`,
    ...filterPageRules(plan, pattern, list.settings),
    ...formats.flatMap((format) =>
      serveAnswer(
        [`RewriteCond %{ENV:API_FORMAT}:%{ENV:API_PAGE} ${quoted(`^${format}:.`)}`],
        pattern,
        pageFile(format, '%{ENV:API_PAGE}'),
        `E=API_ERROR:${plan.invalidPageFile},`,
      ),
    ),
    ...formats.flatMap((format) =>
      serveAnswer(
        [`RewriteCond %{ENV:API_FORMAT} ${quoted(`^${format}$`)}`],
        pattern,
        list.listFile.get(format) as string,
      ),
    ),
  ];
}

/** The variables the rules below set per request. */
const VARIABLES = ['API_FORMAT_RAW', 'API_FORMAT', 'API_ORDERING', 'API_TERM', 'API_PAGE_RAW', 'API_PAGE', 'API_ERROR'];

function readQuery(): string[] {
  // RewriteCond's %1 is the value; an absent key leaves the variable empty.
  const readLastValue = (key: string, env: string) => [
    `RewriteCond %{QUERY_STRING} ${quoted(lastValue(key))}`,
    `RewriteRule ^ - [E=${env}:%1]`,
  ];
  return [
    "# Every variable starts empty (an unset one would read the server process's environment).",
    `RewriteRule ^ - [${VARIABLES.map((name) => `E=${name}:`).join(',')}]`,
    '# The last value of each key the lists read, as sent (mod_rewrite cannot decode a value).',
    ...readLastValue(QUERY_KEYS.format, 'API_FORMAT_RAW'),
    ...readLastValue(QUERY_KEYS.ordering, 'API_ORDERING'),
    // A page key with any value is invalid until the value is read as last or a number.
    `RewriteCond %{QUERY_STRING} ${quoted(lastValue(QUERY_KEYS.page))}`,
    'RewriteRule ^ - [E=API_PAGE:invalid,E=API_PAGE_RAW:%1]',
  ];
}

function redirects(plan: ServerPlan): string[] {
  // The query string stays as sent (NE: not escaped again). The ErrorDocument of 301 replaces
  // Apache's HTML page with an empty body, and the Header edit makes mod_rewrite's absolute
  // Location relative again, as Django sends it.
  return plan.resources.flatMap((resource) => [
    'RewriteCond %{QUERY_STRING} .',
    `RewriteRule ${pathPattern(resource.noSlash)} ${resource.path} [R=301,NE,L]`,
    // `/company?`: no query, so no `?` either (QSD), as Django writes it.
    `RewriteRule ${pathPattern(resource.noSlash)} ${resource.path} [R=301,QSD,L]`,
  ]);
}

/**
 * A header of _headers: each rule's value appended (joined with ", ") on the requests its
 * pattern matches, read on the request line as sent (the ErrorDocument request keeps it). The
 * value is mod_headers' format, where `%%` is a `%`; it reads a backslash as an escape.
 */
function headerLines(header: PlannedHeader): string[] {
  return [
    `Header unset ${header.name}`,
    ...header.parts.map((part: HeaderPart, index) => {
      if (part.value.includes('\\')) {
        throw new HeadersTargetError(
          NAME,
          part.pattern,
          `sets ${header.name} to a value with "\\", which Apache reads as an escape`,
        );
      }
      const value = `"${part.value.replaceAll('"', '\\"').replaceAll('%', '%%')}"`;
      const condition = part.everywhere
        ? ''
        : ` ${quoted(`expr=%{THE_REQUEST} =~ m#^[^ ]+ ${part.path}(?:[?][^ ]*)? #`)}`;
      return `Header always ${index === 0 && part.everywhere ? 'set' : 'append'} ${header.name} ${value}${condition}`;
    }),
  ];
}

export function renderApacheConf(plan: ServerPlan): string {
  const contentType = everywhereValue(plan.headers.find((header) => header.name.toLowerCase() === 'content-type'));
  const others = plan.headers.filter((header) => header.name.toLowerCase() !== 'content-type');
  const rules = [
    'RewriteEngine On',
    '',
    '# An ErrorDocument request: answer with the file the failed request named in API_ERROR',
    "# (404 Not found when Apache's core failed it before any rule ran).",
    'RewriteCond %{ENV:REDIRECT_STATUS} .',
    `RewriteCond %{ENV:REDIRECT_API_ERROR} ${quoted('^(_errors/[-_./=A-Za-z0-9]+)$')}`,
    serveFile(pathPattern(ERROR_URL), '%1'),
    'RewriteCond %{ENV:REDIRECT_STATUS} .',
    serveFile(pathPattern(ERROR_URL), plan.notFoundFile),
    '# The ErrorDocument request of a slash redirect: an empty body, as Django sends.',
    'RewriteCond %{ENV:REDIRECT_STATUS} =301',
    `RewriteRule ${pathPattern(REDIRECT_URL)} /dev/null [L]`,
    '',
    '# Apache resolves `.` and `..` segments and drops the extra slashes of a path starting with',
    '# // before the rules run; to Django /x/../company/ and //company/ are not /company/. A dot',
    '# anywhere in the path as sent (after the scheme and host of an absolute URL in the request line), or',
    '# a path starting with //, is such a path or an unknown one: 404 Not found.',
    `RewriteCond %{THE_REQUEST} ${quoted('^[^ ]+ (?:[A-Za-z][-+.A-Za-z0-9]*://[^/ ]*)?(?://|/[^? ]*(?:[.]|%2[eE]))')}`,
    fail('^', 404),
    '',
    "# A list path without its slash: 301 to the slash, keeping the query (Django's APPEND_SLASH).",
    ...redirects(plan),
    '',
    ...plan.documents.flatMap((document, index) => [
      index === 0 ? '# The documents beside the API (npm run build with the reference on): GET and HEAD only.' : '',
      'RewriteCond %{REQUEST_METHOD} ^(?:GET|HEAD)$',
      serveFile(pathPattern(document.path), document.file, `E=API_DOCUMENT_${index}:1,`),
    ]),
    ...readQuery(),
    '',
    ...formatAndMethod(plan),
    '',
    ...plan.resources.flatMap((resource) => (resource.settings ? settingsRules(resource, resource.settings) : [])),
    ...plan.resources.flatMap((resource) =>
      resource.query.kind === 'ordered' ? [...orderingRules(plan, resource, resource.query.orderings), ''] : [],
    ),
    ...plan.resources.flatMap((resource) =>
      resource.query.kind === 'paginated' ? [...pageRules(plan, resource, resource.query.pageFile), ''] : [],
    ),
    '# The other lists.',
    ...plan.resources
      .filter((resource) => resource.query.kind === 'plain')
      .flatMap((resource) => serveAnswer([], pathPattern(resource.path), resource.listFile.get('') as string)),
    '',
    "# Everything else, the output's own files included: 404 Not found.",
    fail('^', 404),
  ];
  const lines = [
    generatedNote(NAME, '#'),
    '#',
    '# The DRF catalogue API as Apache httpd (2.4) directives for a <VirtualHost> of its own; see',
    '# README.md beside it. Needs mod_rewrite, mod_headers and mod_mime (a2enmod rewrite headers).',
    '# The one setting: define API_ROOT, the folder `npm run build` wrote (public/), before it:',
    '#',
    '#     <VirtualHost *:80>',
    '#         ServerName api.example.com',
    '#         Define API_ROOT /srv/api/public',
    '#         Include /etc/apache2/api.conf',
    '#     </VirtualHost>',
    '',
    'DocumentRoot "${API_ROOT}"',
    '<Directory "${API_ROOT}">',
    '    Options None',
    '    AllowOverride None',
    '    Require all granted',
    '    # Every file of the build output is one JSON answer.',
    `    ForceType ${quoted(contentType ?? 'application/octet-stream')}`,
    "    # An answer's precompressed siblings, which the rules below serve to a client that accepts",
    '    # them: their Content-Encoding comes from their name.',
    '    AddEncoding br .br',
    '    AddEncoding gzip .gz',
    '</Directory>',
    '# The empty body of the slash redirect (see the ErrorDocument of 301 below).',
    '<Directory "/dev">',
    '    <Files "null">',
    '        Require all granted',
    '    </Files>',
    '</Directory>',
    '# Django matches the path as sent: //company/ is not /company/, /company%2F is.',
    'MergeSlashes Off',
    'AllowEncodedSlashes On',
    'AddDefaultCharset Off',
    '# Several ranges in one Range are ignored (a whole 200), as the API answers them; Apache would',
    '# send a multipart/byteranges 206.',
    'MaxRanges 1',
    '',
    "# The headers of _headers, each rule's on the requests its path pattern matches, exactly once:",
    '# `always` covers error answers, and unsetting the success table drops what Apache itself adds',
    '# there (its own Allow on OPTIONS).',
    ...others.flatMap(headerLines),
    ...(contentType ? [`Header always set Content-Type ${quoted(contentType)}`] : []),
    '# A precompressed answer varies with Accept-Encoding too (one Vary header: append merges).',
    'Header always append Vary Accept-Encoding env=API_ENCODED',
    // After the API's: the later `set` wins for the document the rules below served.
    ...plan.documents.map(
      (document, index) => `Header always set Content-Type ${quoted(document.contentType)} env=API_DOCUMENT_${index}`,
    ),
    '# Django sends the slash redirect with a relative Location; mod_rewrite makes it absolute.',
    // Both tables: the Location of the ErrorDocument request is in the success table.
    ...['Header edit', 'Header always edit'].map(
      (header) => `${header} Location "^[A-Za-z][-+.A-Za-z0-9]*://[^/]+(/.*)$" "$1"`,
    ),
    '',
    `# Error answers are the pre-rendered files: ${ERROR_URL} is answered by the first rules below.`,
    ...[400, 404, 405].map((status) => `ErrorDocument ${status} ${ERROR_URL}`),
    `ErrorDocument 301 ${REDIRECT_URL}`,
    '',
    ...rules,
  ];
  return `${lines.join('\n')}\n`;
}

/** Module folders of Debian, then Fedora's and Arch's; the first that holds mod_rewrite is used. */
const MODULE_DIRS = ['/usr/lib/apache2/modules', '/usr/lib64/httpd/modules', '/usr/lib/httpd/modules'];
/** What api.conf needs, an MPM, unixd and authz_core for `Require`; each loaded unless built in (Debian builds in unixd). */
const MODULES = ['mpm_event', 'unixd', 'authz_core', 'mime', 'headers', 'rewrite'];

/** A server configuration around api.conf that serves public/ in the foreground as any user. */
export function renderExampleConf(): string {
  const listen = `127.0.0.1:${LOCAL_PORT}`;
  return `${generatedNote(NAME, '#')}
#
# A complete Apache configuration around api.conf that serves public/ on http://${listen},
# in the foreground, as any user (README.md). Run it from the project folder:
#
#     ${LOCAL_COMMANDS.apache}
#
# -d makes the project folder the ServerRoot, which relative paths below are from: Apache writes
# its pid, lock and error log to ${APACHE_RUNTIME}/ and nothing anywhere else. API_ROOT, which
# api.conf reads, comes from the environment.

PidFile ${APACHE_RUNTIME}/httpd.pid
DefaultRuntimeDir ${APACHE_RUNTIME}
Mutex file:${APACHE_RUNTIME} default
ErrorLog ${APACHE_RUNTIME}/error.log
LogLevel warn
Listen ${listen}
ServerName localhost
# No mime.types: api.conf sets the type of every answer.
TypesConfig /dev/null

${MODULE_DIRS.map(
  (dir) => `<IfFile ${dir}/mod_rewrite.so>
    <IfDefine !API_MODULES>
        Define API_MODULES ${dir}
    </IfDefine>
</IfFile>`,
).join('\n')}
${MODULES.map(
  (name) => `<IfModule !${name}_module>
    LoadModule ${name}_module \${API_MODULES}/mod_${name}.so
</IfModule>`,
).join('\n')}

<VirtualHost ${listen}>
    Include targets/apache/api.conf
</VirtualHost>
`;
}

/** The files of targets/apache/. */
export function apacheFiles(context: TargetContext): Map<string, string> {
  // ForceType is one type for every answer file.
  const plan = serverPlan(context, NAME, ['content-type']);
  return new Map([
    ['api.conf', renderApacheConf(plan)],
    ['httpd.conf', renderExampleConf()],
    ['README.md', apacheReadme(context.resources) + settingsSection(settingsLists(plan))],
  ]);
}
