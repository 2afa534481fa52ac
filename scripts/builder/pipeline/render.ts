// Stage 3: turn the validated catalogue into the text of every file of the output, named by
// the route table. Pure: no I/O, so the same catalogue always gives the same files.

import {
  INVALID_PAGE_BODY,
  methodNotAllowedBody,
  NOT_FOUND_BODY,
  optionsBody,
  UNSUPPORTED_ORDERING_BODY,
} from '../../contract/bodies.ts';
import { encode, encodePlain, Float, type Json, type PlainJson } from '../../contract/json.ts';
import {
  type Comparable,
  compareValues,
  descendingFrom,
  fieldValue,
  formatOrdering,
  type OrderTerm,
  parseOrdering,
  sortRecords,
} from '../../contract/ordering.ts';
import { pageCount, pageLinks } from '../../contract/pagination.ts';
import type { Embed, OrderKey, Resource } from '../../contract/resources/resource.ts';
import {
  INVALID_PAGE_FILE,
  methodNotAllowedFile,
  NOT_FOUND_FILE,
  optionsFile,
  planRoutes,
  REJECTED_METHODS,
  type Route,
  UNSUPPORTED_ORDERING_FILE,
} from '../../contract/routes.ts';
import { type FileBody, Pieces } from '../../shared/file-body.ts';
import { type Catalogue, declarationOf, idOf, recordsOf } from './validate.ts';

export interface RenderSettings {
  /** Public origin (and optional path prefix) of the API, without a trailing slash. */
  baseUrl: string;
  pageSize: number;
}

/** A record as the list shows it: its `listed` fields, or all of them; each float field as a Float. */
function listedJson(resource: Resource, record: object): Json {
  const source = record as Record<string, Json>;
  let json: Record<string, Json> = source;
  if (resource.listed) {
    json = {};
    for (const field of resource.listed) json[field] = source[field] as Json;
  }
  for (const path of resource.floats ?? []) json = withFloat(json, path.split('.'));
  return json;
}

/** `json` with the number at `path` written as a float, copied along the path only. */
function withFloat(json: Record<string, Json>, path: readonly string[]): Record<string, Json> {
  const [key, ...rest] = path as [string, ...string[]];
  const value = json[key];
  if (value === null || value === undefined) return json;
  if (rest.length === 0) return typeof value === 'number' ? { ...json, [key]: new Float(value) } : json;
  return { ...json, [key]: withFloat(value as Record<string, Json>, rest) };
}

/**
 * What a record shows of one embedded record (a fair of one event): each shown field, given in the
 * item or else the embedded record's. validate() has checked that an item whose id no record has
 * gives every field.
 */
function embeddedJson(embed: Embed, item: unknown, embedded: Record<string, unknown> | undefined): Json {
  const given = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : undefined;
  const json: Record<string, Json> = {};
  for (const [field, from] of Object.entries(embed.shows)) {
    // A field may be given as null, so it is given when it is not undefined (not ??).
    const value = given?.[field];
    json[field] = (value !== undefined ? value : (embedded as Record<string, unknown>)[from]) as Json;
  }
  return json;
}

const idOfItem = (item: unknown) => (typeof item === 'object' && item !== null ? idOf(item) : item);

/** A record that embeds another resource's records (a fair its events), written out. */
function embeddingJson(resource: Resource, record: object, byId: ReadonlyMap<unknown, object>): Json {
  const embed = resource.embeds as Embed;
  const items = (record as Record<string, unknown>)[embed.field] as unknown[];
  const json = listedJson(resource, record) as Record<string, Json>;
  // The same keys in the same order, the embed field's value replaced.
  return {
    ...json,
    [embed.field]: items.map((item) => embeddedJson(embed, item, byId.get(idOfItem(item)) as Record<string, unknown>)),
  };
}

/** The page (from 1) a route of a paginated list shows, of a list of `pages` pages. */
export function pageShown(route: Route, pages: number): number {
  const requested = route.query.page;
  return requested === undefined ? 1 : requested === 'last' ? pages : Number(requested);
}

/** `items(page)`: the text of that page's records, an array, encoded once for every format. */
function listPage(route: Route, count: number, items: (page: number) => string, settings: RenderSettings): string {
  const pages = pageCount(count, settings.pageSize);
  const page = pageShown(route, pages);
  const links = pageLinks(
    settings.baseUrl,
    route.path,
    route.query.format ? { format: route.query.format } : {},
    page,
    pages,
  );
  // The envelope is built around the encoded items so they are not encoded again.
  const head = encodePlain({ count, next: links.next, previous: links.previous });
  return `${head.slice(0, -1)},"results":${items(page)}}`;
}

