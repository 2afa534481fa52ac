// Which filters, search fields and orderings a running DRF service's lists take, found by asking
// it with values from its own records (query-probes.ts). DRF ignores a query parameter no backend
// reads, so a list without a filter, a search or an ordering answers as if it was not asked.
// First one request per list with all of them at once (every filter's value, a term no record
// holds, every ordering): a list that answers it with its plain answer takes none. Otherwise:
//
// - filters: the values together; a list that answers all its records has none. Otherwise each
//   field on its own: an exact filter keeps exactly the records holding the value. Then the
//   filters found, each with a value it cannot read: the 400 names them in the order of the
//   service's `filterset_fields`, which is the order written.
// - search: the term no record holds; a list that answers all its records has no search (one with
//   search keeps none). Otherwise, per text field, terms found only in that field (a piece inside
//   a word, a later word, its first letters, the whole value), each the first that the lookups
//   still possible (icontains, istartswith, iexact, not searched) would answer differently: at
//   most three.
// - orderings (on lists that do not declare their own): the orderings together, each in a
//   direction that changes the list's order; a list that answers its default order has none.
//   Otherwise each field on its own.
//
// What the records cannot tell (every record holds the same value, no term found in one field
// only) is said, not guessed.

import { shownFields } from '../builder/pipeline/query-fields.ts';
import type { FilterKind } from '../contract/filters.ts';
import { ORDERING_PARAM, RESERVED_PARAMS, type ResourceSettings } from '../contract/query.ts';
import type { Resource } from '../contract/resources/resource.ts';
import { SEARCH_PARAM, type SearchLookup, searchTerms } from '../contract/search.ts';
import { type ClientOptions, type ServiceAnswer, serviceClient } from './client.ts';
import {
  type FilterProbe,
  filterProbe,
  type ListAnswer,
  LOOKUP_PREFIX,
  LOOKUPS,
  type Lookup,
  listUrl,
  type OrderingProbe,
  orderingProbe,
  type ProbedList,
  type Row,
  readAnswer,
  SearchProbes,
  sameOrder,
  sameRecords,
  unreadableParams,
} from './query-probes.ts';

export interface FoundQueries {
  /** The list's section of the settings file: only the keys with fields. */
  settings: ResourceSettings;
  /** Requests asked of the service. */
  requests: number;
  /** What the records could not tell, or the service answered otherwise than DRF's backends would. */
  notes: string[];
}

type Ask = (url: string) => Promise<ServiceAnswer>;

/** Terms tried in turn for one field's search: each tells at least one lookup from the others. */
const SEARCH_ROUNDS = 3;

/** An answer as a list, or why it is not one. */
function answerOf(list: ProbedList, answer: ServiceAnswer): ListAnswer | string {
  if (answer.status !== 200) return `answered ${answer.status}`;
  try {
    return readAnswer(list, JSON.parse(answer.body.toString('utf8'))) ?? 'did not answer a list';
  } catch {
    return 'did not answer JSON';
  }
}

/** `a, b and c`. */
const listed = (words: readonly string[]) =>
  words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;

/** Where a note goes in the line: filters, search, orderings, each field in the list's order. */
const SECTIONS = { filters: 0, search: 1, orderings: 2 } as const;

class ListProbe {
  requests = 0;
  /** Said as the answers come, which is in no fixed order: sorted by `order` for the line. */
  private readonly said: Array<{ order: number; text: string }> = [];

  /** What the records could not tell, or the service answered otherwise, in a fixed order. */
  get notes(): string[] {
    return [...this.said].sort((a, b) => a.order - b.order).map((note) => note.text);
  }

  /** A note of `section`, about the list's `index`-th probed field (-1: about several). */
  private note(section: keyof typeof SECTIONS, index: number, text: string): void {
    this.said.push({ order: SECTIONS[section] * 10_000 + index, text });
  }

  constructor(
    readonly list: ProbedList,
    private readonly ask: Ask,
  ) {}

  async get(params: ReadonlyArray<readonly [string, string]>): Promise<{ url: string; answer: ListAnswer | string }> {
    const url = listUrl(this.list, params);
    this.requests += 1;
    return { url, answer: answerOf(this.list, await this.ask(url)) };
  }

