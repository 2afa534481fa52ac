// Filters, search and ordering on a list, opted into per resource by the settings file: what a
// resource accepts (plain data carried with its declaration, so a bundle holds it as a literal),
// how a request is read against it, where the build writes the records a request is answered
// from, and the answer made from them. DRF's filter backends in their order: DjangoFilterBackend,
// SearchFilter, OrderingFilter, then the pagination.

import { type Condition, type FilterField, readFilters } from './filters.ts';
import { encodePlain } from './json.ts';
import { compareStrings, type OrderTerm, orderByRanks, parseOrdering, sortRecords } from './ordering.ts';
import { formQuery, pageCount, parsePage } from './pagination.ts';
import { pythonStrip } from './python-text.ts';
import { SEARCH_PARAM, type SearchField, type SearchLookup, searchTerms } from './search.ts';
import { pgUpper } from './upper-case.ts';

/** What a resource accepts beyond its declaration, from the settings file's `resources` section. */
export interface QuerySettings {
  /** `filterset_fields`, each with the kind of its values. */
  filters: readonly FilterField[];
  /** `search_fields`, each prefix read. */
  search: readonly SearchField[];
  /** `ordering_fields`, for a resource whose declaration has none. */
  ordering: readonly string[];
  /** `prerendered_filters`: the filters whose single-field answers the build writes as files. */
  prerendered: readonly string[];
}

/** A resource's section of the settings file, as the user writes it (DRF's own names). */
export interface ResourceSettings {
  filterset_fields?: readonly string[];
  search_fields?: readonly string[];
  ordering_fields?: readonly string[];
  prerendered_filters?: readonly string[];
}

export const RESOURCE_SETTING_KEYS = [
  'filterset_fields',
  'search_fields',
  'ordering_fields',
  'prerendered_filters',
] as const;

/** Where a value is in the settings file, as a JSON pointer (RFC 6901): `/resources/company/search_fields/1`. */
export function settingPointer(...path: ReadonlyArray<string | number>): string {
  return ['', 'resources', ...path].map((part) => String(part).replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
}

export const ORDERING_PARAM = 'ordering';
export const PAGE_PARAM = 'page';

/** The parameters DRF reads itself, which no filter may be named after. */
export const RESERVED_PARAMS = [SEARCH_PARAM, ORDERING_PARAM, PAGE_PARAM, 'format'] as const;

/**
 * The records of a list, in its default order, as the build writes them for request-time answers:
 * parts of at most RECORDS_PER_PART records or PART_BYTES bytes, one record per line, each line
 * the record's text as the list writes it, so an answer holds the very bytes of the files.
 */
export const RECORDS_PER_PART = 1000;
export const PART_BYTES = 1024 * 1024;
export const recordsManifestFile = (resource: string) => `_records/${resource}/index.json`;
export const recordsPartFile = (resource: string, part: number) => `_records/${resource}/${part}.json`;

/**
 * Beside the parts, the build writes columns: for every record, in the parts' order, one line an
 * answer needs to select and order without parsing a record. `value-<field>`, a filter's field
 * as JSON (the record's `"field":value` text); `upper-<field>`, a search field as searchText()
 * gives it, null as an empty line and a line feed as a space (a search term holds no white
 * space, so neither changes what it matches); `rank-<field>`, an ordering field's rank (equal
 * values one rank, null last, as compareValues() orders them) and always `rank-id`, the
 * tie-break. A column is in chunks of at most COLUMN_BYTES (a longer line alone), each a line
 * feed, then each line followed by one: a value is found by a search of its text, natively.
 */
export const COLUMN_BYTES = 4 * 1024 * 1024;
export const recordsColumnFile = (resource: string, column: string, chunk: number) =>
  `_records/${resource}/${column}/${chunk}.txt`;
const valueColumn = (field: string) => `value-${field}`;
const upperColumn = (field: string) => `upper-${field}`;
const rankColumn = (field: string) => `rank-${field}`;

/** A column chunk's text (its lines must hold no line feed). */
export function columnText(lines: readonly string[]): string {
  return `\n${lines.join('\n')}\n`;
}

/** The columns the build writes for a list with these settings and ordering fields. */
export function recordsColumns(
  settings: QuerySettings,
  orderingFields: readonly string[],
): Array<{ column: string; field: string; kind: 'value' | 'upper' | 'rank' }> {
  const ordered = orderingFields.length > 0 ? orderingFields : settings.ordering;
  return [
    ...settings.filters.map(({ field }) => ({ column: valueColumn(field), field, kind: 'value' as const })),
    ...settings.search.map(({ field }) => ({ column: upperColumn(field), field, kind: 'upper' as const })),
    ...[...new Set([...ordered, 'id'])].map((field) => ({ column: rankColumn(field), field, kind: 'rank' as const })),
  ];
}

/** `_records/<resource>/index.json`: what an answer needs besides the records. */
export interface RecordsManifest {
  count: number;
  parts: number;
  /** The number of records of each part, in order. */
  partRecords: number[];
  /** The number of records of each chunk of each column, in order. */
  columns: Record<string, number[]>;
  /** The build's page size and base URL, for a paginated list's envelope and links. */
  pageSize: number;
  baseUrl: string;
  /** The resource's settings, for a server that reads them from the output (npm run serve). */
  query: QuerySettings;
}

/** The text of one part: a JSON array, one record's text per line. */
export function partText(records: readonly string[]): string {
  return `[${records.join(',\n')}]\n`;
}

/** The records' texts of a part's text, in order. */
export function partRecords(text: string): string[] {
  const body = text.trimEnd().slice(1, -1);
  if (body === '') return [];
  return body.split(',\n');
}

/**
 * Where each record of a part is in its UTF-8 bytes: record `i` is from `starts[i]` to before
 * `starts[i + 1] - 1`. A record's JSON holds no line feed, so each line feed ends one.
 */
export function recordStarts(bytes: Uint8Array): Int32Array {
  const lineFeeds: number[] = [];
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) lineFeeds.push(at);
  // The first record starts after `[`; each line feed ends one (`,` or `]` before it).
  const starts = new Int32Array(lineFeeds.length + 1);
  starts[0] = 1;
  for (const [index, at] of lineFeeds.entries()) starts[index + 1] = at + 1;
  return starts;
}