/** How a default order compares a record's field: text without case where it says so. */
function orderKeyOf(resource: Resource): (record: object, field: string) => Comparable {
  const ignoreCase = new Set(
    resource.order === 'source' ? [] : resource.order.filter((key) => key.ignoreCase).map((key) => key.field),
  );
  if (ignoreCase.size === 0) return fieldValue;
  return (record, field) => {
    const value = fieldValue(record, field);
    return ignoreCase.has(field) && typeof value === 'string' ? value.toLowerCase() : value;
  };
}

type WithId = { id: Comparable };

/** A resource's records in its default order (then by id), or in source order. */
export function sortedOf(resource: Resource, records: readonly object[]): readonly object[] {
  if (resource.order === 'source') return records;
  const terms = resource.order.map(({ field, descending }) => ({ field, descending }));
  return sortRecords(records as readonly WithId[], terms, orderKeyOf(resource));
}

/**
 * What sortedOf() gives for `sorted` (its output for a list) less `removed`, plus `added`: each
 * added record put in its place by binary search, in time linear in the list for a change of a
 * few records. For a default order of one key (then the id, unique, so no two records tie); any
 * other order is sorted again.
 */
export function resortedOf(
  resource: Resource,
  sorted: readonly object[],
  removed: ReadonlySet<object>,
  added: readonly object[],
): readonly object[] {
  // Unchanged: the same list, not a copy of 100,000 places.
  if (removed.size === 0 && added.length === 0) return sorted;
  const { order } = resource;
  if (order === 'source' || order.length !== 1) {
    return sortedOf(resource, [...sorted.filter((record) => !removed.has(record)), ...added]);
  }
  const [{ field, descending }] = order as [OrderKey];
  const key = orderKeyOf(resource);
  const sign = descending ? -1 : 1;
  const keyOf = (record: object) => key(record, field);
  const follows = (a: object, aKey: Comparable, b: object) =>
    (sign * compareValues(aKey, keyOf(b)) || compareValues((a as WithId).id, (b as WithId).id)) > 0;
  const result: object[] = [];
  let from = 0;
  const keepUpTo = (end: number) => {
    for (; from < end; from++) {
      const record = sorted[from] as object;
      if (!removed.has(record)) result.push(record);
    }
  };
  for (const record of sortedOf(resource, added)) {
    const recordKey = keyOf(record);
    // A removed record still holds its place in `sorted`, which keeps it in order for the search.
    let [low, high] = [from, sorted.length];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (follows(record, recordKey, sorted[middle] as object)) low = middle + 1;
      else high = middle;
    }
    keepUpTo(low);
    result.push(record);
  }
  keepUpTo(sorted.length);
  return result;
}

/**
 * The text of each record, kept by a caller that renders the same records again (the live
 * preview): a list is then joined from its records' texts, and only a new or changed record is
 * encoded. The bytes are those of one encode() of the list. A record that embeds others (a fair)
 * is kept with the embedded records it was made from, and holds while they are the same. A
 * record of a list that is not paginated is kept as its UTF-8 bytes instead (in `bytes`), and its
 * lists are made of them as pieces (file-body.ts): no list is joined as text and encoded again,
 * nor copied into one buffer on the way to the disk.
 */
export interface RecordTexts {
  plain: Map<string, WeakMap<object, string>>;
  embedding: Map<string, WeakMap<object, { embedded: Array<object | undefined>; text: string }>>;
  bytes: Map<string, WeakMap<object, Buffer>>;
}

export function recordTexts(): RecordTexts {
  return { plain: new Map(), embedding: new Map(), bytes: new Map() };
}

function textsOf<V>(
  texts: Map<string, WeakMap<object, V>> | undefined,
  resource: string,
): WeakMap<object, V> | undefined {
  if (texts === undefined) return undefined;
  let kept = texts.get(resource);
  if (kept === undefined) {
    kept = new WeakMap();
    texts.set(resource, kept);
  }
  return kept;
}

/** What a caller that renders again may hand over, made before: see sortedOf and RecordTexts. */
export interface Prepared {
  /** Records in their default order (sortedOf), by resource name. */
  sorted?: ReadonlyMap<string, readonly object[]>;
  texts?: RecordTexts;
}

/** `encode(record)`, from `texts` when it holds the record's text, else encoded and kept there. */
function textOf<T extends object>(
  record: T,
  encode: (record: T) => string,
  texts: WeakMap<T, string> | undefined,
): string {
  let text = texts?.get(record);
  if (text === undefined) {
    text = encode(record);
    texts?.set(record, text);
  }
  return text;
}

/**
 * The JSON array of encoded `items`, as one flat string: the brackets go on the first and last
 * items, as around join()'s result they would make a rope, which comparing it with the previous
 * answer or writing it copies whole (43 MB for the benchmark's company list).
 */
