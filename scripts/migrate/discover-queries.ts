// Which filters, search fields and orderings a running DRF service's lists take, found by asking
// it with values from its own records (query-probes.ts). DRF ignores a query parameter no backend
// reads, so a list without a filter, a search or an ordering answers as if it was not asked:
//
// - filters: one request with a value for every field that could be filtered; a list that answers
//   all its records has none. Otherwise each field on its own: an exact filter keeps exactly the
//   records holding the value.
// - search: a term no record holds; a list that answers all its records has no search (one with
//   search keeps none). Otherwise, per text field, terms found only in that field (a word inside
//   a value, its first letters, the whole value), each chosen so that the lookups still possible
//   (icontains, istartswith, iexact, not searched) would answer it differently: at most three.
// - orderings (on lists that do not declare their own): one request ordering by every field, each
//   in a direction that changes the list's order; a list that answers its default order has none.
//   Otherwise each field on its own.
//
// What the records cannot tell (every record holds the same value, no term found in one field
// only) is said, not guessed.

import { shownFields } from '../builder/pipeline/query-fields.ts';
import type { FilterKind } from '../contract/filters.ts';
import { RESERVED_PARAMS, type ResourceSettings } from '../contract/query.ts';
import type { Resource } from '../contract/resources/resource.ts';
import { SEARCH_PARAM } from '../contract/search.ts';
import { type ClientOptions, type ServiceAnswer, serviceClient } from './client.ts';
import {
  type FilterProbe,
  filterProbe,
  type ListAnswer,
  LOOKUP_PREFIX,
  LOOKUPS,
  type Lookup,
  listTarget,
  type OrderingProbe,
  orderingProbe,
  type ProbedList,
  type Row,
  readAnswer,
  SearchProbes,
  sameOrder,
  sameRecords,
} from './query-probes.ts';

export interface FoundQueries {
  /** The list's section of the settings file: only the keys with fields. */
  settings: ResourceSettings;
  /** Requests asked of the service. */
  requests: number;
  /** What the records could not tell, or the service answered otherwise than DRF's backends would. */
  notes: string[];
}

type Ask = (target: string) => Promise<ServiceAnswer>;

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

class ListProbe {
  requests = 0;
  readonly notes: string[] = [];

  constructor(
    readonly list: ProbedList,
    private readonly ask: Ask,
  ) {}

  async get(
    params: ReadonlyArray<readonly [string, string]>,
  ): Promise<{ target: string; answer: ListAnswer | string }> {
    const target = listTarget(this.list, params);
    this.requests += 1;
    return { target, answer: answerOf(this.list, await this.ask(target)) };
  }

  get all(): number {
    return this.list.records.length;
  }

  async filters(fields: ReadonlyArray<{ field: string; kind: FilterKind }>): Promise<string[]> {
    const probes: FilterProbe[] = [];
    const untold: string[] = [];
    for (const { field, kind } of fields) {
      if ((RESERVED_PARAMS as readonly string[]).includes(field)) continue;
      const probe = filterProbe(this.list.records, field, kind);
      if (probe) probes.push(probe);
      else untold.push(field);
    }
    if (untold.length > 0)
      this.notes.push(`filters on ${listed(untold)} cannot be told (no value that some records hold and others not)`);
    if (probes.length === 0) return [];
    const together = await this.get(probes.map((probe) => [probe.field, probe.value]));
    if (typeof together.answer !== 'string' && together.answer.count === this.all) return [];
    const found = await Promise.all(
      probes.map(async (probe) => {
        const { target, answer } = await this.get([[probe.field, probe.value]]);
        if (typeof answer === 'string') {
          this.notes.push(`${target} ${answer}: no filter on ${probe.field} written`);
          return false;
        }
        if (sameRecords(answer, { count: probe.kept.length, shown: this.shownOf(probe.kept) })) return true;
        if (answer.count !== this.all)
          this.notes.push(
            `${target} answered ${answer.count} records, not the ${probe.kept.length} of an exact filter: no filter on ${probe.field} written`,
          );
        return false;
      }),
    );
    return probes.filter((_, index) => found[index]).map((probe) => probe.field);
  }

  private shownOf(records: readonly Row[]) {
    return this.list.paginated ? records.slice(0, this.list.pageSize) : records;
  }

  async search(textFields: readonly string[], scalarFields: readonly string[]): Promise<string[]> {
    if (textFields.length === 0) return [];
    const probes = new SearchProbes(this.list, scalarFields);
    const absent = ['zqxjvk', 'qzxjwv', 'xqzjkv'].find((term) => probes.nowhere(term));
    if (absent === undefined) return [];
    const { target, answer } = await this.get([[SEARCH_PARAM, absent]]);
    if (typeof answer === 'string' || answer.count === this.all) return [];
    if (answer.count !== 0) {
      this.notes.push(
        `${target} answered ${answer.count} records, where a term no record holds keeps none: no search written`,
      );
      return [];
    }
    const found = await Promise.all(textFields.map((field) => this.searchField(probes, field)));
    const untold = textFields.filter((_, index) => found[index] === undefined);
    if (untold.length > 0)
      this.notes.push(`search on ${listed(untold)} cannot be told (no term found in that field only)`);
    return found.filter((entry): entry is string => entry !== undefined && entry !== '');
  }

