// Stage 3: turn the validated catalogue into the text of every file of the output, named by
// the route table. Pure: no I/O, so the same catalogue always gives the same files.

import {
  INVALID_PAGE_BODY,
  methodNotAllowedBody,
  NOT_FOUND_BODY,
  optionsBody,
  UNSUPPORTED_ORDERING_BODY,
} from '../contract/bodies.ts';
import { encode, encodePlain, Float, type Json, type PlainJson } from '../contract/json.ts';
import {
  compareValues,
  descendingFrom,
  fieldValue,
  formatOrdering,
  type OrderTerm,
  parseOrdering,
  sortRecords,
} from '../contract/ordering.ts';
import { pageCount, pageLinks } from '../contract/pagination.ts';
import {
  EVENT_FIELDS,
  INVALID_PAGE_FILE,
  methodNotAllowedFile,
  NOT_FOUND_FILE,
  optionsFile,
  planRoutes,
  REJECTED_METHODS,
  RESOURCES,
  type Route,
  UNSUPPORTED_ORDERING_FILE,
} from '../contract/routes.ts';
import type { Company, Event, Fair, FairEvent, Texture } from './schemas.ts';
import type { Catalogue } from './validate.ts';

export interface RenderSettings {
  /** Public origin (and optional path prefix) of the API, without a trailing slash. */
  baseUrl: string;
  pageSize: number;
}

// Field order is the order of the description's tables: DRF writes serializer fields in order.
// Companies and textures are written as zod outputs them: their schemas list the fields in this
// order (schemas.ts), and zod's output follows the schema, whatever the source's order.
const eventJson = (event: Event): PlainJson => ({
  id: event.id,
  name: event.name,
  slug: event.slug,
  start_date: event.start_date,
  end_date: event.end_date,
  logo: event.logo,
  logo_bg_color: event.logo_bg_color,
});

const fairEventJson = (event: Event): Json => ({
  id: event.id,
  slug: event.slug,
  name: event.name,
  short_code: event.short_code,
  start_date: event.start_date,
  event_logo: event.logo,
});

/**
 * A fair event given as an object: its fields, and the event record's where it gives none. validate()
 * has checked that an object whose id no event record has gives every field.
 */
function givenFairEventJson(given: Exclude<FairEvent, number>, event: Event | undefined): Json {
  // short_code may be given as null, so a field is given when it is not undefined (not ??).
  const orRecord = <K extends keyof Event>(value: Event[K] | undefined, field: K): Event[K] =>
    value !== undefined ? value : (event as Event)[field];
  return {
    id: given.id,
    slug: orRecord(given.slug, 'slug'),
    name: orRecord(given.name, 'name'),
    short_code: orRecord(given.short_code, 'short_code'),
    start_date: orRecord(given.start_date, 'start_date'),
    event_logo: orRecord(given.event_logo, 'logo'),
  };
}

function fairJson(fair: Fair, events: ReadonlyMap<number, Event>): Json {
  return {
    id: fair.id,
    slug: fair.slug,
    name: fair.name,
    link: fair.link,
    logo: fair.logo,
    has_catalog: fair.has_catalog,
    events: fair.events.map((item) =>
      typeof item === 'number'
        ? fairEventJson(events.get(item) as Event)
        : givenFairEventJson(item, events.get(item.id)),
    ),
    url: fair.url,
    tiles: {
      tile_pattern: fair.tiles.tile_pattern,
      tile_extension: fair.tiles.tile_extension,
      tile_size: fair.tiles.tile_size,
    },
    size: { width: fair.size.width, height: fair.size.height },
    zoom: {
      min: fair.zoom.min,
      max: fair.zoom.max,
      default: fair.zoom.default,
      booth_zoom_level: fair.zoom.booth_zoom_level,
      reverse: fair.zoom.reverse,
      booth_section_start: fair.zoom.booth_section_start,
      booth_detail_start: fair.zoom.booth_detail_start,
      translation_factor_7: fair.zoom.translation_factor_7 === null ? null : new Float(fair.zoom.translation_factor_7),
      xs_width_max: fair.zoom.xs_width_max,
    },
    show: fair.show,
  };
}

