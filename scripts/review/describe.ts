// The report in words, one section per resource and one for the answers, each a list of lines
// marked added, removed, changed or a note; the text and Markdown formats lay these out.

import type { PlainJson } from '../contract/json.ts';
import { countedAs, type Resource } from '../contract/resources/resource.ts';
import type { ListPagesDiff, Shift } from './answers.ts';
import type { Report } from './compare.ts';
import type { Added } from './records.ts';
import type { FieldChange } from './values.ts';

export type LineKind = 'added' | 'removed' | 'changed' | 'note';

export interface Line {
  kind: LineKind;
  /** 0 for a record or an answer, 1 for its fields. */
  depth: number;
  text: string;
}

export interface Section {
  title: string;
  /** `1 added, 2 changed`, or `3 changes`. */
  summary: string;
  lines: Line[];
}

/** How many characters of a value a line shows. */
export const SHOWN = 120;
const CONTEXT = 24;
const MOVES_SHOWN = 5;

/** A value on one line, cut at SHOWN characters; `absent` when there is none. */
export function show(value: PlainJson | undefined, absent = ''): string {
  if (value === undefined) return absent;
  const text = JSON.stringify(value);
  return text.length > SHOWN ? `${text.slice(0, SHOWN - 1)}…` : text;
}

/** Two long strings shown around where they differ, with CONTEXT characters either side. */
export function excerpts(before: string, after: string): [string, string] {
  let prefix = 0;
  while (prefix < before.length && prefix < after.length && before[prefix] === after[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < before.length - prefix &&
    suffix < after.length - prefix &&
    before[before.length - 1 - suffix] === after[after.length - 1 - suffix]
  ) {
    suffix++;
  }
  const cut = (text: string) => {
    const start = Math.max(0, prefix - CONTEXT);
    const end = Math.min(text.length, text.length - suffix + CONTEXT);
    const middle = JSON.stringify(text.slice(start, end)).slice(1, -1);
    return `"${start > 0 ? '…' : ''}${middle}${end < text.length ? '…' : ''}"`;
  };
  return [cut(before), cut(after)];
}

/**
 * A field's change on one line; `whole` shows its values uncut (a setting, written by hand and
 * short, whose every word shapes the API), else each is cut as show() and excerpts() cut it.
 */
function fieldLine(change: FieldChange, whole = false): Line {
  const value = (json: PlainJson | undefined) => (whole ? JSON.stringify(json) : show(json));
  if (change.before === undefined) return { kind: 'added', depth: 1, text: `${change.path}: ${value(change.after)}` };
  if (change.after === undefined) return { kind: 'removed', depth: 1, text: `${change.path}: ${value(change.before)}` };
  if (whole)
    return { kind: 'changed', depth: 1, text: `${change.path}: ${value(change.before)} → ${value(change.after)}` };
  const long = typeof change.before === 'string' && typeof change.after === 'string';
  const [before, after] =
    long && `${change.before}${change.after}`.length > SHOWN
      ? excerpts(change.before as string, change.after as string)
      : [show(change.before), show(change.after)];
  return { kind: 'changed', depth: 1, text: `${change.path}: ${before} → ${after}` };
}

function recordName(id: string, record: PlainJson | undefined): string {
  const name = typeof record === 'object' && record !== null && !Array.isArray(record) ? record.name : undefined;
  return typeof name === 'string' ? `id ${id} ${JSON.stringify(name)}` : `id ${id}`;
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** What a list's records are called where its declaration is known: `texture`, `textures`; else `record`, `records`. */
export type Nouns = readonly Pick<Resource, 'name' | 'one' | 'many'>[];

function nounsOf(resource: string, nouns: Nouns): [one: string, many: string] {
  return countedAs(nouns.find((each) => each.name === resource) ?? { one: 'record', many: 'records' });
}

function shiftLine(shift: Shift, [one, many]: [string, string]): Line {
  const pages = shift.from === shift.to ? `page ${shift.from} shifts` : `pages ${shift.from}–${shift.to} shift`;
  const size = Math.abs(shift.by);
  const count = size === 1 ? `one ${one}` : `${size} ${many}`;
  return { kind: 'note', depth: 0, text: `${pages} ${shift.by > 0 ? 'by' : 'back by'} ${count}` };
}

/**
 * The lines of each paginated list whose pages changed; the base URL, which every list's links
 * share, in one line.
 */
function pagesLines(paginated: readonly ListPagesDiff[], nouns: Nouns): Line[] {
  const lines: Line[] = [];
  let baseUrlSaid = false;
  for (const pages of paginated) {
    const named = nounsOf(pages.resource, nouns);
    if (pages.count) {
      lines.push({
        kind: 'changed',
        depth: 0,
        text: `${named[0]} count: ${pages.count.before} → ${pages.count.after}`,
      });
    }
    if (pages.baseUrl && !baseUrlSaid) {
      const { before, after } = pages.baseUrl;
      lines.push({ kind: 'changed', depth: 0, text: `every page link: base URL ${before} → ${after}` });
      baseUrlSaid = true;
    }
    if (pages.pageSize) {
      const { before, after } = pages.pageSize;
      lines.push({
        kind: 'changed',
        depth: 0,
        text: `page size ${before} → ${after}: every ${named[0]} page is cut anew`,
      });
    }
    lines.push(...pages.shifts.map((shift) => shiftLine(shift, named)));
  }
  return lines;
}

/** Routes with a page, such as `/virtualbooth-texture/?format=api&page=7`, grouped into page ranges. */
function routeLines(routes: readonly string[], kind: 'added' | 'removed'): Line[] {
  const verb = kind === 'added' ? 'appeared' : 'vanished';
  const paged = new Map<string, number[]>();
  const lines: Line[] = [];
  for (const route of routes) {
    const match = /^(.*[?&])page=(\d+)$/.exec(route);
    if (match) paged.set(match[1] as string, [...(paged.get(match[1] as string) ?? []), Number(match[2])]);
    else lines.push({ kind, depth: 0, text: `${route} ${verb}` });
  }
  for (const [prefix, numbers] of paged) {
    numbers.sort((a, b) => a - b);
    const ranges: string[] = [];
    let start = numbers[0] as number;
    for (const [index, page] of numbers.entries()) {
      const next = numbers[index + 1];
      if (next === page + 1) continue;
      ranges.push(start === page ? `${page}` : `${start}–${page}`);
      start = next as number;
    }
    lines.push({ kind, depth: 0, text: `${prefix}page=${ranges.join(', ')} ${verb}` });
  }
  return lines;
}

function answerLines(report: Report, nouns: Nouns): Line[] {
  const { appeared, vanished, reordered, paginated, bodies, headers } = report.answers;
  const lines: Line[] = [...routeLines(appeared, 'added'), ...routeLines(vanished, 'removed')];
  lines.push(...pagesLines(paginated, nouns));
  for (const { answer, moves } of reordered) {
    const shown = moves
      .slice(0, MOVES_SHOWN)
      .map((move) => `id ${move.id} from ${move.before} to ${move.after}`)
      .join(', ');
    const more = moves.length > MOVES_SHOWN ? `, and ${moves.length - MOVES_SHOWN} more` : '';
    lines.push({ kind: 'note', depth: 0, text: `${answer}: ${plural(moves.length, 'move')}: ${shown}${more}` });
  }
  for (const { answer, fields } of bodies) {
    lines.push({ kind: 'changed', depth: 0, text: answer }, ...fields.map((change) => fieldLine(change)));
  }
  for (const header of headers) {
    const where = `_headers ${header.pattern} ${header.name}`;
    if (header.before === undefined) lines.push({ kind: 'added', depth: 0, text: `${where}: ${header.after}` });
    else if (header.after === undefined) lines.push({ kind: 'removed', depth: 0, text: `${where}: ${header.before}` });
    else lines.push({ kind: 'changed', depth: 0, text: `${where}: ${header.before} → ${header.after}` });
  }
  return lines;
}

function recordLines(kind: 'added' | 'removed', records: readonly Added[]): Line[] {
  return records.map(({ id, record }) => ({ kind, depth: 0, text: recordName(id, record) }));
}

/**
 * The sections that have something to say, resources first; none when the sides are the same.
 * `nouns` name the records of each paginated list.
 */
export function describeReport(report: Report, nouns: Nouns): Section[] {
  const sections: Section[] = [];
  for (const { resource, added, removed, changed } of report.resources) {
    const lines = [...recordLines('added', added), ...recordLines('removed', removed)];
    for (const { id, name, fields } of changed) {
      const label = name === undefined ? `id ${id}` : `id ${id} ${JSON.stringify(name)}`;
      lines.push({ kind: 'changed', depth: 0, text: label }, ...fields.map((change) => fieldLine(change)));
    }
    if (lines.length === 0) continue;
    const counts = [
      [added.length, 'added'],
      [removed.length, 'removed'],
      [changed.length, 'changed'],
    ] as const;
    const summary = counts
      .filter(([count]) => count > 0)
      .map(([count, what]) => `${count} ${what}`)
      .join(', ');
    sections.push({ title: resource, summary, lines });
  }
  if (report.settings.length > 0) {
    sections.push({
      title: 'settings',
      summary: plural(report.settings.length, 'change'),
      lines: report.settings.map((change) => ({ ...fieldLine(change, true), depth: 0 })),
    });
  }
  const answers = answerLines(report, nouns);
  if (answers.length > 0) {
    const count = answers.filter((line) => line.depth === 0).length;
    sections.push({ title: 'answers', summary: plural(count, 'change'), lines: answers });
  }
  return sections;
}

/** The line said when nothing differs. */
export function noChange(report: Report): string {
  return `No change in the API between ${report.before} and ${report.after}.`;
}
