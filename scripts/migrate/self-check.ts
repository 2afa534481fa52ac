// Before anything is written, the build's own stages run on the converted records: validate(),
// then render() of the lists and pages the service was asked for, whose bytes must be the bytes
// the service sent. So "npm run build reproduces every answer" is proven by the import, not hoped.

import type { DataError } from '../builder/pipeline/errors.ts';
import { render, routesOf } from '../builder/pipeline/render.ts';
import { emptyCatalogue, recordsOf, validate } from '../builder/pipeline/validate.ts';
import type { Resource } from '../contract/resources/resource.ts';
import { fileFor } from '../contract/routes.ts';
import { bytesOf } from '../shared/file-body.ts';
import type { ConvertedData } from './convert.ts';
import { type FetchedList, type FetchedPage, ImportError, type ServiceAnswers } from './read-service.ts';

export interface SelfCheckResult {
  /** What validate() finds: the records that break a rule of the build. */
  problems: DataError[];
  /** Lists not compared because a record of theirs (or, for the fairs, of the events they show) breaks a rule. */
  unchecked: string[];
  /** Answers compared byte for byte, all equal. */
  compared: number;
}

interface Compared {
  resource: string;
  answer: FetchedList | FetchedPage;
  /** The file of the build's output that answers the same request. */
  file: string;
  /** Where the records are in the JSON: the top-level array, or a page's results. */
  depth: 1 | 2;
}

/** The service's answers, each with the build's file that answers the same request, in the declarations' order. */
function answersOf(service: ServiceAnswers, resources: readonly Resource[]): Compared[] {
  return resources.flatMap(({ name, path, paginated }): Compared[] => {
    if (paginated) {
      return (service.paged.get(name)?.pages ?? []).map((answer) => ({
        resource: name,
        answer,
        file: fileFor(path, answer.page === 1 ? {} : { page: String(answer.page) }),
        depth: 2,
      }));
    }
    const answer = service.lists.get(name) as FetchedList;
    return [{ resource: name, answer, file: fileFor(path, {}), depth: 1 }];
  });
}

/** Validates the converted records and compares the build's answers with the service's; throws ImportError on a difference. */
export function selfCheck(
  data: ConvertedData,
  service: ServiceAnswers,
  baseUrl: string,
  resources: readonly Resource[],
): SelfCheckResult {
  const { catalogue, errors } = validate(data.records, resources);
  const resourceOf = new Map(data.records.map((record) => [record.file, record.resource]));
  const broken = new Set(errors.map((error) => resourceOf.get(error.file)));
  // A fair shows its events' fields, so a broken event record leaves the fair list unproven too.
  for (const resource of resources)
    if (resource.embeds && broken.has(resource.embeds.resource)) broken.add(resource.name);
  const unchecked = resources.map((resource) => resource.name).filter((resource) => broken.has(resource));
  // Only valid records reach the catalogue: a list with a broken record is neither rendered nor compared.
  const { catalogue: checked, listOf } = emptyCatalogue(resources);
  for (const { name } of resources) if (!broken.has(name)) listOf[name]?.push(...recordsOf(catalogue, name));
  const comparable = answersOf(service, resources).filter((item) => !broken.has(item.resource));
  const wanted = new Set(comparable.map((item) => item.file));
  const routes = routesOf(checked, service.pageSize, resources).filter((route) => wanted.has(route.file));
  const files = render(checked, routes, '', { baseUrl, pageSize: service.pageSize }, resources);
  for (const item of comparable) {
    const body = files.get(item.file);
    if (body === undefined) {
      throw new ImportError(`${item.answer.url}: the build would make no such page; nothing was written`);
    }
    const bytes = bytesOf(body);
    if (!item.answer.body.equals(bytes)) {
      throw new ImportError(
        `${item.answer.url}: npm run build would not answer the same bytes: ${firstDifference(item, bytes.toString('utf8'))}; nothing was written`,
      );
    }
  }
  return { problems: errors, unchecked, compared: comparable.length };
}