/** What a list request asks beyond the default answer, read as DRF's backends read it. */
export interface ListQuery {
  resource: string;
  conditions: Condition[];
  /** django-filter's 400 body when a filter value is refused. */
  errors: Record<string, string[]> | null;
  terms: string[];
  ordering: OrderTerm[];
  /** `?page=` as given (the last value), for a paginated list. */
  page: string | undefined;
  /** The request's query string as sent: the page links keep every parameter of it. */
  search: string;
}

/**
 * The ordering terms of `?ordering=`: parseOrdering()'s, except that `id` alone is kept, which
 * parseOrdering() drops as the tie-break every order ends with; a list whose default order is
 * another (the companies by name) is then ordered by id.
 */
function orderingOf(raw: string, fields: readonly string[]): OrderTerm[] {
  const terms = parseOrdering(raw, fields);
  if (terms.length > 0 || !fields.includes('id')) return terms;
  const byId = raw.split(',').some((term) => {
    const field = pythonStrip(term).replace(/^-/, '');
    return fields.includes(field);
  });
  return byId ? [{ field: 'id', descending: false }] : [];
}

/** What resolve() needs of a declaration to read a query. */
export interface Queried {
  name: string;
  orderingFields: readonly string[];
  paginated: boolean;
  query?: QuerySettings;
}

/**
 * The query of a request to a list with settings, or undefined when the default answers (the
 * files) are DRF's: a list without settings, or a request that filters, searches and orders
 * nothing. A paginated list answers at request time whenever its page links would differ from
 * the file's: a parameter besides `page` and `format`, even one it ignores, an empty or repeated
 * `format`.
 */
