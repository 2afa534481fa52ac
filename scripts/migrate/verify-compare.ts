// How the service's answer to one request differs from the build's, in lines a person can act
// on: the status, the contract's headers, the redirect's Location, and for a list or a texture page
// the records that differ (matched by id, with the review layer of `npm run diff`), not two blobs.
// Each line reads as the service answers → as this build answers.

import { REQUIRED_HEADERS } from '../contract/headers.ts';
import type { PlainJson } from '../contract/json.ts';
import { linkBase, type Routed } from '../contract/routes.ts';
import { listIds } from '../review/answers.ts';
import { excerpts, SHOWN, show } from '../review/describe.ts';
import { diffRecords, type Page } from '../review/records.ts';
import { diffValues, type FieldChange } from '../review/values.ts';
import type { ServiceAnswer } from './client.ts';
import type { VerifyRequest } from './verify-requests.ts';

/** An answer, with the base URL it was asked under (the redirect's Location is read relative to it). */
export interface SideAnswer {
  base: string;
  answer: ServiceAnswer;
}

export interface Comparison {
  /** One line per difference; none when the answers are the same but for `linkBase`. */
  differences: string[];
  /** The answers differ only where the contract departs from Django on purpose: the note that says how. */
  departure?: string;
  /**
   * The base of the page links on each side, when the links differ in it alone: said once for
   * every page, since it is one setting of the build (its base URL).
   */
  linkBase?: [service: string, build: string];
}

/** Lines shown per request: a changed field on every record says enough in its first lines. */
const LINES_SHOWN = 20;
const IDS_SHOWN = 5;

function headerValue(answer: ServiceAnswer, name: string): string {
  const value = answer.headers[name.toLowerCase()];
  if (value === undefined) return 'none';
  return Array.isArray(value)
    ? `${value.map((one) => JSON.stringify(one)).join(' and ')} (sent ${value.length} times)`
    : JSON.stringify(value);
}

/**
 * The redirect's Location relative to the side's base URL (`company/`), since the service may have
 * a path prefix the build has not; absolute when it leaves the base.
 */
function location({ base, answer }: SideAnswer): string {
  const raw = answer.headers.location;
  if (raw === undefined) return 'none';
  const href = new URL(Array.isArray(raw) ? raw.join(', ') : raw, answer.url).href;
  return JSON.stringify(href.startsWith(base) ? href.slice(base.length) : href);
}

function parseJson(body: Buffer): PlainJson | undefined {
  try {
    return JSON.parse(body.toString('utf8')) as PlainJson;
  } catch {
    return undefined;
  }
}

type JsonObject = { [key: string]: PlainJson };

function isPage(value: PlainJson | undefined): value is JsonObject & Page {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Array.isArray(value.results);
}

/** A page's envelope (`count`, `next`, `previous`), whose records are compared apart. */
function withoutResults(page: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(page).filter(([key]) => key !== 'results'));
}

function fieldText(change: FieldChange): string {
  const long =
    typeof change.before === 'string' &&
    typeof change.after === 'string' &&
    Math.max(change.before.length, change.after.length) > SHOWN;
  const [before, after] = long
    ? excerpts(change.before as string, change.after as string)
    : [show(change.before, 'absent'), show(change.after, 'absent')];
  return `${change.path} ${before} → ${after}`;
}

function recordLabel(resource: string, id: string, record: PlainJson | undefined): string {
  const name = typeof record === 'object' && record !== null && !Array.isArray(record) ? record.name : undefined;
  return `${resource} ${id}${typeof name === 'string' ? ` ${JSON.stringify(name)}` : ''}`;
}

/** The first place where two orders of the same records part, with a few ids of each from there. */
function orderLine(service: string[], build: string[]): string | undefined {
  const inBoth = (ids: string[], other: string[]) => {
    const kept = new Set(other);
    return ids.filter((id) => kept.has(id));
  };
  const before = inBoth(service, build);
  const after = inBoth(build, service);
  const from = before.findIndex((id, index) => id !== after[index]);
  if (from < 0) return undefined;
  const few = (ids: string[]) =>
    `${ids.slice(from, from + IDS_SHOWN).join(', ')}${ids.length > from + IDS_SHOWN ? ' …' : ''}`;
  return `order differs from position ${from + 1}: ids ${few(before)} → ${few(after)}`;
}

function recordLines(resource: string, service: PlainJson[], build: PlainJson[]): string[] {
  const { added, removed, changed } = diffRecords(resource, service, build);
  const lines = [
    ...removed.map(({ id, record }) => `${recordLabel(resource, id, record)}: only on the service`),
    ...added.map(({ id, record }) => `${recordLabel(resource, id, record)}: only in this build`),
  ];
  for (const { id, name, fields } of changed) {
    const label = `${resource} ${id}${name === undefined ? '' : ` ${JSON.stringify(name)}`}`;
    lines.push(...fields.map((field) => `${label}: ${fieldText(field)}`));
  }
  const order = orderLine(listIds(service), listIds(build));
  if (order) lines.push(order);
  return lines;
}