function label(record: unknown): string {
  if (record === null || typeof record !== 'object') return JSON.stringify(record) ?? String(record);
  const fields = record as Record<string, unknown>;
  const name = typeof fields.name === 'string' ? ` ${JSON.stringify(fields.name)}` : '';
  return `id ${JSON.stringify(fields.id)}${name}`;
}

function shown(value: unknown): string {
  if (value === undefined) return 'no such field';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The first place two JSON values differ: its path (`.name`, `.events[2].short_code`) and both values. */
function valueDifference(a: unknown, b: unknown, at = ''): { at: string; a: unknown; b: unknown } | undefined {
  if (a === b) return undefined;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= a.length || i >= b.length) return { at: `${at}[${i}]`, a: a[i], b: b[i] };
      const found = valueDifference(a[i], b[i], `${at}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (
    a !== null &&
    b !== null &&
    typeof a === 'object' &&
    typeof b === 'object' &&
    !Array.isArray(a) &&
    !Array.isArray(b)
  ) {
    const [x, y] = [a as Record<string, unknown>, b as Record<string, unknown>];
    for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
      const found = valueDifference(x[key], y[key], `${at}.${key}`);
      if (found) return found;
    }
    const [keysA, keysB] = [Object.keys(x).join(', '), Object.keys(y).join(', ')];
    if (keysA !== keysB) return { at: `${at} (the order of its fields)`, a: keysA, b: keysB };
    return undefined;
  }
  return { at, a, b };
}

/** The index of the element of the records' array (at `depth`) that holds the character at `offset`. */
function recordIndexAt(text: string, offset: number, depth: number): number {
  let level = 0;
  let index = 0;
  let inString = false;
  for (let i = 0; i < offset && i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '[' || char === '{') level++;
    else if (char === ']' || char === '}') level--;
    else if (char === ',' && level === depth) index++;
  }
  return index;
}

/** What differs first, said with the record: its place, its id and name, and both sides. */
function firstDifference(item: Compared, buildText: string): string {
  const serviceText = item.answer.body.toString('utf8');
  const service = JSON.parse(serviceText) as unknown;
  const build = JSON.parse(buildText) as unknown;
  if (item.depth === 2) {
    const [a, b] = [service as Record<string, unknown>, build as Record<string, unknown>];
    const [fieldsA, fieldsB] = [Object.keys(a).join(', '), Object.keys(b).join(', ')];
    if (fieldsA !== fieldsB) return `the page holds the fields ${fieldsA}, the build writes ${fieldsB}`;
    for (const field of ['count', 'next', 'previous']) {
      if (a[field] !== b[field]) return `"${field}" is ${shown(a[field])}, the build writes ${shown(b[field])}`;
    }
  }
  const records = (value: unknown) =>
    item.depth === 2 ? (value as { results: unknown[] }).results : (value as unknown[]);
  const [ours, theirs] = [records(build), records(service)];
  for (let i = 0; i < Math.max(ours.length, theirs.length); i++) {
    if (i >= theirs.length || i >= ours.length) {
      return `the service shows ${theirs.length} records, the build ${ours.length}`;
    }
    const [a, b] = [theirs[i] as Record<string, unknown>, ours[i] as Record<string, unknown>];
    if (a?.id !== b?.id) {
      return (
        `record ${i} is ${label(a)} in the service, ${label(b)} in the build: the service orders this list ` +
        'otherwise than the build does (docs/contract.md, section 6)'
      );
    }
    const found = valueDifference(a, b);
    if (found)
      return `record ${i} (${label(a)}), ${found.at.replace(/^\./, '')}: the service shows ${shown(found.a)}, the build ${shown(found.b)}`;
  }
  // The same values, written with other bytes: a float, an escape, spacing.
  let offset = 0;
  while (offset < serviceText.length && serviceText[offset] === buildText[offset]) offset++;
  const index = recordIndexAt(buildText, offset, item.depth);
  // Compact JSON has no line breaks, so a stretch of it reads well as it is.
  const around = (text: string) => `...${text.slice(Math.max(0, offset - 25), offset + 25)}...`;
  return (
    `record ${index} (${label(ours[index])}) has the same values written otherwise: the service sends ` +
    `${around(serviceText)} where the build writes ${around(buildText)} (character ${offset})`
  );
}
