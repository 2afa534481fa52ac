// Filters, search and ordering on a list, opted into per resource by the settings file: what a
// resource accepts (plain data carried with its declaration, so a bundle holds it as a literal),
// how a request is read against it, where the build writes the records a request is answered
// from, and the answer made from them. DRF's filter backends in their order: DjangoFilterBackend,
// SearchFilter, OrderingFilter, then the pagination.

import { type Condition, type FilterField, filterMatcher, readFilters } from './filters.ts';
import { encodePlain } from './json.ts';
import { type Comparable, compareStrings, fieldValue, type OrderTerm, parseOrdering, sortRecords } from './ordering.ts';
import { pageCount, parsePage, quotePlus } from './pagination.ts';
import { SEARCH_PARAM, type SearchField, searchMatcher, searchTerms } from './search.ts';

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

/** `_records/<resource>/index.json`: what an answer needs besides the records. */
export interface RecordsManifest {
  count: number;
  parts: number;
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

/** The records' texts of a part, as partText() wrote them. */
export function partRecords(text: string): string[] {
  const body = text.trimEnd().slice(1, -1);
  if (body === '') return [];
  return body.split(',\n');
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
    const field = term.trim().replace(/^-/, '');
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
 * nothing. A paginated list answers at request time whenever the request has a parameter besides
 * `page` and `format`, even one it ignores, since DRF's page links keep it.
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
  // DRF's page links keep every parameter but the page, which only `format` is written into the files with.
  const named = [...params.keys()].some((key) => key !== PAGE_PARAM && key !== 'format');
  const effective = errors !== null || conditions.length > 0 || terms.length > 0 || (!declared && ordering.length > 0);
  if (resource.paginated ? !named : !effective) return undefined;
  return { resource: resource.name, conditions, errors, terms, ordering, page: params.get(PAGE_PARAM), search };
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
  return [...values.keys()]
    .sort(compareStrings)
    .flatMap((key) => (values.get(key) as string[]).map((value) => `${quotePlus(key)}=${quotePlus(value)}`))
    .join('&');
}

/** A record read from a part: its values, and its text as the list writes it. */
interface Found {
  id: Comparable;
  record: Record<string, unknown>;
  text: string;
}

/**
 * A pattern that finds a term of printable ASCII in any text whose PostgreSQL upper case holds
 * the term's: each letter in either case, and `ı` and `ſ` too, the two characters beyond ASCII
 * whose upper case is an ASCII letter (I and S). It may find more (the Kelvin sign for a k).
 */
function asciiTermPattern(term: string): RegExp {
  const escaped = term.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new RegExp(escaped.replace(/[iI]/g, '[iIı]').replace(/[sS]/g, '[sSſ]'), 'i');
}

/** Keeps the records of parts that match a query, part by part: only the matches are held. */
export class Selection {
  private readonly found: Found[] = [];
  private readonly matches: (record: Record<string, unknown>) => boolean;

  /**
   * A test of a record's text that every match passes, cheaper than parsing it: each filter's
   * `"field":value` is in it, and each search term made of printable ASCII (which JSON writes as
   * it is) is in it, ignoring case (asciiTermPattern).
   */
  private readonly mayMatch: (text: string) => boolean;

  constructor(
    private readonly query: ListQuery,
    settings: QuerySettings,
  ) {
    const needles = query.conditions.map(({ field, kind, equals }) =>
      kind === 'integer' ? `"${field}":${equals}` : `"${field}":${encodePlain(equals)}`,
    );
    const plainTerms = query.terms.filter((term) => /^[\x20-\x7e]+$/.test(term) && !/["\\]/.test(term));
    const patterns = plainTerms.map(asciiTermPattern);
    this.mayMatch = (text) => {
      for (const needle of needles) if (!text.includes(needle)) return false;
      for (const pattern of patterns) if (!pattern.test(text)) return false;
      return true;
    };
    const filters = filterMatcher(query.conditions);
    const search = query.terms.length > 0 ? searchMatcher(query.terms, settings.search) : () => true;
    this.matches = (record) => filters(record) && search(record);
  }

  /** Reads one part's text (partText()). */
  add(partTextRead: string): void {
    for (const text of partRecords(partTextRead)) {
      if (!this.mayMatch(text)) continue;
      const record = JSON.parse(text) as Record<string, unknown>;
      if (this.matches(record)) this.found.push({ id: record.id as Comparable, record, text });
    }
  }

  /** The matching records' texts, ordered as asked (then by id), else in the list's default order. */
  texts(): string[] {
    const { ordering } = this.query;
    const ordered =
      ordering.length === 0
        ? this.found
        : sortRecords(this.found, ordering, (found, field) => fieldValue(found.record, field));
    return ordered.map((found) => found.text);
  }
}

/** An answer's status and body. */
export interface QueryBody {
  status: 200 | 404;
  body: string;
}

const listText = (texts: readonly string[]) => `[${texts.join(',')}]`;

/**
 * The answer to a query of a list from its selected records: the list, or a page of it with the
 * count of the selection and links that keep the request's parameters; 404 Invalid page for a
 * page the selection does not have.
 */
export function queryAnswer(
  query: ListQuery,
  texts: readonly string[],
  list: { paginated: boolean; path: string },
  manifest: Pick<RecordsManifest, 'pageSize' | 'baseUrl'>,
  invalidPageBody: string,
): QueryBody {
  if (!list.paginated) return { status: 200, body: listText(texts) };
  const pages = pageCount(texts.length, manifest.pageSize);
  const requested = query.page === undefined ? '1' : parsePage(query.page);
  const page = requested === 'last' ? pages : requested === null || requested.length > 15 ? 0 : Number(requested);
  if (page < 1 || page > pages) return { status: 404, body: invalidPageBody };
  const link = (to: number) => {
    const search = linkQuery(query.search, to === 1 ? undefined : to);
    return `${manifest.baseUrl}${list.path}${search ? `?${search}` : ''}`;
  };
  const head = encodePlain({
    count: texts.length,
    next: page < pages ? link(page + 1) : null,
    previous: page > 1 ? link(page - 1) : null,
  });
  const onPage = texts.slice((page - 1) * manifest.pageSize, page * manifest.pageSize);
  return { status: 200, body: `${head.slice(0, -1)},"results":${listText(onPage)}}` };
}