  get all(): number {
    return this.list.records.length;
  }

  /** The list's own answer, as a service answers a request it ignores. */
  get unordered(): ListAnswer {
    return { count: this.all, shown: this.shownOf(this.list.records) };
  }

  /**
   * One request with every filter, a search no record matches and every ordering: a list that
   * answers it as it answers no query takes none of them (a filter would narrow it, a search
   * empty it, an ordering change its order), which is all a plain service is asked.
   */
  async takesAny(filters: readonly FilterProbe[], absent: string | undefined, orderings: readonly OrderingProbe[]) {
    const params: Array<[string, string]> = filters.map((probe) => [probe.field, probe.value]);
    if (absent !== undefined) params.push([SEARCH_PARAM, absent]);
    if (orderings.length > 0) params.push([ORDERING_PARAM, orderings.map(orderingTerm).join(',')]);
    if (params.length === 0) return false;
    const { answer } = await this.get(params);
    return typeof answer === 'string' || !sameRecords(answer, this.unordered);
  }

  /** Asks each filter on its own, once the list is known to filter on some field. */
  async filters(probes: readonly FilterProbe[], untold: readonly string[]): Promise<FilterProbe[]> {
    if (probes.length === 0) return [];
    const together = await this.get(probes.map((probe) => [probe.field, probe.value]));
    if (typeof together.answer !== 'string' && together.answer.count === this.all) return [];
    if (untold.length > 0)
      this.note(
        'filters',
        -1,
        `filters on ${listed(untold)} cannot be told (no value that some records hold and others not)`,
      );
    const found = await Promise.all(
      probes.map(async (probe, index) => {
        const { url, answer } = await this.get([[probe.field, probe.value]]);
        if (typeof answer === 'string') {
          this.note('filters', index, `${url} ${answer}: no filter on ${probe.field} written`);
          return false;
        }
        const kept = probe.kept();
        if (sameRecords(answer, { count: kept.length, shown: this.shownOf(kept) })) return true;
        if (answer.count !== this.all)
          this.note(
            'filters',
            index,
            `${url} answered ${answer.count} records, not the ${kept.length} of an exact filter: no filter on ${probe.field} written`,
          );
        return false;
      }),
    );
    return probes.filter((_, index) => found[index]);
  }

  /**
   * The filters found, in the order of the service's `filterset_fields`, which its 400 follows:
   * one request giving each a value it cannot read. A boolean refuses no value, so its place is
   * not told: it keeps its place in the list's order, as does everything when the answer is not
   * such a 400.
   */
  async filterOrder(found: readonly FilterProbe[]): Promise<string[]> {
    const fields = found.map((probe) => probe.field);
    const refused = unreadableParams(found);
    if (refused.length < 2) return fields;
    const url = listUrl(this.list, refused);
    this.requests += 1;
    const answer = await this.ask(url);
    const named = answer.status === 400 ? errorFields(answer.body) : undefined;
    const asked = refused.map(([field]) => field);
    if (named === undefined || named.length !== asked.length || !asked.every((field) => named.includes(field))) {
      this.note(
        'filters',
        -1,
        `${url} answered ${answer.status}, not the 400 naming each filter: the filters are written in the list's order`,
      );
      return fields;
    }
    // The refused fields take each other's places in the service's order; the others keep theirs.
    const service = [...named];
    return fields.map((field) => (asked.includes(field) ? (service.shift() as string) : field));
  }

  private shownOf(records: readonly Row[]) {
    return this.list.paginated ? records.slice(0, this.list.pageSize) : records;
  }

