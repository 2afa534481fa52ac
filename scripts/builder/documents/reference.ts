// The API reference page (`/_reference/`, docs/reference.md): one HTML file, its style and script
// inline, rendered from the OpenAPI document (openapi.ts) and so from the route table, the record
// schemas and `_headers`. Its bytes depend on those and the settings only, never on the records:
// the examples, the texture page numbers and the answers are fetched from the same origin when
// the page is open. A Content-Security-Policy with the hashes of its own style and script lets
// it load nothing else and connect to nothing but its origin.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ORDERING_PARAM } from '../../contract/query.ts';
import type { Resource } from '../../contract/resources/resource.ts';
import { REFERENCE_DOCUMENT, REJECTED_METHODS } from '../../contract/routes.ts';
import { SEARCH_PARAM } from '../../contract/search.ts';
import { expectedWords } from '../pipeline/validators.ts';
import { type OpenApiSettings, openApiDocument } from './openapi.ts';

type Schema = Record<string, unknown>;

/** The page's own script and style, kept as files beside this module so that Biome checks them. */
const asset = (name: string) => readFileSync(new URL(`./reference/${name}`, import.meta.url), 'utf8');

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

const code = (text: string) => `<code>${escapeHtml(text)}</code>`;

/** Methods a browser's fetch() may send: TRACE and CONNECT it refuses. */
const SENDABLE = ['GET', 'HEAD', 'OPTIONS', ...REJECTED_METHODS.filter((method) => method !== 'TRACE')];

/** Follows a `$ref` of the document (`#/components/...`). */
function deref(document: Schema, schema: Schema): Schema {
  const target = schema.$ref;
  if (typeof target !== 'string') return schema;
  let node: unknown = document;
  for (const key of target.slice(2).split('/')) node = (node as Schema)[key];
  return deref(document, node as Schema);
}

/** A description's first sentence, to follow other words: `An absolute http(s) URL. …` → `an absolute http(s) URL`. */
const firstSentence = (text: string) =>
  (text.split('. ')[0] as string).replace(/\.$/, '').replace(/^[A-Z](?=[a-z ])/, (first) => first.toLowerCase());

/**
 * The rule of a JSON Schema value in words: `whole number, at least 1`, `a colour of the form
 * #rrggbb; or null`. A text field is said by its description, else by what the build's check of
 * it expects (`words`, by field name, as validators.ts gives them), as a data problem says it.
 */
function ruleOf(document: Schema, raw: Schema, field: string, words: ReadonlyMap<string, string>): string {
  const schema = deref(document, raw);
  const options = schema.anyOf as Schema[] | undefined;
  if (options !== undefined) {
    const plain = options.filter((option) => option.type !== 'null');
    const rules = plain.map((option) => ruleOf(document, option, field, words)).join('; or ');
    return plain.length < options.length ? `${rules}; or null` : rules;
  }
  const types = [schema.type].flat();
  const nullable = types.includes('null');
  const type = types.find((name) => name !== 'null');
  const parts: string[] = [];
  if (type === 'integer') {
    const least = schema.exclusiveMinimum === 0 ? 1 : schema.minimum;
    parts.push(least === undefined ? 'whole number' : `whole number, at least ${least}`);
  } else if (type === 'number') parts.push('number (written as Python writes a float)');
  else if (type === 'boolean') parts.push('true or false');
  else if (type === 'string') {
    const expected = words.get(field);
    if (typeof schema.description === 'string') parts.push(escapeHtml(firstSentence(schema.description)));
    else if (expected !== undefined) parts.push(escapeHtml(expected));
    else parts.push(schema.minLength === 1 ? 'text, not empty' : 'text');
  } else if (type === 'array') {
    const items = deref(document, schema.items as Schema);
    const each = words.get(`${field}[]`);
    if (items.type === 'object') parts.push('list of objects (fields below)');
    else if (each !== undefined && items.description === undefined) parts.push(`list, each ${escapeHtml(each)}`);
    else parts.push(`list of ${ruleOf(document, items, `${field}[]`, words)}`);
    if (typeof schema.minItems === 'number') parts.push(`at least ${schema.minItems}`);
    if (schema.uniqueItems === true) parts.push('no repeats');
  } else if (type === 'object') parts.push('object (fields below)');
  if (schema.const !== undefined) parts.push(`always ${code(JSON.stringify(schema.const))}`);
  return `${parts.join(', ')}${nullable ? '; or null' : ''}`;
}