function joinedList(items: string[]): string {
  if (items.length === 0) return '[]';
  items[0] = `[${items[0]}`;
  items[items.length - 1] = `${items[items.length - 1]}]`;
  return items.join(',');
}

/**
 * The JSON array of `items`, each one record's encoding, written into one buffer. No text of the
 * whole list is made: for the benchmark catalogue's 43 MB company list, one JSON.stringify and its
 * encoding took three to five times as long as its records written one by one into the buffer.
 * The buffer is sized from the texts' lengths with room for some characters of two or three bytes,
 * not from each text's UTF-8 size, which would read every text twice; what is not written of it
 * is never touched, so it costs no memory. It grows in the rare list that needs more.
 */
export function joinedBytes(items: readonly string[]): Buffer {
  let length = items.length + 1;
  for (const item of items) length += item.length;
  let joined = Buffer.allocUnsafe(length + (length >> 3) + 16);
  joined[0] = 0x5b; // [
  let at = 1;
  for (let index = 0; index < items.length; index++) {
    const item = items[index] as string;
    // A UTF-16 unit is at most three bytes of UTF-8; only near the end is the exact size counted.
    if (joined.length - at < item.length * 3 + 2) {
      const needed = at + Buffer.byteLength(item) + 2;
      if (needed > joined.length) {
        const grown = Buffer.allocUnsafe(Math.max(needed, joined.length * 2));
        joined.copy(grown, 0, 0, at);
        joined = grown;
      }
    }
    if (index > 0) joined[at++] = 0x2c; // ,
    at += joined.write(item, at);
  }
  joined[at++] = 0x5d; // ]
  return joined.subarray(0, at);
}

const [OPENING, COMMA, CLOSING] = ['[', ',', ']'].map((text) => Buffer.from(text)) as [Buffer, Buffer, Buffer];

/** The JSON array of `items`, each one record's UTF-8 bytes, as the pieces it is written from: not copied together. */
function listPieces(items: readonly Uint8Array[]): Pieces {
  const pieces: Uint8Array[] = [OPENING];
  for (const [index, item] of items.entries()) {
    if (index > 0) pieces.push(COMMA);
    pieces.push(item);
  }
  pieces.push(CLOSING);
  return new Pieces(pieces);
}

/** What each resource's answers are made of, computed once and only when an answer needs it. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

/** Whether a record is written as zod outputs it, with no field left out or written otherwise. */
const isPlain = (resource: Resource) => !resource.listed && !resource.floats?.length && !resource.embeds;

/** The text of one record as its list writes it. */
export function recordEncoder(
  resource: Resource,
  catalogue: Catalogue,
  prepared: Prepared = {},
): (record: object) => string {
  if (isPlain(resource)) return (record) => encodePlain(record as PlainJson);
  if (!resource.embeds && !resource.floats?.length)
    return (record) => encodePlain(listedJson(resource, record) as PlainJson);
  if (!resource.embeds) return (record) => encode(listedJson(resource, record));
  const embed = resource.embeds;
  const byId = new Map(recordsOf(catalogue, embed.resource).map((record) => [idOf(record), record as object]));
  const texts = textsOf(prepared.texts?.embedding, resource.name);
  return (record) => {
    const items = (record as Record<string, unknown>)[embed.field] as unknown[];
    const embedded = items.map((item) => byId.get(idOfItem(item)));
    const kept = texts?.get(record);
    if (kept && kept.embedded.length === embedded.length && kept.embedded.every((one, i) => one === embedded[i]))
      return kept.text;
    const text = encode(embeddingJson(resource, record, byId));
    texts?.set(record, { embedded, text });
    return text;
  };
}

/**
 * The answers of one resource, each rendered when first asked for: the list in its default order
 * or in an ordering, or a page of it.
 */
