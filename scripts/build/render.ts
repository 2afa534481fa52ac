// Stage 3: turn the validated catalogue into the bytes of every file of the output, named by
// the route table. Pure: no I/O, so the same catalogue always gives the same files.

import { INVALID_PAGE_BODY, NOT_FOUND_BODY, UNSUPPORTED_ORDERING_BODY, methodNotAllowedBody, optionsBody } from '../contract/bodies.ts';
import { Float, encode, encodeArrayBytes, encodePlain, encodePlainArrayBytes, type Json, type PlainJson } from '../contract/json.ts';
import { descendingFrom, fieldValue, formatOrdering, parseOrdering, sortRecords, type OrderTerm } from '../contract/ordering.ts';
import { pageCount, pageLinks } from '../contract/pagination.ts';
import {
  EVENT_FIELDS,
  INVALID_PAGE_FILE,
  NOT_FOUND_FILE,
  REJECTED_METHODS,
  RESOURCES,
  UNSUPPORTED_ORDERING_FILE,
  methodNotAllowedFile,
  optionsFile,
  planRoutes,
  type Route,
} from '../contract/routes.ts';
import type { Event, Fair } from './schemas.ts';
import type { Catalogue } from './validate.ts';

export interface RenderSettings {
  /** Public origin (and optional path prefix) of the API, without a trailing slash. */
  baseUrl: string;
  pageSize: number;
}

// Field order is the order of the description's tables: DRF writes serializer fields in order.
// Companies and textures are written as validated: validation keeps each in its schema's key
// order whatever the source's (validate.ts), and those schemas list the fields in this order
// (schemas.ts). A copy of 100,000 companies would only be garbage a moment later.
const eventJson = (e: Event): PlainJson => ({
  id: e.id,
  name: e.name,
  slug: e.slug,
  start_date: e.start_date,
  end_date: e.end_date,
  logo: e.logo,
  logo_bg_color: e.logo_bg_color,
});

const fairEventJson = (e: Event): Json => ({
  id: e.id,
  slug: e.slug,
  name: e.name,
  short_code: e.short_code,
  start_date: e.start_date,
  event_logo: e.logo,
});

function fairJson(f: Fair, events: ReadonlyMap<number, Event>): Json {
  return {
    id: f.id,
    slug: f.slug,
    name: f.name,
    link: f.link,
    logo: f.logo,
    has_catalog: f.has_catalog,
    events: f.events.map((id) => fairEventJson(events.get(id) as Event)),
    url: f.url,
    tiles: { tile_pattern: f.tiles.tile_pattern, tile_extension: f.tiles.tile_extension, tile_size: f.tiles.tile_size },
    size: { width: f.size.width, height: f.size.height },
    zoom: {
      min: f.zoom.min,
      max: f.zoom.max,
      default: f.zoom.default,
      booth_zoom_level: f.zoom.booth_zoom_level,
      reverse: f.zoom.reverse,
      booth_section_start: f.zoom.booth_section_start,
      booth_detail_start: f.zoom.booth_detail_start,
      translation_factor_7: f.zoom.translation_factor_7 === null ? null : new Float(f.zoom.translation_factor_7),
      xs_width_max: f.zoom.xs_width_max,
    },
    show: f.show,
  };
}

/** `items(page)`: the text of that page's textures, an array, encoded once for every format. */
function texturePage(route: Route, count: number, items: (page: number) => string, settings: RenderSettings): string {
  const pages = pageCount(count, settings.pageSize);
  const requested = route.query.page;
  const page = requested === undefined ? 1 : requested === 'last' ? pages : Number(requested);
  const links = pageLinks(settings.baseUrl, route.path, route.query.format ? { format: route.query.format } : {}, page, pages);
  // The envelope is built around the encoded items so they are not encoded again.
  const head = encodePlain({ count, next: links.next, previous: links.previous });
  return `${head.slice(0, -1)},"results":${items(page)}}`;
}

/** Every route of the catalogue: the texture count decides how many pages there are. */
export function routesOf(catalogue: Catalogue, settings: RenderSettings): Route[] {
  return planRoutes(pageCount(catalogue.textures.length, settings.pageSize));
}

/**
 * The list files of `routes` (output path and text), rendered as they are read, so the writer
 * can write a file while the next one is rendered. A list is only sorted and encoded when one
 * of its routes is asked for: the company list can be rendered on a thread of its own.
 */
export function* renderLists(catalogue: Catalogue, settings: RenderSettings, routes: readonly Route[]): Generator<[string, string | Uint8Array]> {
  const once = <T>(make: () => T) => {
    let value: T | undefined;
    return () => (value ??= make());
  };
  const companies = once(() =>
    sortRecords(catalogue.companies, [{ field: 'name', descending: false }], (c, field) => (field === 'name' ? c.name.toLowerCase() : c.id)),
  );
  const textures = once(() => sortRecords(catalogue.textures, [{ field: 'name', descending: false }]));
  // A page's textures are encoded as one array, once for its three routes (with each format):
  // a native call per page, not one per texture and a join.
  const texturePages = new Map<number, string>();
  const pageItems = (page: number): string => {
    let items = texturePages.get(page);
    if (items === undefined) {
      items = encodePlain(textures().slice((page - 1) * settings.pageSize, page * settings.pageSize));
      texturePages.set(page, items);
    }
    return items;
  };
  const eventById = once(() => new Map(catalogue.events.map((e) => [e.id, e])));
  // Each event is encoded once, to UTF-8; every event list is a copy of those bytes in its order.
  const encodedEvents = once(() => new Map(catalogue.events.map((e) => [e, Buffer.from(encodePlain(eventJson(e)))])));
  // Each order is sorted once; a descending one is derived from the ascending one.
  const eventOrders = new Map<string, Event[]>();
  const eventsBy = (terms: readonly OrderTerm[]): Event[] => {
    const key = formatOrdering(terms);
    const known = eventOrders.get(key);
    if (known) return known;
    const [only] = terms;
    const events =
      terms.length === 1 && only?.descending
        ? descendingFrom(eventsBy([{ field: only.field, descending: false }]), (e) => fieldValue(e, only.field))
        : sortRecords(catalogue.events, terms);
    eventOrders.set(key, events);
    return events;
  };

  for (const route of routes) {
    let body: string | Uint8Array;
    switch (route.resource) {
      case 'company':
        body = encodePlainArrayBytes(companies());
        break;
      case 'virtualfair':
        body = encode(catalogue.fairs.map((f) => fairJson(f, eventById())));
        break;
      case 'event': {
        const terms = parseOrdering(route.query.ordering ?? '', EVENT_FIELDS);
        const encoded = encodedEvents();
        body = encodeArrayBytes(eventsBy(terms).map((e) => encoded.get(e) as Uint8Array));
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
export function* renderShared(headersFile: string): Generator<[string, string]> {
  for (const resource of RESOURCES) yield [optionsFile(resource.name), optionsBody(resource.title)];
  yield [NOT_FOUND_FILE, NOT_FOUND_BODY];
  yield [INVALID_PAGE_FILE, INVALID_PAGE_BODY];
  yield [UNSUPPORTED_ORDERING_FILE, UNSUPPORTED_ORDERING_BODY];
  for (const method of REJECTED_METHODS) yield [methodNotAllowedFile(method), methodNotAllowedBody(method)];
  // The project's `_headers`, copied as it is.
  yield ['_headers', headersFile];
}
