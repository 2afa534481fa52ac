// How the answers changed beyond their records: routes that appeared or vanished, lists whose
// order changed (as moves), the pages of each paginated list that shift, the links' origin and the page size,
// the OPTIONS and error bodies, and the `_headers` rules.

import { parseHeadersFile } from '../contract/headers.ts';
import type { PlainJson } from '../contract/json.ts';
import { linkBase, type Routed } from '../contract/routes.ts';
import { type AnswerNames, answerNames } from './answer-names.ts';
import { type Files, type Page, parsed, sameBytes } from './records.ts';
import { diffValues, type FieldChange, idOf } from './values.ts';

/** A record that moved in a list: its 1-based positions before and after. */
export interface Move {
  id: string;
  before: number;
  after: number;
}

export interface Reorder {
  answer: string;
  moves: Move[];
}

/** Consecutive texture pages whose records all moved by `by` places (positive: later). */
export interface Shift {
  from: number;
  to: number;
  by: number;
}

export interface PagesDiff {
  count?: { before: number; after: number };
  pageSize?: { before: number | null; after: number | null };
  baseUrl?: { before: string | null; after: string | null };
  shifts: Shift[];
}

/** How the pages of one paginated list changed: `resource` names it. */
export interface ListPagesDiff extends PagesDiff {
  resource: string;
}

export interface BodyChange {
  answer: string;
  fields: FieldChange[];
}

export interface HeaderChange {
  /** The `_headers` path pattern, such as `/*`. */
  pattern: string;
  name: string;
  before?: string;
  after?: string;
}

export interface AnswersDiff {
  appeared: string[];
  vanished: string[];
  reordered: Reorder[];
  /** The first paginated list's pages (the API's one, the textures), as version 1 of the report has them. */
  pages: PagesDiff;
  /** Every paginated list whose pages differ, in the order of the declarations. */
  paginated: ListPagesDiff[];
  bodies: BodyChange[];
  headers: HeaderChange[];
}

/** A list of `resources` that is not paginated, in its default order or an ordering: `event/ordering=-id.json`. */
function listFilePattern(resources: readonly Routed[]): RegExp {
  return new RegExp(
    `^(${resources
      .filter((resource) => !resource.paginated)
      .map((resource) => resource.name)
      .join('|')})/(index|ordering=[^/]+)\\.json$`,
  );
}

/**
 * The positions (in `values`, distinct ranks from 0 to values.length - 1) of the increasing
 * subsequence with the most weight, in O(n log n) with a Fenwick tree of running maxima.
 */
function heaviestIncreasing(values: readonly number[], weights: readonly number[]): Set<number> {
  const size = values.length;
  const best = new Array<number>(size + 1).fill(0);
  const at = new Array<number>(size + 1).fill(-1);
  const previous = new Array<number>(size).fill(-1);
  const total = new Array<number>(size).fill(0);
  for (const [index, value] of values.entries()) {
    let top = 0;
    let from = -1;
    for (let node = value; node > 0; node -= node & -node) {
      if ((best[node] as number) > top) {
        top = best[node] as number;
        from = at[node] as number;
      }
    }
    total[index] = top + (weights[index] as number);
    previous[index] = from;
    for (let node = value + 1; node <= size; node += node & -node) {
      if ((total[index] as number) > (best[node] as number)) {
        best[node] = total[index] as number;
        at[node] = index;
      }
    }
  }
  let last = -1;
  for (let index = 0; index < size; index++)
    if (last < 0 || (total[index] as number) > (total[last] as number)) last = index;
  const kept = new Set<number>();
  for (let index = last; index >= 0; index = previous[index] as number) kept.add(index);
  return kept;
}

/**
 * The fewest records whose move explains the new order of the records both lists hold; among
 * as few, the records in `changed` (whose content changed, so that they moved) rather than others.
 */
export function movesBetween(
  before: readonly string[],
  after: readonly string[],
  changed: ReadonlySet<string> = new Set(),
): Move[] {
  const positionAfter = new Map(after.map((id, index) => [id, index]));
  const positionBefore = new Map(before.map((id, index) => [id, index]));
  const common = before.filter((id) => positionAfter.has(id));
  const ranks = new Map(
    [...common]
      .sort((a, b) => (positionAfter.get(a) as number) - (positionAfter.get(b) as number))
      .map((id, rank) => [id, rank]),
  );
  const weights = common.map((id) => common.length + 1 + (changed.has(id) ? 0 : 1));
  const kept = heaviestIncreasing(
    common.map((id) => ranks.get(id) as number),
    weights,
  );
  const moves = common
    .filter((_, index) => !kept.has(index))
    .map((id) => ({
      id,
      before: (positionBefore.get(id) as number) + 1,
      after: (positionAfter.get(id) as number) + 1,
    }));
  return moves.sort((a, b) => a.after - b.after);
}