/** The page (from 1) a texture route shows, of a list of `pages` pages. */
export function pageShown(route: Route, pages: number): number {
  const requested = route.query.page;
  return requested === undefined ? 1 : requested === 'last' ? pages : Number(requested);
}

/** `items(page)`: the text of that page's textures, an array, encoded once for every format. */
function texturePage(route: Route, count: number, items: (page: number) => string, settings: RenderSettings): string {
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

/** The texture list in its one order, by name, as every page shows it. */
export function sortTextures(textures: readonly Texture[]): Texture[] {
  return sortRecords(textures, [{ field: 'name', descending: false }]);
}

/** The company list's order: by name whatever its case, then by id. */
const byCompanyName = (company: Company, field: string) => (field === 'name' ? company.name.toLowerCase() : company.id);

export function sortCompanies(companies: readonly Company[]): Company[] {
  return sortRecords(companies, [{ field: 'name', descending: false }], byCompanyName);
}

/**
 * What sortCompanies() gives for `sorted` (its output for a list) less `removed`, plus `added`:
 * each added company put in its place by binary search, in time linear in the list for a change of
 * a few records. compareValues is the order sortRecords keeps, and ids are unique, so no two
 * companies tie.
 */
export function resortCompanies(
  sorted: readonly Company[],
  removed: ReadonlySet<Company>,
  added: readonly Company[],
): readonly Company[] {
  // Unchanged: the same list, not a copy of 100,000 places.
  if (removed.size === 0 && added.length === 0) return sorted;
  const keyOf = (company: Company) => company.name.toLowerCase();
  const follows = (a: Company, aKey: string, b: Company) =>
    (compareValues(aKey, keyOf(b)) || compareValues(a.id, b.id)) > 0;
  const result: Company[] = [];
  let from = 0;
  const keepUpTo = (end: number) => {
    for (; from < end; from++) {
      const company = sorted[from] as Company;
      if (!removed.has(company)) result.push(company);
    }
  };
  for (const company of sortCompanies(added)) {
    const key = keyOf(company);
    // A removed company still holds its place in `sorted`, which keeps it in order for the search.
    let [low, high] = [from, sorted.length];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (follows(company, key, sorted[middle] as Company)) low = middle + 1;
      else high = middle;
    }
    keepUpTo(low);
    result.push(company);
  }
  keepUpTo(sorted.length);
  return result;
}

/**
 * The text of each company, event and fair, kept by a caller that renders the same records again
 * (the live preview): a list is then joined from its records' texts, and only a new or changed
 * record is encoded. The bytes are those of one encode() of the list. A fair shows its events,
 * so its text is kept with the event records it was made from, and holds while they are the same.
 */
export interface RecordTexts {
  companies: WeakMap<Company, string>;
  events: WeakMap<Event, string>;
  fairs: WeakMap<Fair, { events: Array<Event | undefined>; text: string }>;
}

export function recordTexts(): RecordTexts {
  return { companies: new WeakMap(), events: new WeakMap(), fairs: new WeakMap() };
}

