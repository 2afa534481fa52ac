// Filters, search and ordering on a list, opted into per resource by the settings file: what a
// resource accepts (plain data carried with its declaration, so a bundle holds it as a literal),
// how a request is read against it, and the page made of the records it selects (which the store,
// scripts/store/, finds in the records the build wrote). DRF's filter backends in their order:
// DjangoFilterBackend, SearchFilter, OrderingFilter, then the pagination.

import { type Condition, type FilterField, readFilters } from './filters.ts';
import { encodePlain } from './json.ts';
import { compareStrings, type OrderTerm, parseOrdering } from './ordering.ts';
import { formQuery, pageCount, parsePage } from './pagination.ts';
import { pythonStrip } from './python-text.ts';
import { SEARCH_PARAM, type SearchField, searchTerms } from './search.ts';

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

/**
 * Which of a selection's records an answer shows (from `start` to before `end`) and its body:
 * `before`, their texts joined by commas, `after`; null for a page the selection does not have
 * (404 Invalid page).
 */
export function answerPage(
  query: ListQuery,
  count: number,
  list: { paginated: boolean; path: string },
  paging: { pageSize: number; baseUrl: string },
): { start: number; end: number; before: string; after: string; body: (texts: readonly string[]) => string } | null {
  let start = 0;
  let end = count;
  let before = '[';
  let after = ']';
  if (list.paginated) {
    const pages = pageCount(count, paging.pageSize);
    const requested = query.page === undefined ? '1' : parsePage(query.page);
    const page = requested === 'last' ? pages : requested === null || requested.length > 15 ? 0 : Number(requested);
    if (page < 1 || page > pages) return null;
    const link = (to: number) => {
      const search = linkQuery(query.search, to === 1 ? undefined : to);
      return `${paging.baseUrl}${list.path}${search ? `?${search}` : ''}`;
    };
    const head = encodePlain({
      count,
      next: page < pages ? link(page + 1) : null,
      previous: page > 1 ? link(page - 1) : null,
    });
    start = (page - 1) * paging.pageSize;
    end = Math.min(count, page * paging.pageSize);
    before = `${head.slice(0, -1)},"results":[`;
    after = ']}';
  }
  return { start, end, before, after, body: (texts) => `${before}${texts.join(',')}${after}` };
}