export function readListQuery(
  resource: Queried,
  params: ReadonlyMap<string, string>,
  search: string,
): ListQuery | undefined {
  const settings = resource.query;
  if (settings === undefined) return undefined;
  const { conditions, errors } = readFilters(params, settings.filters);
  const terms = settings.search.length > 0 ? searchTerms(params.get(SEARCH_PARAM) ?? '') : [];
  const declared = resource.orderingFields.length > 0;
  const orderingFields = declared ? resource.orderingFields : settings.ordering;
  const ordering = orderingOf(params.get(ORDERING_PARAM) ?? '', orderingFields);
  const effective = errors !== null || conditions.length > 0 || terms.length > 0 || (!declared && ordering.length > 0);
  if (resource.paginated ? filesLinksHold(params, search) : !effective) return undefined;
  return { resource: resource.name, conditions, errors, terms, ordering, page: params.get(PAGE_PARAM), search };
}

/**
 * Whether a page's file has the links DRF would write for this request. DRF's keep every parameter
 * but the page, each value of a repeated key and an empty one too; the files' keep one non-empty
 * `format`.
 */
function filesLinksHold(params: ReadonlyMap<string, string>, search: string): boolean {
  const format = params.get('format') ?? '';
  return linkQuery(search, undefined) === formQuery(format === '' ? [] : [['format', format]]);
}

/**
 * The query string of a page link as DRF's replace_query_param and remove_query_param write it:
 * every parameter of the request, keys sorted, a key's values in their order, `page` set or
 * removed, each form-encoded.
 */
export function linkQuery(search: string, page: number | undefined): string {
  const values = new Map<string, string[]>();
  for (const [key, value] of new URLSearchParams(search)) {
    const list = values.get(key);
    if (list === undefined) values.set(key, [value]);
    else list.push(value);
  }
  values.delete(PAGE_PARAM);
  if (page !== undefined) values.set(PAGE_PARAM, [String(page)]);
  return formQuery(
    [...values.keys()]
      .sort(compareStrings)
      .flatMap((key) => (values.get(key) as string[]).map((value) => [key, value] as const)),
  );
}

/** The columns a query reads (recordsColumns()'s names). */
export function queryColumns(query: ListQuery, settings: QuerySettings): string[] {
  const columns = query.conditions.map(({ field }) => valueColumn(field));
  if (query.terms.length > 0) columns.push(...settings.search.map(({ field }) => upperColumn(field)));
  if (query.ordering.length > 0)
    columns.push(...[...new Set([...query.ordering.map(({ field }) => field), 'id'])].map(rankColumn));
  return columns;
}

/** A column as the handler reads it: each chunk's text (columnText()) and its number of lines. */
export interface ColumnChunk {
  text: string;
  lines: number;
}

/**
 * Marks in `into` the position of every line of a column that holds `needle`; a needle that
 * begins with a line feed is found only at a line's start. A line is marked once.
 */
function markLines(chunks: readonly ColumnChunk[], needle: string, into: Uint8Array): void {
  const skip = needle.startsWith('\n') ? 1 : 0;
  let base = 0;
  for (const { text, lines } of chunks) {
    // `line` is the line that starts after the line feed at `start`.
    let line = -1;
    let start = -1;
    for (let hit = text.indexOf(needle, 1 - skip); hit !== -1; ) {
      const at = hit + skip;
      for (let next = text.indexOf('\n', start + 1); next !== -1 && next < at; next = text.indexOf('\n', next + 1)) {
        line++;
        start = next;
      }
      into[base + line] = 1;
      const end = text.indexOf('\n', at);
      line++;
      start = end;
      hit = text.indexOf(needle, end + 1 - skip);
    }
    base += lines;
  }
}

/** The needle that finds a search term in a search field's column, after the field's lookup. */
function termNeedle(upperTerm: string, lookup: SearchLookup): string {
  if (lookup === 'istartswith') return `\n${upperTerm}`;
  if (lookup === 'iexact') return `\n${upperTerm}\n`;
  return upperTerm;
}

/** A rank column's values. */
function ranksOf(chunks: readonly ColumnChunk[]): Int32Array {
  const ranks = new Int32Array(chunks.reduce((sum, { lines }) => sum + lines, 0));
  let at = 0;
  for (const { text } of chunks) {
    let value = 0;
    for (let i = 1; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 10) {
        ranks[at++] = value;
        value = 0;
      } else value = value * 10 + code - 48;
    }
  }
  return ranks;
}

/**
 * The positions (in the parts' order) of the records a query selects, in the order it asks, from
 * the columns alone (queryColumns()): no record is parsed.
 */