/** The envelopes' differences, but for links that differ in their base alone, which go to `linkBase`. */
function envelopeLines(
  service: JsonObject,
  build: JsonObject,
  found: Partial<Comparison>,
  resources: readonly Routed[],
): string[] {
  const fields: FieldChange[] = [];
  diffValues('', withoutResults(service), withoutResults(build), fields);
  return fields
    .filter(({ before, after }) => {
      const [was, is] = [linkBase(before, resources), linkBase(after, resources)];
      const baseAlone =
        was !== undefined && is !== undefined && `${before}`.slice(was.length) === `${after}`.slice(is.length);
      if (baseAlone) found.linkBase = [was, is];
      return !baseAlone;
    })
    .map(fieldText);
}

function resourceOf(url: string, resources: readonly Routed[]): Routed | undefined {
  const path = `/${url.split('?')[0]}`;
  return resources.find((resource) => resource.path === path);
}

function bodyLines(
  url: string,
  service: Buffer,
  build: Buffer,
  found: Partial<Comparison>,
  resources: readonly Routed[],
): string[] {
  if (service.equals(build)) return [];
  const before = parseJson(service);
  const after = parseJson(build);
  const listed = resourceOf(url, resources);
  const resource = listed?.name;
  let lines: string[] = [];
  if (before !== undefined && after !== undefined) {
    if (resource !== undefined && Array.isArray(before) && Array.isArray(after)) {
      lines = recordLines(resource, before, after);
    } else if (listed?.paginated && resource !== undefined && isPage(before) && isPage(after)) {
      lines = [
        ...envelopeLines(before, after, found, resources),
        ...recordLines(resource, before.results, after.results),
      ];
    } else {
      const fields: FieldChange[] = [];
      diffValues('', before, after, fields);
      lines = fields.map((field) => (field.path === '' ? `body ${fieldText(field).trimStart()}` : fieldText(field)));
    }
  }
  if (lines.length > 0 || found.linkBase) return lines;
  // Not JSON, or the same values written otherwise (key order, `2` for `2.0`, escapes, spacing).
  const [was, is] = excerpts(service.toString('utf8'), build.toString('utf8'));
  return [
    `${before !== undefined && after !== undefined ? 'the same values written differently' : 'body'} ${was} → ${is}`,
  ];
}

/** Whether the service answered with an HTML page (Django's 404 page and redirect, DRF's browsable API) rather than JSON. */
function isHtmlPage(answer: ServiceAnswer): boolean {
  const type = answer.headers['content-type'];
  return typeof type === 'string' && type.startsWith('text/html');
}

export function compareAnswers(
  request: VerifyRequest,
  service: SideAnswer,
  build: SideAnswer,
  resources: readonly Routed[],
): Comparison {
  const { answer: was } = service;
  const { answer: is } = build;
  if (was.status !== is.status) {
    // The headers and the body follow from the status; the service's body says why it answered so.
    const body = was.body.toString('utf8');
    const brief = JSON.stringify(body.length > SHOWN ? `${body.slice(0, SHOWN - 1)}…` : body);
    return { differences: [`status ${was.status} → ${is.status} (the service's body: ${brief})`] };
  }
  const found: Partial<Comparison> = {};
  const [whereWas, whereIs] = [location(service), location(build)];
  const differences = whereWas === whereIs ? [] : [`Location ${whereWas} → ${whereIs}`];
  const decided = request.departure ?? {};
  // The service's own HTML page where the contract answers JSON: its type and body are decided.
  const page = decided.page !== undefined && isHtmlPage(was) && !isHtmlPage(is);
  // Where the contract decides the headers, any value the service sends is decided when the
  // build's is the contract's.
  let headersDecided = false;
  for (const [name, value] of Object.entries(REQUIRED_HEADERS)) {
    const [before, after] = [headerValue(was, name), headerValue(is, name)];
    if (before === after) continue;
    const contracts = after === JSON.stringify(value);
    if (contracts && page && name === 'Content-Type') continue;
    if (contracts && decided.headers !== undefined) headersDecided = true;
    else differences.push(`${name} ${before} → ${after}`);
  }
  const body = bodyLines(request.url, was.body, is.body, found, resources);
  // A decided body is the contract's bytes: the same values written otherwise are no difference.
  const sameValues = decided.ownBytes === true && body.length === 1 && body[0]?.startsWith('the same values') === true;
  if (!page && !sameValues) differences.push(...body);
  const departed = (page || headersDecided || sameValues) && differences.length === 0;
  const shown = differences.slice(0, LINES_SHOWN);
  if (differences.length > LINES_SHOWN) shown.push(`… and ${differences.length - LINES_SHOWN} more differences`);
  if (departed) return { differences: [], departure: page ? decided.page : (decided.headers ?? decided.page) };
  return found.linkBase && !page ? { differences: shown, linkBase: found.linkBase } : { differences: shown };
}
