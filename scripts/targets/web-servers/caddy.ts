// Deploy target `caddy`: targets/caddy/Caddyfile, the API as one Caddy site whose root and address
// come from environment variables ({$API_ROOT}, {$API_ADDRESS}). Generated from the route table
// (./plan.ts) and the query patterns (./query.ts). Tested on Caddy 2.6 (Debian 12);
// the OPTIONS and error answers ask the file server with GET, as Caddy 2.7+ requires.

import type { DocumentRoute } from '../../contract/routes.ts';
import { generatedNote } from '../generated-note.ts';
import { HeadersTargetError, type TargetContext } from '../target.ts';
import { LOCAL_COMMANDS, LOCAL_PORT } from './local-run.ts';
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
  PAGE_LAST,
  PAGE_NUMBER,
  paddedTerm,
} from './query.ts';
import { caddyReadme, settingsSection } from './readmes.ts';
import { caddy } from './targets.ts';

const NAME = caddy.name;
export const DEFAULT_ROOT = '/srv/api/public';
/** Plain HTTP: a site address without `http://` would start Caddy's automatic HTTPS (README.md). */
export const DEFAULT_ADDRESS = `http://localhost:${LOCAL_PORT}`;
/** The site, for a Caddyfile of the user's own to import; the Caddyfile beside it runs it alone. */
const SITE_FILE = 'api.caddyfile';
/** Request headers that make a file server answer with less than the whole file. */
const CONDITIONAL_HEADERS = [
  'Range',
  'If-Range',
  'If-Match',
  'If-None-Match',
  'If-Modified-Since',
  'If-Unmodified-Since',
];

