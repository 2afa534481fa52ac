// The requests that learn, or check, a list's filters, search and orderings, made from the list's
// own records: a filter's value that keeps some records but not all, a search term and what each
// of DRF's lookups would keep with it, an ordering's direction that changes the list's order.
// What a list answers with such a setting is worked out with contract/'s own filters, search and
// ordering, so "answers as expected" means "answers as the build does". The import asks them to
// find the settings (discover-queries.ts), verify asks them of both sides (verify-queries.ts).

import {
  type FilterField,
  type FilterKind,
  filterMatcher,
  keepsValue,
  readFilters,
  requestText,
} from '../contract/filters.ts';
import { type Comparable, compareValues, fieldValue, sortRecords } from '../contract/ordering.ts';
import { matchesTerm, pgText, type SearchLookup, searchTerms } from '../contract/search.ts';
import { pgUpper } from '../contract/upper-case.ts';

export type Row = Record<string, unknown>;

/** A list as the probes see it: its records in its default order, and how it is paged. */
export interface ProbedList {
  name: string;
  /** `/company/`. */
  path: string;
  paginated: boolean;
  /** The page size of a paginated list's answers. */
  pageSize: number;
  records: readonly Row[];
}

/** What an answer shows of a list: how many records it holds, and those on the page (all of them, unpaginated). */
export interface ListAnswer {
  count: number;
  shown: readonly Row[];
}

/** A list's request, relative to the base URL: `company/?city=Bonn&ordering=-name`. */
export function listUrl(list: Pick<ProbedList, 'path'>, params: ReadonlyArray<readonly [string, string]>): string {
  const query = new URLSearchParams(params.map(([key, value]): [string, string] => [key, value])).toString();
  return `${list.path.slice(1)}${query ? `?${query}` : ''}`;
}

/** The answer the list gives when it keeps `records` (in this order). */
export function answerOf(list: ProbedList, records: readonly Row[]): ListAnswer {
  return { count: records.length, shown: list.paginated ? records.slice(0, list.pageSize) : records };
}

const isRow = (value: unknown): value is Row => value !== null && typeof value === 'object' && !Array.isArray(value);

/** An answer's JSON read as a list (or a page of one); undefined when it is neither. */
export function readAnswer(list: ProbedList, value: unknown): ListAnswer | undefined {
  if (!list.paginated)
    return Array.isArray(value) && value.every(isRow) ? { count: value.length, shown: value } : undefined;
  if (!isRow(value) || typeof value.count !== 'number' || !Array.isArray(value.results)) return undefined;
  return value.results.every(isRow) ? { count: value.count, shown: value.results } : undefined;
}

const idsOf = (answer: ListAnswer) => answer.shown.map((record) => JSON.stringify(record.id)).join(',');
const valuesOf = (answer: ListAnswer, field: string) =>
  answer.shown.map((record) => JSON.stringify(fieldValue(record, field))).join(',');

/** The same records, on the page shown, in the same order. */
export const sameRecords = (a: ListAnswer, b: ListAnswer) => a.count === b.count && idsOf(a) === idsOf(b);

/** The same number of records, showing the same values of `field` in the same order (ties may fall either way). */
export const sameOrder = (a: ListAnswer, b: ListAnswer, field: string) =>
  a.count === b.count && valuesOf(a, field) === valuesOf(b, field);

// ---------------------------------------------------------------------------------------------
// Filters.

export interface FilterProbe {
  field: string;
  kind: FilterKind;
  value: string;
  /** The records an exact filter with that value keeps, in the list's order. */
  kept: () => Row[];
}

/**
 * A value of `field` from the records that keeps some of them but not all, so that a service that
 * filters on it answers otherwise than one that ignores it (DRF ignores a parameter it does not
 * know). Several records rather than one where the records allow: the answer then shows more.
 */
export function filterProbe(records: readonly Row[], field: string, kind: FilterKind): FilterProbe | undefined {
  // Each text a request can write, in the order the records first hold it, with how many hold it.
  // Whether a filter reads it as the value first held is asked of the candidates in turn, not of
  // every text: a field of unique values (an id, a name) has as many texts as records.
  const counts = new Map<string, number>();
  for (const record of records) {
    const text = requestText(record[field]);
    if (text !== undefined) counts.set(text, (counts.get(text) ?? 0) + 1);
  }
  const narrows = (text: string, count: number) =>
    count < records.length &&
    keepsValue({ field, kind }, text, records.find((record) => requestText(record[field]) === text)?.[field]);
  const first = (wanted: (count: number) => boolean) => {
    for (const [text, count] of counts) if (wanted(count) && narrows(text, count)) return text;
    return undefined;
  };
  const chosen = first((count) => count > 1) ?? first(() => true);
  if (chosen === undefined) return undefined;
  return { field, kind, value: chosen, kept: () => filteredBy(records, field, kind, chosen) };
}