function answersOf(
  resource: Resource,
  catalogue: Catalogue,
  settings: RenderSettings,
  prepared: Prepared,
): (route: Route) => FileBody {
  const records = recordsOf(catalogue, resource.name) as object[];
  const sorted = once(() => prepared.sorted?.get(resource.name) ?? sortedOf(resource, records));
  const encodeRecord = once(() => recordEncoder(resource, catalogue, prepared));
  const plainTexts = resource.embeds ? undefined : textsOf(prepared.texts?.plain, resource.name);
  const keptBytes = resource.embeds || resource.paginated ? undefined : textsOf(prepared.texts?.bytes, resource.name);
  /** A record's bytes, kept for the next render. */
  const bytesOf = (record: object, encodeOne: (record: object) => string): Buffer => {
    let bytes = keptBytes?.get(record);
    if (bytes === undefined) {
      bytes = Buffer.from(encodeOne(record));
      keptBytes?.set(record, bytes);
    }
    return bytes;
  };
  /** A whole list: the pieces of its records' kept bytes, or their texts written into one buffer. */
  const listBody = (ordered: readonly object[]): Buffer | Pieces => {
    const encodeOne = encodeRecord();
    if (!keptBytes) return joinedBytes(ordered.map((record) => textOf(record, encodeOne, plainTexts)));
    return listPieces(ordered.map((record) => bytesOf(record, encodeOne)));
  };
  const defaultList = once(() => listBody(sorted()));
  if (resource.paginated) {
    const pages = new Map<number, string>();
    const pageItems = (page: number): string => {
      let items = pages.get(page);
      if (items === undefined) {
        const { pageSize } = settings;
        const onPage = sorted().slice((page - 1) * pageSize, page * pageSize);
        const encodeOne = encodeRecord();
        items = isPlain(resource)
          ? encodePlain(onPage as PlainJson[])
          : joinedList(onPage.map((record) => textOf(record, encodeOne, plainTexts)));
        pages.set(page, items);
      }
      return items;
    };
    return (route) => listPage(route, records.length, pageItems, settings);
  }
  if (resource.orderingFields.length === 0) return defaultList;
  const encoded = once(() => {
    const encodeOne = encodeRecord();
    return new Map(records.map((record) => [record, textOf(record, encodeOne, plainTexts)]));
  });
  // A descending order is derived from its ascending one, which is sorted once.
  const orders = new Map<string, readonly object[]>();
  const sortedBy = (terms: readonly OrderTerm[]): readonly object[] => {
    const key = formatOrdering(terms);
    const known = orders.get(key);
    if (known) return known;
    const [only] = terms;
    const ordered =
      terms.length === 1 && only?.descending
        ? descendingFrom(sortedBy([{ field: only.field, descending: false }]) as WithId[], (record) =>
            fieldValue(record, only.field),
          )
        : sortRecords(records as WithId[], terms);
    orders.set(key, ordered);
    return ordered;
  };
  return (route) => {
    const terms = parseOrdering(route.query.ordering ?? '', resource.orderingFields);
    if (keptBytes) return listBody(sortedBy(terms));
    const texts = encoded();
    return joinedBytes(sortedBy(terms).map((record) => texts.get(record) as string));
  };
}

/**
 * The list files of `routes`, each as [output path, text] once rendered, in the order of
 * `routes`: every answer whose route is given, and no other, so that the live preview renders
 * only the answers a change can alter with the very code of the full build, and can write each
 * before the next is rendered. Each list is sorted once, and each record and each page
 * encoded once, however many files hold it.
 */
export function* renderLists(
  catalogue: Catalogue,
  settings: RenderSettings,
  routes: readonly Route[],
  resources: readonly Resource[],
  prepared: Prepared = {},
): Generator<[string, FileBody]> {
  const answers = new Map<string, (route: Route) => FileBody>();
  for (const route of routes) {
    let answer = answers.get(route.resource);
    if (answer === undefined) {
      answer = answersOf(declarationOf(route.resource, resources), catalogue, settings, prepared);
      answers.set(route.resource, answer);
    }
    yield [route.file, answer(route)];
  }
}

/** The files every output has besides the lists: OPTIONS, error and 405 bodies, `_headers`. */
function renderShared(headersFile: string, resources: readonly Resource[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const resource of resources) files.set(optionsFile(resource.name), optionsBody(resource.title));
  files.set(NOT_FOUND_FILE, NOT_FOUND_BODY);
  files.set(INVALID_PAGE_FILE, INVALID_PAGE_BODY);
  files.set(UNSUPPORTED_ORDERING_FILE, UNSUPPORTED_ORDERING_BODY);
  for (const method of REJECTED_METHODS) files.set(methodNotAllowedFile(method), methodNotAllowedBody(method));
  // The project's `_headers`, copied as it is.
  files.set('_headers', headersFile);
  return files;
}

/** Every route of the catalogue: each paginated resource's record count decides how many pages it has. */
export function routesOf(catalogue: Catalogue, pageSize: number, resources: readonly Resource[]): Route[] {
  const pages = Object.fromEntries(
    resources
      .filter((resource) => resource.paginated)
      .map((resource) => [resource.name, pageCount(recordsOf(catalogue, resource.name).length, pageSize)]),
  );
  return planRoutes(pages, resources);
}

/** Stage 3: every file of the output for `routes`, path → text; `prepared` as renderLists takes it. */
export function render(
  catalogue: Catalogue,
  routes: readonly Route[],
  headersFile: string,
  settings: RenderSettings,
  resources: readonly Resource[],
  prepared: Prepared = {},
): Map<string, FileBody> {
  return new Map([
    ...renderLists(catalogue, settings, routes, resources, prepared),
    ...renderShared(headersFile, resources),
  ]);
}