  async search(probes: SearchProbes, absent: string | undefined, textFields: readonly string[]): Promise<string[]> {
    if (absent === undefined || textFields.length === 0) return [];
    const { url, answer } = await this.get([[SEARCH_PARAM, absent]]);
    if (typeof answer === 'string') {
      this.note('search', -1, `${url} ${answer}: no search written`);
      return [];
    }
    if (answer.count === this.all) return [];
    if (answer.count !== 0) {
      this.note(
        'search',
        -1,
        `${url} answered ${answer.count} records, where a term no record holds keeps none: no search written`,
      );
      return [];
    }
    const found = await Promise.all(textFields.map((field, index) => this.searchField(probes, field, index)));
    const untold = textFields.filter((_, index) => found[index] === undefined);
    if (untold.length > 0)
      this.note('search', -1, `search on ${listed(untold)} cannot be told (no term found in that field only)`);
    return found.filter((entry): entry is string => entry !== undefined && entry !== '');
  }

  /** The field's entry of `search_fields` (`^city`), '' when it is not searched, undefined when the records cannot tell. */
  private async searchField(probes: SearchProbes, field: string, index: number): Promise<string | undefined> {
    let candidates: Lookup[] = [...LOOKUPS];
    for (let round = 0; round < SEARCH_ROUNDS && candidates.length > 1; round++) {
      const split = probes.splitting(field, candidates);
      if (split === undefined) break;
      const { url, answer } = await this.get([[SEARCH_PARAM, split.term]]);
      if (typeof answer === 'string') {
        this.note('search', index, `${url} ${answer}: no search on ${field} written`);
        return '';
      }
      candidates = candidates.filter((lookup) => sameRecords(answer, split.answers.get(lookup) as ListAnswer));
      if (candidates.length === 0) {
        this.note(
          'search',
          index,
          `${url} answered as no lookup of SearchFilter on ${field} would: no search on it written`,
        );
        return '';
      }
    }
    const searched = candidates.filter((lookup): lookup is SearchLookup => lookup !== 'none');
    const entry = (lookup: SearchLookup) => `${LOOKUP_PREFIX[lookup]}${field}`;
    if (candidates.length === 1) return searched[0] === undefined ? '' : entry(searched[0]);
    // `=field` matches a search only where a whole value is one term: with none such, it answers
    // every search as a field not searched does, and neither is written.
    const oneTerm = this.list.records.some((record) => {
      const value = record[field];
      return typeof value === 'string' && searchTerms(value).length === 1 && searchTerms(value)[0] === value;
    });
    if (candidates.length === 2 && searched[0] === 'iexact' && !oneTerm) return '';
    if (searched.length < candidates.length || searched[0] === undefined) return undefined;
    // Searched, by a lookup the records cannot single out: the widest of those left, said so.
    const written = entry(searched[0]);
    this.note(
      'search',
      index,
      `search on ${field} is ${listed(searched.map(entry))} (its records cannot tell which): ${written} written`,
    );
    return written;
  }

  async orderings(probes: readonly OrderingProbe[], untold: readonly string[]): Promise<string[]> {
    if (probes.length === 0) return [];
    const together = await this.get([[ORDERING_PARAM, probes.map(orderingTerm).join(',')]]);
    const unordered = this.unordered;
    if (typeof together.answer !== 'string' && sameRecords(together.answer, unordered)) return [];
    if (untold.length > 0)
      this.note('orderings', -1, `orderings by ${listed(untold)} cannot be told (the list is in that order already)`);
    const found = await Promise.all(
      probes.map(async (probe, index) => {
        const { url, answer } = await this.get([[ORDERING_PARAM, orderingTerm(probe)]]);
        if (typeof answer === 'string') {
          this.note('orderings', index, `${url} ${answer}: no ordering by ${probe.field} written`);
          return false;
        }
        if (sameOrder(answer, probe.expected(), probe.field)) return true;
        if (!sameRecords(answer, unordered))
          this.note(
            'orderings',
            index,
            `${url} answered another order than the build's (code-point order, nulls last going up): no ordering by ${probe.field} written`,
          );
        return false;
      }),
    );
    return probes.filter((_, index) => found[index]).map((probe) => probe.field);
  }
}

/** The keys of a JSON object's text, in its order; undefined when it is not one. */
function errorFields(body: Buffer): string[] | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : undefined;
  } catch {
    return undefined;
  }
}

const orderingTerm = (probe: OrderingProbe) => `${probe.descending ? '-' : ''}${probe.field}`;