/** One row per field, nested objects and lists of objects as `tiles.tile_size`, `events[].id`. */
function fieldRows(document: Schema, raw: Schema, words: ReadonlyMap<string, string>, prefix = ''): string[] {
  const schema = deref(document, raw);
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  return Object.entries(properties).flatMap(([name, property]) => {
    const field = `${prefix}${name}`;
    const row = `<tr><th scope="row">${code(field)}</th><td>${ruleOf(document, property, field, words)}</td></tr>`;
    const value = deref(document, property);
    if (value.type === 'object') return [row, ...fieldRows(document, value, words, `${field}.`)];
    const items = value.type === 'array' ? deref(document, value.items as Schema) : undefined;
    if (items?.type === 'object') return [row, ...fieldRows(document, items, words, `${field}[].`)];
    return [row];
  });
}

function table(caption: string, head: readonly string[], rows: readonly string[]): string {
  const headings = head.map((cell) => `<th scope="col">${cell}</th>`).join('');
  // In a scrolling box of its own, so that on a narrow screen a table wider than the screen scrolls
  // rather than squeezing its columns until words break; focusable, so that a keyboard scrolls it.
  return `<div class="table" tabindex="0" role="group" aria-label="${caption}"><table><caption>${caption}</caption><thead><tr>${headings}</tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table></div>`;
}

/** The values a query parameter takes, as the route table plans them or the settings' filters read them. */
function parameterValues(document: Schema, name: string, schema: Schema): string {
  if (name === 'ordering') {
    // The declaration's fields are listed; the settings' ordering says its own in the description.
    if (schema.items === undefined) return 'fields, each ascending or descending (-), comma-separated';
    const values = (deref(document, schema.items as Schema).enum as string[]).map(code).join(' ');
    return `${values}; or several, comma-separated (${code('-start_date,name')})`;
  }
  if (name === 'page') {
    return `${code('1')} to <span data-page-count>the last page</span>, or ${code('last')}`;
  }
  if (name === 'format') return `${(schema.enum as string[]).map(code).join(', ')}, or empty: the same JSON as none`;
  if (Array.isArray(schema.enum)) return (schema.enum as string[]).map(code).join(', ');
  const example = (schema.examples as string[] | undefined)?.[0];
  return example === undefined ? 'text' : `such as ${code(example)}`;
}