/** The records the build's exact filter keeps for `raw`, read as django-filter reads it. */
function filteredBy(records: readonly Row[], field: string, kind: FilterKind, raw: string): Row[] {
  const { conditions } = readFilters(new Map([[field, raw]]), [{ field, kind }]);
  const matches = filterMatcher(conditions);
  return records.filter(matches);
}

/** A value each kind of filter cannot read, which django-filter answers with 400; text and booleans have none that is plain. */
export const UNREADABLE: Partial<Record<FilterKind, string>> = { integer: 'abc', date: 'abc', uuid: 'abc' };

/**
 * Each of `filters` that some value refuses, with such a value (for text, a null character):
 * django-filter's 400 to them all names every one, in the order of the service's
 * `filterset_fields`. A boolean filter refuses no value, and is left out.
 */
export function unreadableParams(filters: readonly FilterField[]): Array<[string, string]> {
  return filters.flatMap(
    ({ field, kind }): Array<[string, string]> => (kind === 'boolean' ? [] : [[field, UNREADABLE[kind] ?? '\0']]),
  );
}

// ---------------------------------------------------------------------------------------------
// Search.

/** A search field's lookup, or `none` for a field the search does not look at. */
export type Lookup = SearchLookup | 'none';
export const LOOKUPS: readonly Lookup[] = ['icontains', 'istartswith', 'iexact', 'none'];
/** How a lookup is written in `search_fields`. */
export const LOOKUP_PREFIX: Record<SearchLookup, string> = { icontains: '', istartswith: '^', iexact: '=' };

/** The values of a list read in bulk: the first this many give the candidate terms. */
const TERM_SOURCES = 100;
/** Terms found in one field only weighed per question, so that a large list costs a bounded time. */
const TERMS_WEIGHED = 60;

const codePoints = (text: string) => Array.from(text);

/** PostgreSQL's upper(): JavaScript's where the text is printable ASCII, which both fold alike, and far faster on large lists. */
const upper = (text: string) => (/^[ -~]*$/.test(text) ? text.toUpperCase() : pgUpper(text));

/**
 * Terms from one value, each one SearchFilter term (no space, no comma): pieces inside its words,
 * its later words, its first letters and first word, and the whole value when it is one word.
 * Which lookup each one tells is worked out from the records, not assumed from where it was taken.
 */
function termsOfValue(value: string): string[] {
  const words = searchTerms(value);
  const terms: string[] = [];
  words.forEach((word, index) => {
    const letters = codePoints(word);
    if (letters.length >= 4) terms.push(letters.slice(1, 4).join(''));
    if (letters.length >= 3) terms.push(letters.slice(1).join(''));
    if (index > 0) terms.push(word);
  });
  const first = words[0];
  if (first !== undefined && value.startsWith(first)) {
    const letters = codePoints(first);
    if (letters.length > 3) terms.push(letters.slice(0, 3).join(''));
    if (letters.length > 2) terms.push(letters.slice(0, -1).join(''));
    if (words.length > 1) terms.push(first);
  }
  if (words.length === 1 && words[0] === value) terms.push(value);
  return terms.filter((term) => codePoints(term).length >= 2);
}

/** A list's values as the search compares them, read once. */
export class SearchProbes {
  private readonly upper = new Map<string, Array<string | null>>();
  private readonly texts = new Map<string, string>();

  /** `fields`: every field of one value the list shows, each of which a service might search. */
  constructor(
    readonly list: ProbedList,
    private readonly fields: readonly string[],
  ) {}

  private uppers(field: string): Array<string | null> {
    let values = this.upper.get(field);
    if (values === undefined) {
      values = this.list.records.map((record) => {
        const text = pgText(record[field]);
        return text === null ? null : upper(text);
      });
      this.upper.set(field, values);
    }
    return values;
  }

  /** Every value of `field`, upper-cased, in one text (a line each): where a term is looked for. */
  private joined(field: string): string {
    let text = this.texts.get(field);
    if (text === undefined) {
      // Not kept value by value: only the fields searched for are (uppers()).
      text = this.list.records
        .map((record) => pgText(record[field]))
        .filter((value) => value !== null)
        .map(upper)
        .join('\n');
      this.texts.set(field, text);
    }
    return text;
  }