/** The ids of a list's records, in its order. */
export function listIds(records: readonly PlainJson[]): string[] {
  return records.map((record) => idOf(record) ?? '');
}

/** What the records' comparison has parsed already, so that the answers need not parse it again. */
export interface Known {
  /** The ids of a list file before and after, by file. */
  ids: Map<string, [before: string[], after: string[]]>;
  /** The pages before and after of each paginated list, by resource; none when every page is the same, byte for byte. */
  pages: Map<Routed, [before: Page[], after: Page[]]>;
}

/** A build's resources, and how its files are named as requests. */
interface Naming {
  resources: readonly Routed[];
  names: AnswerNames;
  listFile: RegExp;
}

/** The ids of the changed records, by resource (`event` for its orderings too). */
export type ChangedIds = ReadonlyMap<string, ReadonlySet<string>>;

/** A list file's ids on both sides, parsed one file at a time unless known already. */
function idsOf(before: Files, after: Files, file: string, known: Known): [string[], string[]] {
  const found = known.ids.get(file);
  if (found !== undefined) return found;
  return [listIds(parsed<PlainJson[]>(before, file) ?? []), listIds(parsed<PlainJson[]>(after, file) ?? [])];
}

function reorders(before: Files, after: Files, changed: ChangedIds, known: Known, naming: Naming): Reorder[] {
  const found: Reorder[] = [];
  for (const [file, bytes] of after) {
    const was = before.get(file);
    if (!naming.listFile.test(file) || was === undefined || was.equals(bytes)) continue;
    const [old, now] = idsOf(before, after, file, known);
    const moves = movesBetween(old, now, changed.get(file.split('/')[0] as string));
    if (moves.length > 0) found.push({ answer: naming.names.answerOf(file) as string, moves });
  }
  for (const [resource, sides] of known.pages) {
    const [old, now] = sides.map((pages) => listIds(pages.flatMap((page) => page.results))) as [string[], string[]];
    const moves = movesBetween(old, now, changed.get(resource.name));
    if (moves.length > 0) found.push({ answer: `${resource.path} (all pages)`, moves });
  }
  return found.sort((a, b) => a.answer.localeCompare(b.answer));
}

function pageSizeOf(pages: readonly Page[]): number | null {
  return pages.length > 1 ? (pages[0] as Page).results.length : null;
}

function baseUrlOf(pages: readonly Page[], resources: readonly Routed[]): string | null {
  return linkBase(pages[0]?.next ?? pages[1]?.previous, resources) ?? null;
}

/** Pages whose records are those of the same page before, each moved by the same number of places. */
function shifts(old: readonly Page[], now: readonly Page[], pageSize: number): Shift[] {
  const positionBefore = new Map(listIds(old.flatMap((page) => page.results)).map((id, index) => [id, index]));
  const found: Shift[] = [];
  for (const [index, page] of now.entries()) {
    const was = old[index];
    const pageIds = listIds(page.results);
    if (was === undefined || pageIds.join('\0') === listIds(was.results).join('\0')) continue;
    const start = index * pageSize;
    const offsets = new Set(pageIds.map((id, at) => start + at - (positionBefore.get(id) ?? Number.NaN)));
    const by = offsets.size === 1 ? ([...offsets][0] as number) : Number.NaN;
    if (!Number.isInteger(by) || by === 0) continue;
    const last = found.at(-1);
    if (last !== undefined && last.by === by && last.to === index) last.to = index + 1;
    else found.push({ from: index + 1, to: index + 1, by });
  }
  return found;
}