export function selectedPositions(
  query: ListQuery,
  settings: QuerySettings,
  count: number,
  columns: ReadonlyMap<string, readonly ColumnChunk[]>,
): Int32Array {
  const columnOf = (name: string) => columns.get(name) as readonly ColumnChunk[];
  let selected: Uint8Array | undefined;
  const keep = (marked: Uint8Array) => {
    const into = selected;
    if (into === undefined) selected = marked;
    else for (let i = 0; i < count; i++) into[i] = (into[i] as number) & (marked[i] as number);
  };
  for (const { field, kind, equals } of query.conditions) {
    const marked = new Uint8Array(count);
    // No record's JSON holds an integer's value as a text, nor `beyond` (an integer no record holds).
    const json = kind === 'integer' ? (equals as string) : encodePlain(equals);
    markLines(columnOf(valueColumn(field)), `\n${json}\n`, marked);
    keep(marked);
  }
  for (const term of query.terms) {
    const marked = new Uint8Array(count);
    const upperTerm = pgUpper(term);
    for (const { field, lookup } of settings.search)
      markLines(columnOf(upperColumn(field)), termNeedle(upperTerm, lookup), marked);
    keep(marked);
  }
  let positions: Int32Array;
  if (selected === undefined) positions = Int32Array.from({ length: count }, (_, position) => position);
  else {
    let matched = 0;
    for (let position = 0; position < count; position++) matched += selected[position] as number;
    positions = new Int32Array(matched);
    for (let position = 0, at = 0; position < count; position++) if (selected[position]) positions[at++] = position;
  }
  if (query.ordering.length === 0) return positions;
  const ids = ranksOf(columnOf(rankColumn('id')));
  const rankOf = new Map(query.ordering.map(({ field }) => [field, ranksOf(columnOf(rankColumn(field)))]));
  const ranked = orderByRanks(
    positions,
    query.ordering.map(({ field, descending }) => ({ ranks: rankOf.get(field) as Int32Array, descending })),
    ids,
  );
  if (ranked !== null) return ranked;
  return Int32Array.from(
    sortRecords(
      Array.from(positions, (position) => ({ id: ids[position] as number, position })),
      query.ordering,
      (found, field) => (field === 'id' ? found.id : ((rankOf.get(field) as Int32Array)[found.position] as number)),
    ),
    ({ position }) => position,
  );
}

/** The first position of each part, and after them the number of records. */
export function partStarts(partRecords: readonly number[]): Int32Array {
  const starts = new Int32Array(partRecords.length + 1);
  for (const [index, records] of partRecords.entries()) starts[index + 1] = (starts[index] as number) + records;
  return starts;
}

/**
 * Which of a selection's records an answer shows (from `start` to before `end`) and its body:
 * `before`, their texts joined by commas, `after`; null for a page the selection does not have
 * (404 Invalid page).
 */
export function answerPage(
  query: ListQuery,
  count: number,
  list: { paginated: boolean; path: string },
  manifest: Pick<RecordsManifest, 'pageSize' | 'baseUrl'>,
): { start: number; end: number; before: string; after: string; body: (texts: readonly string[]) => string } | null {
  let start = 0;
  let end = count;
  let before = '[';
  let after = ']';
  if (list.paginated) {
    const pages = pageCount(count, manifest.pageSize);
    const requested = query.page === undefined ? '1' : parsePage(query.page);
    const page = requested === 'last' ? pages : requested === null || requested.length > 15 ? 0 : Number(requested);
    if (page < 1 || page > pages) return null;
    const link = (to: number) => {
      const search = linkQuery(query.search, to === 1 ? undefined : to);
      return `${manifest.baseUrl}${list.path}${search ? `?${search}` : ''}`;
    };
    const head = encodePlain({
      count,
      next: page < pages ? link(page + 1) : null,
      previous: page > 1 ? link(page - 1) : null,
    });
    start = (page - 1) * manifest.pageSize;
    end = Math.min(count, page * manifest.pageSize);
    before = `${head.slice(0, -1)},"results":[`;
    after = ']}';
  }
  return { start, end, before, after, body: (texts) => `${before}${texts.join(',')}${after}` };
}