/** What a caller that renders again may hand over, made before: see sortCompanies, sortTextures and RecordTexts. */
export interface Prepared {
  sortedCompanies?: readonly Company[];
  sortedTextures?: readonly Texture[];
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

/** What each resource's answers are made of, computed once and only when an answer needs it. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

/**
 * The list files of `routes`, each as [output path, text] once rendered, in the order of
 * `routes`: every answer whose route is given, and no other, so that the live preview renders
 * only the answers a change can alter with the very code of the full build, and can write each
 * before the next is rendered. Each list is sorted once, and each event and each page of
 * textures encoded once, however many files hold it.
 */
export function* renderLists(
  catalogue: Catalogue,
  settings: RenderSettings,
  routes: readonly Route[],
  prepared: Prepared = {},
): Generator<[string, string]> {
  const companies = once(() => {
    const sorted = prepared.sortedCompanies ?? sortCompanies(catalogue.companies);
    // One call of the native encoder, unless the texts are kept: then only the new ones are encoded.
    const texts = prepared.texts?.companies;
    if (!texts) return encodePlain(sorted as Company[]);
    return joinedList(sorted.map((company) => textOf(company, encodePlain, texts)));
  });
  const fairs = once(() => {
    const eventById = new Map(catalogue.events.map((event) => [event.id, event]));
    const texts = prepared.texts?.fairs;
    if (!texts) return encode(catalogue.fairs.map((fair) => fairJson(fair, eventById)));
    return joinedList(
      catalogue.fairs.map((fair) => {
        const events = fair.events.map((item) => eventById.get(typeof item === 'number' ? item : item.id));
        const kept = texts.get(fair);
        if (kept && kept.events.length === events.length && kept.events.every((event, i) => event === events[i]))
          return kept.text;
        const text = encode(fairJson(fair, eventById));
        texts.set(fair, { events, text });
        return text;
      }),
    );
  });
  const textures = once(() => prepared.sortedTextures ?? sortTextures(catalogue.textures));
  const texturePages = new Map<number, string>();
  const pageItems = (page: number): string => {
    let items = texturePages.get(page);
    if (items === undefined) {
      items = encodePlain(textures().slice((page - 1) * settings.pageSize, page * settings.pageSize));
      texturePages.set(page, items);
    }
    return items;
  };
  const encodeEvent = (event: Event) => encodePlain(eventJson(event));
  const encodedEvents = once(
    () => new Map(catalogue.events.map((event) => [event, textOf(event, encodeEvent, prepared.texts?.events)])),
  );
  // A descending order is derived from its ascending one, which is sorted once.
  const eventOrders = new Map<string, Event[]>();
  const eventsBy = (terms: readonly OrderTerm[]): Event[] => {
    const key = formatOrdering(terms);
    const known = eventOrders.get(key);
    if (known) return known;
    const [only] = terms;
    const events =
      terms.length === 1 && only?.descending
        ? descendingFrom(eventsBy([{ field: only.field, descending: false }]), (event) => fieldValue(event, only.field))
        : sortRecords(catalogue.events, terms);
    eventOrders.set(key, events);
    return events;
  };

  for (const route of routes) {
    let body: string;
    switch (route.resource) {
      case 'company':
        body = companies();
        break;
      case 'virtualfair':
        body = fairs();
        break;
      case 'event': {
        const terms = parseOrdering(route.query.ordering ?? '', EVENT_FIELDS);
        const encoded = encodedEvents();
        body = joinedList(eventsBy(terms).map((event) => encoded.get(event) as string));
        break;
      }
      case 'virtualbooth-texture':
        body = texturePage(route, catalogue.textures.length, pageItems, settings);
        break;
    }
    yield [route.file, body];
  }
}

/** The files every output has besides the lists: OPTIONS, error and 405 bodies, `_headers`. */
function renderShared(headersFile: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const resource of RESOURCES) files.set(optionsFile(resource.name), optionsBody(resource.title));
  files.set(NOT_FOUND_FILE, NOT_FOUND_BODY);
  files.set(INVALID_PAGE_FILE, INVALID_PAGE_BODY);
  files.set(UNSUPPORTED_ORDERING_FILE, UNSUPPORTED_ORDERING_BODY);
  for (const method of REJECTED_METHODS) files.set(methodNotAllowedFile(method), methodNotAllowedBody(method));
  // The project's `_headers`, copied as it is.
  files.set('_headers', headersFile);
  return files;
}

/** Every route of the catalogue: the texture count decides how many pages there are. */
export function routesOf(catalogue: Catalogue, pageSize: number): Route[] {
  return planRoutes(pageCount(catalogue.textures.length, pageSize));
}

/** Stage 3: every file of the output for `routes`, path → text; `prepared` as renderLists takes it. */
export function render(
  catalogue: Catalogue,
  routes: readonly Route[],
  headersFile: string,
  settings: RenderSettings,
  prepared: Prepared = {},
): Map<string, string> {
  return new Map([...renderLists(catalogue, settings, routes, prepared), ...renderShared(headersFile)]);
}