function resourceSection(document: Schema, resource: Resource): string {
  const paths = document.paths as Record<string, Record<string, Schema>>;
  const item = paths[resource.path] as Record<string, Schema>;
  const get = item.get as Schema;
  const ok = (get.responses as Record<string, Schema>)['200'] as Schema;
  const id = resource.name;
  const parameters = (get.parameters as Schema[]).map((parameter) => deref(document, parameter));
  const parameterRows = parameters.map((parameter) => {
    const name = parameter.name as string;
    const values = parameterValues(document, name, parameter.schema as Schema);
    return `<tr><th scope="row">${code(name)}</th><td>${values}</td><td>${escapeHtml(parameter.description as string)}</td></tr>`;
  });
  const statuses = Object.entries(get.responses as Record<string, Schema>).map(([status, response]) => {
    const described = deref(document, response).description as string;
    return `<tr><th scope="row">${status}</th><td>${escapeHtml(described)}</td></tr>`;
  });
  const methodRows = [
    `<tr><th scope="row">GET</th><td>200 with the body below</td></tr>`,
    `<tr><th scope="row">HEAD</th><td>the status and headers of GET, no body</td></tr>`,
    `<tr><th scope="row">OPTIONS</th><td>200 with DRF's metadata of the view, named ${code(resource.title)}</td></tr>`,
    `<tr><th scope="row">${REJECTED_METHODS.join(', ')}</th><td>405 ${code('{"detail":"Method \\"POST\\" not allowed."}')}, naming the method</td></tr>`,
  ];
  const headerRows = Object.entries(ok.headers as Record<string, Schema>).map(([name, header]) => {
    // One value, or several (Vary, which a precompressed answer extends with Accept-Encoding).
    const schema = deref(document, header).schema as Schema;
    const values = schema.const === undefined ? (schema.examples as string[]) : [schema.const as string];
    return `<tr><th scope="row">${code(name)}</th><td>${values.map(code).join(', or ')}</td></tr>`;
  });
  const body = deref(document, (ok.content as Record<string, Schema>)['application/json']?.schema as Schema);
  // A list's items, or the items of a page's results.
  const list = body.type === 'array' ? body : ((body.properties as Schema).results as Schema);
  const record = deref(document, list.items as Schema);
  const envelope =
    body.type === 'array'
      ? `<p>The body is an array of records, each with these fields, in this order, every one present.</p>`
      : `<p>${escapeHtml(body.description as string)} ${code('count')} is the number of ${escapeHtml(resource.many)} over all pages; ${code('next')} and ${code('previous')} are absolute URLs or ${code('null')}; ${code('results')} holds the records, each with these fields.</p>`;
  return `<section id="${id}" aria-labelledby="${id}-title">
<h2 id="${id}-title">${code(resource.path)} <span class="title">${escapeHtml(resource.title)}</span></h2>
<p>${code(resource.path.slice(0, -1))} answers 301 to ${code(resource.path)}, keeping the query.</p>
${table('Methods', ['method', 'answer'], methodRows)}
${table('Query parameters', ['name', 'values', 'meaning'], parameterRows)}
${table('Statuses of GET', ['status', 'when'], statuses)}
${table('Headers of every answer', ['header', 'value'], headerRows)}
${envelope}
${table('Fields of a record', ['field', 'rule'], fieldRows(document, record, expectedWords(resource)))}
<details class="example" data-path="${resource.path}"><summary>Example: the first record of this build's answer</summary>
<pre tabindex="0" data-example-body>Opened, it asks ${code(resource.path)} of this server.</pre></details>
<p><button type="button" data-try="${resource.path}">Try ${code(resource.path)}</button></p>
</section>`;
}

function option(value: string, label = value): string {
  return `<option value="${escapeHtml(value)}">${escapeHtml(label)}</option>`;
}

/**
 * The settings' filters, search and ordering of each list (the settings file's `resources`), as
 * controls shown for its path only. Each control's name is its list's and the parameter's, as two
 * lists may filter on a field of the same name; `data-param` is the parameter it sends.
 */
function queryControls(resource: Resource): string[] {
  const { query } = resource;
  if (query === undefined) return [];
  const label = (param: string, control: string) =>
    `\n<label data-for="${resource.path}">${escapeHtml(param)} ${control}</label>`;
  const attributes = (param: string) =>
    `name="${escapeHtml(`${resource.name}.${param}`)}" data-param="${escapeHtml(param)}"`;
  const filters = query.filters.map(({ field, kind }) =>
    label(
      field,
      kind === 'boolean'
        ? `<select ${attributes(field)}>${option('', '(any)')}${option('true')}${option('false')}</select>`
        : `<input type="text" ${attributes(field)} autocomplete="off" spellcheck="false"${kind === 'integer' ? ' inputmode="numeric"' : ''}>`,
    ),
  );
  const search =
    query.search.length === 0
      ? []
      : [label(SEARCH_PARAM, `<input type="search" ${attributes(SEARCH_PARAM)} autocomplete="off">`)];
  const orderings = query.ordering.flatMap((field) => [field, `-${field}`]);
  const ordering =
    orderings.length === 0
      ? []
      : [
          label(
            ORDERING_PARAM,
            `<select ${attributes(ORDERING_PARAM)}>${option('', '(default)')}${orderings.map((term) => option(term)).join('')}</select>`,
          ),
        ];
  return [...filters, ...search, ...ordering];
}