/** How the pages of `resource` changed; nothing when they are the same, byte for byte. */
function pagesDiff(known: Known, resource: Routed, resources: readonly Routed[]): PagesDiff {
  const sides = known.pages.get(resource);
  if (sides === undefined) return { shifts: [] };
  const [old, now] = sides;
  const diff: PagesDiff = { shifts: [] };
  const count = { before: old[0]?.count ?? 0, after: now[0]?.count ?? 0 };
  if (count.before !== count.after) diff.count = count;
  const baseUrl = { before: baseUrlOf(old, resources), after: baseUrlOf(now, resources) };
  if (baseUrl.before !== null && baseUrl.after !== null && baseUrl.before !== baseUrl.after) diff.baseUrl = baseUrl;
  const pageSize = { before: pageSizeOf(old), after: pageSizeOf(now) };
  if (pageSize.before !== null && pageSize.after !== null && pageSize.before !== pageSize.after) {
    diff.pageSize = pageSize;
  } else {
    const size = pageSize.before ?? pageSize.after;
    if (size !== null) diff.shifts = shifts(old, now, size);
  }
  return diff;
}

/**
 * The pages of every paginated list of the declarations, an entry for each whose count, page
 * size, base URL or shifts changed (its records' changes are in the records' part).
 */
function paginatedDiffs(known: Known, resources: readonly Routed[]): ListPagesDiff[] {
  return resources
    .filter((resource) => resource.paginated && known.pages.has(resource))
    .map((resource) => ({ resource: resource.name, ...pagesDiff(known, resource, resources) }))
    .filter((pages) => pages.count || pages.pageSize || pages.baseUrl || pages.shifts.length > 0);
}

/** `pages` (the first paginated list's, as version 1 has it) and `paginated` (every one's). */
function pagesOf(known: Known, resources: readonly Routed[]): Pick<AnswersDiff, 'pages' | 'paginated'> {
  const paginated = paginatedDiffs(known, resources);
  const first = resources.find((resource) => resource.paginated);
  const { resource: _, ...pages } = paginated.find((entry) => entry.resource === first?.name) ?? {
    resource: '',
    shifts: [],
  };
  return { pages, paginated };
}

function bodies(before: Files, after: Files, names: AnswerNames): BodyChange[] {
  const found: BodyChange[] = [];
  for (const [file, bytes] of after) {
    const was = before.get(file);
    if (!names.isFixedBody(file) || was === undefined || was.equals(bytes)) continue;
    const fields: FieldChange[] = [];
    diffValues('', parsed(before, file) as PlainJson, parsed(after, file) as PlainJson, fields);
    found.push({ answer: names.answerOf(file) as string, fields });
  }
  return found.sort((a, b) => a.answer.localeCompare(b.answer));
}

function headerValues(text: string | undefined): Map<string, [pattern: string, name: string, value: string]> {
  const values = new Map<string, [string, string, string]>();
  for (const rule of parseHeadersFile(text ?? '').rules) {
    for (const [name, value] of rule.headers) {
      const key = `${rule.pattern}\0${name.toLowerCase()}`;
      const known = values.get(key);
      values.set(key, [rule.pattern, name, known ? `${known[2]}, ${value}` : value]);
    }
  }
  return values;
}

function headers(before: Buffer | undefined, after: Buffer | undefined): HeaderChange[] {
  if (sameBytes(before, after)) return [];
  const old = headerValues(before?.toString('utf8'));
  const now = headerValues(after?.toString('utf8'));
  const found: HeaderChange[] = [];
  for (const [key, [pattern, name, value]] of old) {
    const next = now.get(key);
    if (next === undefined) found.push({ pattern, name, before: value });
    else if (next[2] !== value) found.push({ pattern, name, before: value, after: next[2] });
  }
  for (const [key, [pattern, name, value]] of now) if (!old.has(key)) found.push({ pattern, name, after: value });
  return found;
}

function answerFiles(files: Files, names: AnswerNames): Set<string> {
  return new Set([...files.keys()].filter((file) => names.answerOf(file) !== undefined));
}

/**
 * The answers' changes in a build of `resources`; `changed` names the records that changed, which
 * are the ones said to move, and `known` what the records' comparison parsed already.
 */
export function diffAnswers(
  before: Files,
  after: Files,
  changed: ChangedIds,
  known: Known,
  resources: readonly Routed[],
): AnswersDiff {
  const names = answerNames(resources);
  const naming: Naming = { resources, names, listFile: listFilePattern(resources) };
  const old = answerFiles(before, names);
  const now = answerFiles(after, names);
  const named = (files: string[]) => files.map((file) => names.answerOf(file) as string).sort();
  return {
    appeared: named([...now].filter((file) => !old.has(file))),
    vanished: named([...old].filter((file) => !now.has(file))),
    reordered: reorders(before, after, changed, known, naming),
    ...pagesOf(known, resources),
    bodies: bodies(before, after, names),
    headers: headers(before.get('_headers'), after.get('_headers')),
  };
}
