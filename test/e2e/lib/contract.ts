// What the answers must be, written out literally from docs/contract.md and the API description,
// not imported from the project: a typo in the project's own tables must make a test fail.

import { API } from '../../fixtures/sample.ts';

/** Section 2: these headers, each exactly once, with exactly this value. */
export const API_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  vary: 'Accept',
  allow: 'GET, HEAD, OPTIONS',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

export const NOT_FOUND_BODY = '{"detail":"Not found."}';
export const INVALID_PAGE_BODY = '{"detail":"Invalid page."}';

/** Section 3: the 405 body names the method as the client sent it. */
export const notAllowedBody = (method: string) => `{"detail":"Method \\"${method}\\" not allowed."}`;

/** Methods DRF answers with 405 on these read-only lists. */
export const REJECTED_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Section 3: DRF's SimpleMetadata body, one title per list of the trade-fair catalogue. */
const OPTIONS_BODIES: Readonly<Record<string, string>> = {
  '/company/':
    '{"name":"Company List","description":"","renders":["application/json","text/html"],"parses":["application/json","application/x-www-form-urlencoded","multipart/form-data"]}',
  '/virtualfair/':
    '{"name":"Virtual Fair List","description":"","renders":["application/json","text/html"],"parses":["application/json","application/x-www-form-urlencoded","multipart/form-data"]}',
  '/event/':
    '{"name":"Event List","description":"","renders":["application/json","text/html"],"parses":["application/json","application/x-www-form-urlencoded","multipart/form-data"]}',
  '/virtualbooth-texture/':
    '{"name":"Virtual Booth Texture List","description":"","renders":["application/json","text/html"],"parses":["application/json","application/x-www-form-urlencoded","multipart/form-data"]}',
};

/**
 * The OPTIONS body of a declared list: the catalogue's written out above, another list's (one
 * that only a fixture API declares) from its declared title, in the same form.
 */
export function optionsBody(list: { path: string; title: string }): string {
  return (
    OPTIONS_BODIES[list.path] ??
    `{"name":${JSON.stringify(list.title)},"description":"","renders":["application/json","text/html"],"parses":["application/json","application/x-www-form-urlencoded","multipart/form-data"]}`
  );
}

/** The description's field tables, in order (DRF writes serializer fields in declaration order). */
export const FIELDS = {
  company: [
    'id',
    'name',
    'street',
    'zip_code',
    'city',
    'country_name',
    'phone',
    'fax',
    'e_mail',
    'platform_plus_status',
    'website',
    'logo',
    'tags',
    'vf_plus_status',
  ],
  fair: ['id', 'slug', 'name', 'link', 'logo', 'has_catalog', 'events', 'url', 'tiles', 'size', 'zoom', 'show'],
  fairEvent: ['id', 'slug', 'name', 'short_code', 'start_date', 'event_logo'],
  tiles: ['tile_pattern', 'tile_extension', 'tile_size'],
  size: ['width', 'height'],
  zoom: [
    'min',
    'max',
    'default',
    'booth_zoom_level',
    'reverse',
    'booth_section_start',
    'booth_detail_start',
    'translation_factor_7',
    'xs_width_max',
  ],
  event: ['id', 'name', 'slug', 'start_date', 'end_date', 'logo', 'logo_bg_color'],
  envelope: ['count', 'next', 'previous', 'results'],
  texture: ['id', 'name', 'texture', 'categories'],
} as const;

/** Every field of the event resource can be used in `ordering`. */
export const EVENT_FIELDS = FIELDS.event;

/** Texture page size of the build under test (the project's documented default). */
export const PAGE_SIZE = 10;

export const TEXTURE_PATH = '/virtualbooth-texture/';

/** The declared lists a page at a time: each is checked as the texture list is. */
export const PAGINATED = API.filter((list) => list.paginated);

/**
 * A request of a page the list does not have (`?page=9999`), for the tests of an error answer: on
 * the first paginated list; undefined when none is declared.
 */
export const INVALID_PAGE_URL: string | undefined = PAGINATED[0] && `${PAGINATED[0].path}?page=9999`;

/** The list path without its slash (`/company`), which is answered with a 301. */
export const withoutSlash = (path: string) => path.slice(0, -1);

/** Paths no list is at. */
export const UNKNOWN_PATHS = [
  '/nope/',
  '/',
  '/companies/',
  '/Company/',
  '/company/extra/',
  '/event/101/',
  '/company//',
];

// Files outside the output, the targets' files inside it, and the output's own file names.
export const TRAVERSALS = [
  '/../package.json',
  '/%2e%2e/package.json',
  '/company/..%2f..%2fpackage.json',
  '//etc/passwd',
  '/company/%2e%2e/%2e%2e/package.json',
  '/company/../../package.json',
  '/_headers',
  '/_redirects',
  '/company/index.json',
  '/event/ordering=-id.json',
  '/_errors/not-found.json',
];

/**
 * docs/filters.md: what nginx, Caddy and Apache answer, with 400, to a filter, search or ordering
 * of the settings file that no file of the build answers.
 */
export const UNSUPPORTED_QUERY_BODY =
  '{"detail":"This host answers only a filter on one field of prerendered_filters, with a value the records hold; other filters, search and ordering need a host that runs code."}';