  /** Whether no record holds `term` in a field other than `field`, so that only `field` can match it. */
  onlyIn(field: string, term: string): boolean {
    const upperTerm = upper(term);
    return this.fields.every((other) => other === field || !this.joined(other).includes(upperTerm));
  }

  /**
   * Whether no record holds `term` in any field: a search for it keeps nothing. Asked of every
   * list, most of which take no search: each value is read where it is, not joined into the texts
   * that onlyIn() keeps for the many terms a search is told by.
   */
  nowhere(term: string): boolean {
    const upperTerm = upper(term);
    return this.fields.every((field) =>
      this.list.records.every((record) => {
        const text = pgText(record[field]);
        return text === null || !upper(text).includes(upperTerm);
      }),
    );
  }

  /** The records a search for one term keeps when `field` is searched with `lookup`, and no other field matches. */
  kept(field: string, term: string, lookup: Lookup): Row[] {
    if (lookup === 'none') return [];
    const upperTerm = upper(term);
    const values = this.uppers(field);
    return this.list.records.filter((_, index) => {
      const value = values[index];
      return value != null && matchesTerm(value, upperTerm, lookup);
    });
  }

  /** Candidate terms from the field's first values, each once, in the records' order. */
  terms(field: string): string[] {
    const seen = new Set<string>();
    for (const record of this.list.records.slice(0, TERM_SOURCES)) {
      const value = record[field];
      if (typeof value !== 'string') continue;
      for (const term of termsOfValue(value)) seen.add(term);
    }
    return [...seen];
  }

  /**
   * A term matched in no other field that tells some of the `candidates` apart (they would answer
   * it differently), with each candidate's answer; undefined when none of the first terms does.
   * The first such term is taken: each one asked rules out at least one candidate, so three at
   * most tell the four apart, and a large list is not searched for a better one.
   */
  splitting(
    field: string,
    candidates: readonly Lookup[],
  ): { term: string; answers: Map<Lookup, ListAnswer> } | undefined {
    const all = this.list.records.length;
    let weighed = 0;
    for (const term of this.terms(field)) {
      if (!this.onlyIn(field, term)) continue;
      if (++weighed > TERMS_WEIGHED) break;
      const answers = new Map(
        candidates.map((lookup) => [lookup, answerOf(this.list, this.kept(field, term, lookup))]),
      );
      // A term every record matches would be answered as by a list without search.
      if ([...answers.values()].some((answer) => answer.count === all)) continue;
      const classes = new Set([...answers.values()].map((answer) => `${answer.count}:${idsOf(answer)}`)).size;
      if (classes > 1) return { term, answers };
    }
    return undefined;
  }

  /** A term that `lookup` on `field` matches in some records but not all, for verify; undefined when none. */
  matching(field: string, lookup: SearchLookup): string | undefined {
    const all = this.list.records.length;
    let some: string | undefined;
    for (const term of this.terms(field).slice(0, TERMS_WEIGHED)) {
      const kept = this.kept(field, term, lookup).length;
      if (kept > 0 && kept < all) return term;
      if (kept > 0) some ??= term;
    }
    return some;
  }
}

// ---------------------------------------------------------------------------------------------
// Ordering.

export interface OrderingProbe {
  field: string;
  descending: boolean;
  /** The list's answer ordered so (then by id), sorted when first asked for. */
  expected: () => ListAnswer;
}

const sortedBy = (records: readonly Row[], field: string, sign: number) =>
  records.every(
    (record, index) =>
      index === 0 || sign * compareValues(fieldValue(records[index - 1] as Row, field), fieldValue(record, field)) <= 0,
  );

/**
 * The direction of an ordering by `field` whose answer differs from the list's default one
 * (descending where both do), so that a service that ignores the ordering (DRF drops a field it
 * does not allow) answers otherwise than one that orders by it; undefined when neither does.
 */
export function orderingProbe(list: ProbedList, field: string): OrderingProbe | undefined {
  const records = list.records as ReadonlyArray<Row & { id: Comparable }>;
  const defaultAnswer = answerOf(list, records);
  for (const descending of [true, false]) {
    const sorted = () => answerOf(list, sortRecords(records, [{ field, descending }]));
    if (list.paginated) {
      // Only the first page is shown: it is worked out in full.
      const expected = sorted();
      if (!sameOrder(expected, defaultAnswer, field)) return { field, descending, expected: () => expected };
    } else if (!sortedBy(records, field, descending ? -1 : 1)) {
      // The whole list is shown: it differs from its order by the field unless it is in that order already.
      let expected: ListAnswer | undefined;
      return { field, descending, expected: () => (expected ??= sorted()) };
    }
  }
  return undefined;
}