  /** The field's entry of `search_fields` (`^city`), '' when it is not searched, undefined when the records cannot tell. */
  private async searchField(probes: SearchProbes, field: string): Promise<string | undefined> {
    let candidates: Lookup[] = [...LOOKUPS];
    for (let round = 0; round < SEARCH_ROUNDS && candidates.length > 1; round++) {
      const split = probes.splitting(field, candidates);
      if (split === undefined) break;
      const { target, answer } = await this.get([[SEARCH_PARAM, split.term]]);
      if (typeof answer === 'string') {
        this.notes.push(`${target} ${answer}: no search on ${field} written`);
        return '';
      }
      candidates = candidates.filter((lookup) => sameRecords(answer, split.answers.get(lookup) as ListAnswer));
      if (candidates.length === 0) {
        this.notes.push(`${target} answered as no lookup of SearchFilter on ${field} would: no search on it written`);
        return '';
      }
    }
    if (candidates.length === 1)
      return candidates[0] === 'none' ? '' : `${LOOKUP_PREFIX[candidates[0] as keyof typeof LOOKUP_PREFIX]}${field}`;
    // `=field` matches a search only where a whole value is one term: with none such, it answers
    // every search as a field not searched does, and neither is written.
    const oneWord = this.list.records.some((record) => {
      const value = record[field];
      return typeof value === 'string' && value !== '' && !/[\s,]/.test(value);
    });
    if (candidates.length === 2 && candidates.includes('iexact') && candidates.includes('none') && !oneWord) return '';
    if (candidates.includes('none')) return undefined;
    // Searched, by a lookup the records cannot single out: the widest of those left, said so.
    const [widest] = candidates as Array<keyof typeof LOOKUP_PREFIX>;
    const written = `${LOOKUP_PREFIX[widest as keyof typeof LOOKUP_PREFIX]}${field}`;
    this.notes.push(
      `search on ${field} is ${listed(candidates.map((lookup) => LOOKUP_PREFIX[lookup as keyof typeof LOOKUP_PREFIX] + field))} (its records cannot tell which): ${written} written`,
    );
    return written;
  }

  async orderings(fields: readonly string[]): Promise<string[]> {
    const probes: OrderingProbe[] = [];
    const untold: string[] = [];
    for (const field of fields) {
      const probe = orderingProbe(this.list, field);
      if (probe) probes.push(probe);
      else untold.push(field);
    }
    if (untold.length > 0)
      this.notes.push(`orderings by ${listed(untold)} cannot be told (the list is in that order already)`);
    if (probes.length === 0) return [];
    const term = (probe: OrderingProbe) => `${probe.descending ? '-' : ''}${probe.field}`;
    const together = await this.get([['ordering', probes.map(term).join(',')]]);
    const unordered = { count: this.all, shown: this.shownOf(this.list.records) };
    if (typeof together.answer !== 'string' && sameRecords(together.answer, unordered)) return [];
    const found = await Promise.all(
      probes.map(async (probe) => {
        const { target, answer } = await this.get([['ordering', term(probe)]]);
        if (typeof answer === 'string') {
          this.notes.push(`${target} ${answer}: no ordering by ${probe.field} written`);
          return false;
        }
        if (sameOrder(answer, probe.expected(), probe.field)) return true;
        if (!sameRecords(answer, unordered))
          this.notes.push(
            `${target} answered another order than the build's (code-point order, nulls last going up): no ordering by ${probe.field} written`,
          );
        return false;
      }),
    );
    return probes.filter((_, index) => found[index]).map((probe) => probe.field);
  }
}

/** Finds one list's settings. */
async function discoverList(resource: Resource, list: ProbedList, ask: Ask): Promise<FoundQueries> {
  const probe = new ListProbe(list, ask);
  if (list.records.length < 2) {
    return { settings: {}, requests: 0, notes: ['too few records to tell its filters, search and orderings'] };
  }
  const shown = [...shownFields(resource)];
  const scalar = shown.filter(([, { kind }]) => kind !== 'list' && kind !== 'object').map(([field]) => field);
  const filterable = shown.flatMap(([field, { kind }]) =>
    kind === 'list' || kind === 'object' || kind === 'number' ? [] : [{ field, kind }],
  );
  const text = shown.filter(([, { kind }]) => kind === 'text').map(([field]) => field);
  const [filters, search, ordering] = await Promise.all([
    probe.filters(filterable),
    probe.search(text, scalar),
    resource.orderingFields.length > 0 ? Promise.resolve([]) : probe.orderings(scalar),
  ]);
  const settings: ResourceSettings = {
    ...(filters.length > 0 ? { filterset_fields: filters } : {}),
    ...(search.length > 0 ? { search_fields: search } : {}),
    ...(ordering.length > 0 ? { ordering_fields: ordering } : {}),
  };
  return { settings, requests: probe.requests, notes: probe.notes };
}

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
  const ask: Ask = (target) => service.request(target, { headers: { Accept: 'application/json' } });
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