/** A Caddyfile token in double quotes; ours never hold a quote, a backslash or a brace. */
function quoted(text: string): string {
  if (/["\\{}]/.test(text)) throw new Error(`caddy: cannot quote ${text}`);
  return `"${text}"`;
}

function block(head: string, lines: readonly string[]): string[] {
  return [`${head} {`, ...lines.map((line) => (line === '' ? '' : `\t${line}`)), '}'];
}

/**
 * Serves one file of the build output as the answer (status 200, or the file_server's 404). A
 * client that accepts br or gzip gets the file's precompressed sibling when the build wrote one
 * (answers of 4 KiB or more), with Content-Encoding, its own ETag and `Vary: Accept-Encoding`.
 */
function serve(file: string): string[] {
  return [`rewrite * /${file}`, ...block('file_server', ['precompressed br gzip'])];
}

/** Codings of the precompressed siblings, in the order they are preferred, with their extension. */
const SIBLINGS = [
  ['br', '.br'],
  ['gzip', '.gz'],
] as const;

/**
 * Serves a list's answer file: to a client that accepts br or gzip (with a weight above 0), the
 * sibling the build wrote for it (answers of 4 KiB or more), else the file as serve() does. The file server's own
 * `precompressed` sets Content-Encoding before Go's http.ServeContent runs, which then writes no
 * Content-Length (GET goes out chunked, HEAD with no length); here the sibling is served as a file
 * of its own, with its length and ETag, and Content-Encoding is added as the header is written.
 */
function serveAnswer(file: string): string[] {
  return [
    ...SIBLINGS.flatMap(([coding, extension]) => [
      ...block(`@${coding}_sibling`, [
        `header_regexp Accept-Encoding ${quoted(`(?i)(?:^|,)[[:blank:]]*${coding}[[:blank:]]*(?:[,;]|$)`)}`,
        `not header_regexp Accept-Encoding ${quoted(`(?i)(?:^|,)[[:blank:]]*${coding}[[:blank:]]*;[[:blank:]]*q=0(?:[.]0*)?[[:blank:]]*(?:,|$)`)}`,
        `file /${file}${extension}`,
      ]),
      ...block(`route @${coding}_sibling`, [
        'header +Vary Accept-Encoding',
        ...block('header', ['defer', `Content-Encoding ${coding}`]),
        `rewrite * /${file}${extension}`,
        'file_server',
      ]),
    ]),
    ...serve(file),
  ];
}

/** Fails with a status; handle_errors answers with the file in {vars.api_error}. */
function fail(matcher: string, status: number, file?: string): string[] {
  return [...(file ? [`vars ${matcher} api_error ${file}`] : []), `error ${matcher} ${status}`];
}

function formatAndMethod(plan: ServerPlan, resource: ResourcePlan): string[] {
  const [before, after] = plan.methodNotAllowedBody;
  return [
    '# format: api and json answer like no format; any other value is 404 Not found (DRF checks it first).',
    ...block('@bad_format', [
      'not vars api_format_raw ""',
      `not vars_regexp api_format_raw ${quoted(formatValues(plan.formats))}`,
    ]),
    ...fail('@bad_format', 404),
    ...plan.formats.map((format) => `@format_${format} vars_regexp api_format_raw ${quoted(formatValue(format))}`),
    ...plan.formats.map((format) => `vars @format_${format} api_format ${format}`),
    '# Methods: OPTIONS gets the metadata, every method but GET and HEAD a 405.',
    '@options method OPTIONS',
    // Caddy 2.6 serves a file for any method; later versions answer a file_server request that
    // is not GET or HEAD with their own 405, so the file is asked for with GET.
    // A whole answer: without the headers that would slice it (206) or empty it (304).
    ...block('route @options', [
      'method GET',
      ...CONDITIONAL_HEADERS.map((name) => `request_header -${name}`),
      ...serve(resource.optionsFile),
    ]),
    `@rejected method ${plan.rejectedMethods.join(' ')}`,
    ...fail('@rejected', 405, plan.methodNotAllowedFile('{method}')),
    '@other_method not method GET HEAD',
    // A method without a pre-rendered body: the same text around its name.
    `respond @other_method \`${before}{method}${after}\` 405`,
  ];
}

function orderingQuery(plan: ServerPlan, list: ResourcePlan, orderings: readonly OrderingPlan[]): string[] {
  return [
    '# ordering: one field, either direction (the term may be percent-encoded and padded with',
    '# spaces, as DRF decodes and strips it); an unknown term is the default order. Several',
    '# comma-separated fields cannot be sorted here: 400 with an explicit error, never a wrong list.',
    `@several_fields vars_regexp api_ordering ${quoted(HAS_COMMA)}`,
    ...fail('@several_fields', 400, plan.unsupportedOrderingFile),
    `vars api_file ${list.listFile.get('')}`,
    ...orderings.flatMap((ordering, i) => [
      `@ordering_${i} vars_regexp api_ordering ${quoted(paddedTerm(ordering.term))}`,
      `vars @ordering_${i} api_file ${ordering.file}`,
    ]),
  ];
}

function pageQuery(plan: ServerPlan, list: ResourcePlan, pageFile: PageFile): string[] {
  const formats = ['', ...plan.formats];
  return [
    `vars api_file ${list.listFile.get('')}`,
    ...plan.formats.flatMap((format) => [
      `@list_${format} vars api_format ${format}`,
      `vars @list_${format} api_file ${list.listFile.get(format)}`,
    ]),
    "# page: a number as Python's int() reads it (spaces, a sign and leading zeros allowed) or",
    '# "last"; anything else is 404 Invalid page, and so is a number beyond the last page (no file).',
    `@page_last vars_regexp api_page_raw ${quoted(PAGE_LAST)}`,
    'vars @page_last api_page last',
    `@page_number vars_regexp number api_page_raw ${quoted(PAGE_NUMBER)}`,
    'vars @page_number api_page {re.number.1}',
    '@page_invalid vars api_page invalid',
    ...fail('@page_invalid', 404, plan.invalidPageFile),
    '@page_one vars api_page 1',
    'vars @page_one api_page ""',
    '@page_other not vars api_page ""',
    `vars @page_other api_error ${plan.invalidPageFile}`,
    ...formats.flatMap((format, i) => [
      ...block(`@page_file_${i}`, [`vars api_format ${format === '' ? '""' : format}`, 'not vars api_page ""']),
      `vars @page_file_${i} api_file ${pageFile(format, '{vars.api_page}')}`,
    ]),
  ];
}

/**
 * The settings file's filters, search and ordering (SettingsPlan): {vars.api_answer} is `list`
 * for a request the list's own files answer, `filter` for a pre-rendered filter's (its folder in
 * {vars.api_filter_dir}); any other request gets the unsupported-query error. A key's value goes
 * into a variable whose name holds `%%`, which no value pattern matches: Caddy 2.6's vars_regexp
 * also tries its regex on the variable's name.
 */
function settingsQuery(settings: SettingsPlan): string[] {
  const lines = [
    '# The filters, search and ordering of the settings file: one filter of prerendered_filters',
    '# alone, with a value the build wrote files for, is answered from them; anything else the',
    '# settings name gets 400 with an explicit error, never the unfiltered list.',
    ...block('vars', ['api_keys ""', 'api_filter ""', 'api_filter_dir ""', 'api_answer ""']),
  ];
  for (const [i, key] of settings.keys.entries()) {
    const value = `api%%${i}`;
    lines.push(
      `vars ${value} ""`,
      `@setting_${i} vars_regexp setting_${i} {query} ${quoted(lastValue(key))}`,
      `vars @setting_${i} ${value} {re.setting_${i}.1}`,
      `@setting_${i}_sent not vars ${value} ""`,
      `vars @setting_${i}_sent api_keys "{vars.api_keys}${key};"`,
    );
    const values = settings.filters.find((filter) => filter.field === key)?.values ?? [];
    for (const [j, each] of values.entries()) {
      lines.push(
        `@setting_${i}_${j} vars_regexp ${value} ${quoted(each.pattern)}`,
        ...block(`vars @setting_${i}_${j}`, [`api_filter ${key}`, `api_filter_dir ${each.dir}`]),
      );
    }
  }
  lines.push(
    'vars api_state "{vars.api_format}:{vars.api_keys}:{vars.api_filter}"',
    `@list_state vars_regexp api_state ${quoted(listState(settings))}`,
    'vars @list_state api_answer list',
  );
  if (settings.filters.length > 0)
    lines.push(
      `@filter_state vars_regexp api_state ${quoted(filterState(settings))}`,
      'vars @filter_state api_answer filter',
    );
  lines.push('@unsupported vars api_answer ""', ...fail('@unsupported', 400, settings.unsupportedFile));
  return lines;
}

/** The file of a pre-rendered filter's answer: its first page, or the page {vars.api_page} names. */
function filterAnswer(settings: SettingsPlan): string[] {
  if (settings.filters.length === 0) return [];
  // One variable per `vars` matcher: Caddy's matches when any of its variables has its value, so
  // `vars api_answer filter` beside `vars api_page ""` would take the plain list's first page too.
  const first = [
    '@filter_answer vars api_answer filter',
    'vars @filter_answer api_file {vars.api_filter_dir}/index.json',
  ];
  if (!settings.paginated) return first;
  return [
    ...first,
    ...block('@filter_page', ['vars api_answer filter', 'not vars api_page ""']),
    'vars @filter_page api_file {vars.api_filter_dir}/page={vars.api_page}.json',
  ];
}

function resourceRoute(plan: ServerPlan, resource: ResourcePlan): string[] {
  const query =
    resource.query.kind === 'ordered'
      ? orderingQuery(plan, resource, resource.query.orderings)
      : resource.query.kind === 'paginated'
        ? pageQuery(plan, resource, resource.query.pageFile)
        : [`vars api_file ${resource.listFile.get('')}`];
  return [
    `@${resource.name} vars_regexp {http.request.uri.path} ${quoted(exactPath(resource.path))}`,
    ...block(`route @${resource.name}`, [
      ...formatAndMethod(plan, resource),
      ...(resource.settings ? settingsQuery(resource.settings) : []),
      ...query,
      ...(resource.settings ? filterAnswer(resource.settings) : []),
      ...serveAnswer('{vars.api_file}'),
    ]),
  ];
}

/** A document beside the API: its file for GET and HEAD, typed as the document, the API's 404 otherwise. */
function documentRoute(document: DocumentRoute, index: number): string[] {
  const name = `document_${index}`;
  return [
    `@${name} vars_regexp {http.request.uri.path} ${quoted(exactPath(document.path))}`,
    ...block(`route @${name}`, [
      '@document_other_method not method GET HEAD',
      'error @document_other_method 404',
      `header Content-Type ${quoted(document.contentType)}`,
      ...serve(document.file),
    ]),
  ];
}

function redirectRoute(resource: ResourcePlan): string[] {
  const name = `${resource.name}_no_slash`;
  return [
    `@${name} vars_regexp {http.request.uri.path} ${quoted(exactPath(resource.noSlash))}`,
    ...block(`route @${name}`, [
      '@with_query not vars {query} ""',
      `redir @with_query ${resource.path}?{query} 301`,
      `redir * ${resource.path} 301`,
    ]),
  ];
}

/** The query values the lists read, each the last of its key (unset: empty). */
function readQuery(plan: ServerPlan): string[] {
  const keys = Object.values(QUERY_KEYS);
  return [
    // Caddy 2.6's vars_regexp matches when its regex matches the value or the key itself (a
    // variable's name; "<nil>" for a placeholder key such as {query}). No pattern here can match
    // a name or "<nil>", and emptiness is tested with the vars matcher (`not vars x ""`), never
    // with a regex like ^.+$.
    '# Every variable starts defined: a matcher reads an unset one as "<nil>".',
    ...block('vars', [
      `api_error ${plan.notFoundFile}`,
      ...['api_format_raw', 'api_format', 'api_ordering', 'api_page_raw', 'api_page', 'api_file'].map(
        (variable) => `${variable} ""`,
      ),
    ]),
    '# The last value of each key the lists read, as sent (Caddy cannot decode a captured value).',
    ...keys.flatMap((key) => [`@query_${key} vars_regexp ${key} {query} ${quoted(lastValue(key))}`]),
    `vars @query_${QUERY_KEYS.format} api_format_raw {re.${QUERY_KEYS.format}.1}`,
    `vars @query_${QUERY_KEYS.ordering} api_ordering {re.${QUERY_KEYS.ordering}.1}`,
    // A page key with any value is invalid until the value is read as last or a number.
    ...block(`vars @query_${QUERY_KEYS.page}`, ['api_page invalid', `api_page_raw {re.${QUERY_KEYS.page}.1}`]),
  ];
}

/**
 * A header value as a Caddyfile token: in backquotes, which take every character as it is, or
 * in double quotes when it holds a backquote. Caddy reads `{...}` in it as a placeholder, and
 * `\{` as a brace; `expansions` is how many times Caddy expands it before sending it. The site
 * file is always imported, and Caddy's import drops one backslash before a brace: one more.
 */
function headerToken(header: PlannedHeader, part: HeaderPart, expansions: number, before = ''): string {
  const value = before + part.value.replace(/[{}]/g, `${'\\'.repeat(expansions + 1)}$&`);
  if (!value.includes('`')) return `\`${value}\``;
  if (!/["\\]/.test(value)) return `"${value}"`;
  throw new HeadersTargetError(NAME, part.pattern, `sets ${header.name} to a value Caddy cannot write`);
}

/**
 * The headers of _headers. One that some rules set only for some paths is put together in a
 * variable from the rules that match the request as sent (their values joined with ", ", the
 * first ", " dropped), and set when not empty.
 */
function headerLines(headers: readonly PlannedHeader[]): string[] {
  return headers.flatMap((header, index) => {
    if (everywhereValue(header) !== undefined) {
      const value = { ...header.parts[0], value: everywhereValue(header) } as HeaderPart;
      return [`header ${header.name} ${headerToken(header, value, 1)}`];
    }
    const variable = `api_header_${index}`;
    // Expanded by vars, then by the vars_regexp matcher that drops the first ", ".
    const append = (part: HeaderPart) => `vars ${variable} ${headerToken(header, part, 2, `{vars.${variable}}, `)}`;
    return [
      `vars ${variable} ""`,
      ...header.parts.flatMap((part, partIndex) =>
        part.everywhere
          ? [append(part)]
          : [
              `@${variable}_${partIndex} vars_regexp {http.request.orig_uri} ${quoted(part.url)}`,
              append(part).replace('vars ', `vars @${variable}_${partIndex} `),
            ],
      ),
      `@${variable} vars_regexp ${variable} ${variable} ${quoted('^, (.*)$')}`,
      `header @${variable} ${header.name} {re.${variable}.1}`,
    ];
  });
}

export function renderCaddyfile(plan: ServerPlan): string {
  const site = [
    `root * {$API_ROOT:${DEFAULT_ROOT}}`,
    '',
    "# One route, in DRF's order: the path (matched on the decoded path as sent: Caddy's path",
    '# matcher would clean //company/ and ignore case, which Django does not), then format,',
    '# method, ordering and page. Each branch ends by serving a file or failing with a status.',
    ...block('route', [
      "# The headers of _headers, each rule's on the requests its path pattern matches, set before",
      '# anything else, so the file server keeps this Content-Type and the error answers keep them.',
      ...headerLines(plan.headers),
      '',
      '# Several ranges in one Range are ignored (a whole 200), as the API answers them; the file',
      '# server would send a multipart/byteranges 206.',
      `@several_ranges header_regexp Range ${quoted(',')}`,
      'request_header @several_ranges -Range',
      '',
      ...readQuery(plan),
      '',
      ...plan.resources.flatMap((resource) => [...resourceRoute(plan, resource), '']),
      "# A list path without its slash: 301 to the slash, keeping the query (Django's APPEND_SLASH).",
      ...plan.resources.flatMap(redirectRoute),
      ...(plan.documents.length > 0
        ? ['', '# The documents beside the API (npm run build with the reference on).']
        : []),
      ...plan.documents.flatMap(documentRoute),
      '',
      "# Everything else, the output's own files included: 404 Not found.",
      'error 404',
    ]),
    '',
    '# Every failure answers with the pre-rendered file its branch named (404 Not found by default),',
    '# with the status of the failure. The file server would answer a Range or a validator of the',
    '# error file itself (a slice of the body, an empty body, a 412): an error answer is whole.',
    ...block('handle_errors', [
      ...CONDITIONAL_HEADERS.map((name) => `request_header -${name}`),
      '# The body is a file whatever the method (a HEAD stays a HEAD: no body).',
      '@not_head not method HEAD',
      'method @not_head GET',
      'rewrite * /{vars.api_error}',
      'file_server',
    ]),
  ];
  const lines = [
    generatedNote(NAME, '#'),
    '#',
    '# The DRF catalogue API as one Caddy site, for a Caddyfile to import (the Caddyfile beside it',
    '# does); see README.md beside it. Environment variables:',
    `#   API_ROOT     the folder \`npm run build\` wrote (public/), absolute (default ${DEFAULT_ROOT})`,
    `#   API_ADDRESS  the site address (default ${DEFAULT_ADDRESS}, plain HTTP); one without http://,`,
    '#                such as api.example.com, turns on automatic HTTPS',
    '',
    ...block(`{$API_ADDRESS:${DEFAULT_ADDRESS}}`, site),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * The Caddyfile to run: the site alone, without the admin endpoint (a second Caddy on the
 * machine, or the Debian service, holds its port 2019; nothing here needs it).
 */
export function renderRunnableCaddyfile(): string {
  return `${generatedNote(NAME, '#')}
#
# Runs the site of ${SITE_FILE} alone (README.md), from the project folder, as any user:
#
#     ${LOCAL_COMMANDS.caddy}
#
# Without the admin endpoint: \`caddy reload\` and \`caddy stop\` do not reach it (Ctrl-C does).
# A Caddyfile of your own imports ${SITE_FILE} instead.
{
\tadmin off
}

import ${SITE_FILE}
`;
}

/** The files of targets/caddy/. */
export function caddyFiles(context: TargetContext): Map<string, string> {
  const plan = serverPlan(context, NAME);
  return new Map([
    ['Caddyfile', renderRunnableCaddyfile()],
    [SITE_FILE, renderCaddyfile(plan)],
    ['README.md', caddyReadme(context.resources) + settingsSection(settingsLists(plan))],
  ]);
}