function tryForm(document: Schema, resources: readonly Resource[]): string {
  const parameters = (document.components as Schema).parameters as Record<string, Schema>;
  const validatorOf = (name: string) => (parameters[name] as Schema).schema as Schema;
  const formats = validatorOf('format').enum as string[];
  const paths = (chosen: Resource[]) => chosen.map((resource) => resource.path).join(' ');
  const ordered = resources.filter((resource) => resource.orderingFields.length > 0);
  const paginated = resources.filter((resource) => resource.paginated);
  // One ordering list: of the first resource that orders (the API has one).
  const orderings = (ordered[0]?.orderingFields ?? []).flatMap((field) => [field, `-${field}`]);
  const orderingLabel =
    ordered.length === 0
      ? ''
      : `\n<label data-for="${paths(ordered.slice(0, 1))}">ordering <select name="ordering">${option('', '(default: id)')}${orderings.map((ordering) => option(ordering)).join('')}</select></label>`;
  const pageLabel =
    paginated.length === 0
      ? ''
      : `\n<label data-for="${paths(paginated)}">page <select name="page">${option('', '(first)')}${option('last')}</select></label>`;
  return `<section id="try" aria-labelledby="try-title">
<h2 id="try-title">Try a request</h2>
<p>Sends the request to this server and shows its answer: status, headers and body.</p>
<form id="try-form">
<div class="fields">
<label>Method <select name="method">${SENDABLE.map((method) => option(method)).join('')}</select></label>
<label>Path <select name="path">${resources.map((resource) => option(resource.path)).join('')}</select></label>
<label>format <select name="format">${option('', '(none)')}${formats.map((format) => option(format)).join('')}</select></label>${orderingLabel}${pageLabel}${resources.flatMap(queryControls).join('')}
</div>
<p>Request: <output name="url" id="try-url">${code(resources[0]?.path ?? '/')}</output></p>
<button type="submit">Send</button>
</form>
<div id="answer" aria-live="polite">
<p id="answer-status"></p>
<table id="answer-headers" hidden><caption>Headers of the answer</caption><thead><tr><th scope="col">header</th><th scope="col">value</th></tr></thead><tbody></tbody></table>
<pre id="answer-body" tabindex="0" hidden></pre>
</div>
</section>`;
}

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The reference page's text for these settings and `_headers`; the same inputs give the same bytes. */
export function referencePage(
  settings: OpenApiSettings & { resources: readonly Resource[] },
  headersFile: string,
): string {
  const resources = settings.resources;
  const document = openApiDocument(settings, headersFile, resources) as Schema;
  const info = document.info as Schema;
  const script = asset('client.js');
  const style = asset('style.css');
  if (/<\/(script|style)/i.test(script + style)) throw new Error('the reference page script or style closes its tag');
  // Nothing but this page's own style and script runs, and it connects to its own origin only.
  const policy = [
    "default-src 'none'",
    `script-src ${hash(script)}`,
    `style-src ${hash(style)}`,
    "connect-src 'self'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const nav = resources.map((resource) => `<li><a href="#${resource.name}">${code(resource.path)}</a></li>`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(info.title as string)} reference</title>
<link rel="icon" href="data:,">
<style>${style}</style>
</head>
<body>
<header>
<h1>${escapeHtml(info.title as string)} reference</h1>
<p>A read-only Django REST Framework API. Every answer below comes from this server; nothing else is loaded. The same description, as OpenAPI 3.1, is <code>schemas/openapi.json</code> in the project.</p>
<nav aria-label="Paths"><ul>${nav.join('')}<li><a href="#try">Try a request</a></li></ul></nav>
</header>
<main data-page-size="${settings.pageSize}" data-textures="${resources.find((resource) => resource.paginated)?.path ?? ''}">
${resources.map((resource) => resourceSection(document, resource)).join('\n')}
${tryForm(document, resources)}
</main>
<footer><p>Generated by <code>npm run build</code> from the route table at ${code(REFERENCE_DOCUMENT.path)}; any other path is the API's.</p></footer>
<script>${script}</script>
</body>
</html>
`;
}

/** The reference's files in the output: path → text. */
export function referenceFiles(
  settings: OpenApiSettings & { resources: readonly Resource[] },
  headersFile: string,
): Map<string, string> {
  return new Map([[REFERENCE_DOCUMENT.file, referencePage(settings, headersFile)]]);
}