/** The probes of each field, and the fields the records give none for. */
function probesOf<T>(fields: readonly string[], make: (field: string) => T | undefined) {
  const probes: T[] = [];
  const untold: string[] = [];
  for (const field of fields) {
    const probe = make(field);
    if (probe === undefined) untold.push(field);
    else probes.push(probe);
  }
  return { probes, untold };
}

/** A term no record holds: a list with search answers it with no record. */
const ABSENT_TERMS = ['zqxjvk', 'qzxjwv', 'xqzjkv'];

/** Finds one list's settings. */
async function discoverList(resource: Resource, list: ProbedList, ask: Ask): Promise<FoundQueries> {
  const probe = new ListProbe(list, ask);
  if (list.records.length < 2) {
    return { settings: {}, requests: 0, notes: ['too few records to tell its filters, search and orderings'] };
  }
  const shown = [...shownFields(resource)];
  const scalar = shown.filter(([, { kind }]) => kind !== 'list' && kind !== 'object').map(([field]) => field);
  const kinds = new Map(shown.map(([field, { kind }]) => [field, kind]));
  const filterable = shown
    .filter(([field, { kind }]) => !['list', 'object', 'number'].includes(kind) && !isReserved(field))
    .map(([field]) => field);
  const text = shown.filter(([, { kind }]) => kind === 'text').map(([field]) => field);
  const filters = probesOf(filterable, (field) => filterProbe(list.records, field, kinds.get(field) as FilterKind));
  const search = new SearchProbes(list, scalar);
  const absent = text.length > 0 ? ABSENT_TERMS.find((term) => search.nowhere(term)) : undefined;
  const declared = resource.orderingFields.length > 0;
  const orderings = declared ? { probes: [], untold: [] } : probesOf(scalar, (field) => orderingProbe(list, field));
  if (!(await probe.takesAny(filters.probes, absent, orderings.probes)))
    return { settings: {}, requests: probe.requests, notes: [] };
  const [filterset, searched, ordered] = await Promise.all([
    probe.filters(filters.probes, filters.untold).then((found) => probe.filterOrder(found)),
    probe.search(search, absent, text),
    probe.orderings(orderings.probes, orderings.untold),
  ]);
  const settings: ResourceSettings = {
    ...(filterset.length > 0 ? { filterset_fields: filterset } : {}),
    ...(searched.length > 0 ? { search_fields: searched } : {}),
    ...(ordered.length > 0 ? { ordering_fields: ordered } : {}),
  };
  return { settings, requests: probe.requests, notes: probe.notes };
}

const isReserved = (field: string) => (RESERVED_PARAMS as readonly string[]).includes(field);

/**
 * Asks the service at `from` (its base URL) what each list takes, with the client's bound on
 * requests in flight; the lists by resource name, in the declarations' order.
 */
export async function discoverQueries(
  from: string,
  lists: ReadonlyArray<{ resource: Resource; list: ProbedList }>,
  client?: ClientOptions,
): Promise<Map<string, FoundQueries>> {
  const service = serviceClient(from, client);
  const ask: Ask = (url) => service.request(url, { headers: { Accept: 'application/json' } });
  const found = await Promise.all(lists.map(({ resource, list }) => discoverList(resource, list, ask)));
  return new Map(lists.map(({ resource }, index) => [resource.name, found[index] as FoundQueries]));
}

/** `company/: filters id, city; search name, ^city; orderings name (27 requests)`, then what could not be told. */
export function foundLine(path: string, found: FoundQueries): string {
  const { filterset_fields: filters = [], search_fields: search = [], ordering_fields: ordering = [] } = found.settings;
  const parts = [
    filters.length > 0 ? `filters ${filters.join(', ')}` : '',
    search.length > 0 ? `search ${search.join(', ')}` : '',
    ordering.length > 0 ? `orderings ${ordering.join(', ')}` : '',
  ].filter((part) => part !== '');
  const what = parts.length > 0 ? parts.join('; ') : 'no filters, search or orderings';
  const notes = found.notes.length > 0 ? `; ${found.notes.join('; ')}` : '';
  return `${path.slice(1)}: ${what} (${found.requests} request${found.requests === 1 ? '' : 's'})${notes}`;
}
