// scripts/builder/pipeline/validators.ts through validate() of scripts/builder/pipeline/validate.ts: for every rule a
// record that breaks it, and the exact line the build prints for it (formatDataError). Also the
// rules that span records (unique ids, fairs naming existing events that have a logo), and a
// valid record of each resource. The rules written out here are the trade-fair catalogue's, so
// the records are checked against its four declarations whatever SAMPLE_API says.

import { describe, expect, it } from 'vitest';
import { formatDataError } from '../../scripts/builder/pipeline/errors.ts';
import type { SourceRecord } from '../../scripts/builder/pipeline/load.ts';
import { validate } from '../../scripts/builder/pipeline/validate.ts';
import { isCalendarDate } from '../../scripts/contract/resources/fields.ts';
import { CATALOGUE as API, type ResourceName } from '../fixtures/sample.ts';
import { validCompany, validEvent, validFair } from './helpers/records.ts';
import { SCHEMAS } from './helpers/schemas.ts';

// Records are written loosely on purpose: the tests put every kind of wrong value in them.
// biome-ignore lint/suspicious/noExplicitAny: see above
type Raw = Record<string, any>;

// The values the lines below name: the ids, a start_date, the fair's event, and the start of a
// company cut at 60 characters. The fair's map URL is http: (https: in the helper), and its zoom
// goes from 0 to 6 with xs_width_max null.
const COMPANY: Raw = { ...validCompany(), id: 1, name: 'Acme GmbH', street: '', zip_code: '-' };
const EVENT: Raw = { ...validEvent(), id: 5, start_date: '2024-05-02' };
const FAIR: Raw = {
  ...validFair(),
  id: 3,
  events: [5],
  url: 'http://maps.example.net/fairs/virtual-expo/',
  zoom: { ...validFair().zoom, min: 0, max: 6, xs_width_max: null },
};

const TEXTURE: Raw = {
  id: '6a1351f2-4afd-4a5d-96cc-b91631d3a389',
  name: 'Cork',
  texture: 'https://media.example.com/textures/cork.jpg',
  categories: ['0c33de5e-721a-4c87-8ab3-6763ab932548'],
};

const VALID: Record<ResourceName, Raw> = {
  company: COMPANY,
  event: EVENT,
  virtualfair: FAIR,
  'virtualbooth-texture': TEXTURE,
};
const FILE: Record<ResourceName, string> = {
  company: 'data/company/c.json',
  event: 'data/event/e.json',
  virtualfair: 'data/virtualfair/f.json',
  'virtualbooth-texture': 'data/virtualbooth-texture/t.json',
};

const source = (
  resource: ResourceName,
  value: unknown,
  index: number | null = 0,
  file = FILE[resource],
): SourceRecord => ({
  resource,
  file,
  index,
  value,
});

/** The lines the build prints for the records. */
const lines = (records: SourceRecord[]) => validate(records, API).errors.map(formatDataError);

/** A valid record of `resource` changed by `change`, in an array file (record 0), with the valid event a fair needs. */
function broken(resource: ResourceName, change: (record: Raw) => void, index: number | null = 0): string[] {
  const record = structuredClone(VALID[resource]);
  change(record);
  const records = [source(resource, record, index)];
  if (resource === 'virtualfair') records.push(source('event', EVENT, 0));
  return lines(records);
}

describe('valid records', () => {
  it.each(Object.keys(VALID) as ResourceName[])('a valid %s passes', (resource) => {
    const records = [source(resource, VALID[resource])];
    if (resource === 'virtualfair') records.push(source('event', EVENT, 1));
    const { catalogue, errors } = validate(records, API);
    expect(errors).toEqual([]);
    const list = {
      company: catalogue.company,
      event: catalogue.event,
      virtualfair: catalogue.virtualfair,
      'virtualbooth-texture': catalogue['virtualbooth-texture'],
    }[resource];
    expect(list).toEqual([VALID[resource]]);
  });

  it.each<[string, ResourceName, (r: Raw) => void]>([
    [
      'free-text website and e-mail',
      'company',
      (r) => Object.assign(r, { website: 'www.example.com', e_mail: 'not an address' }),
    ],
    [
      'all nullable company fields set',
      'company',
      (r) => Object.assign(r, { phone: '0', fax: '', e_mail: null, website: null, logo: 'HTTPS://x.example/l.png' }),
    ],
    [
      'tags with spaces, & / ( ) inside labels',
      'company',
      (r) => (r.tags = 'Hydraulics & Pneumatics,CAD/CAM Software,Trade Press (Media)'),
    ],
    ['a single tag', 'company', (r) => (r.tags = 'Welding')],
    ['a leap day', 'event', (r) => Object.assign(r, { start_date: '2024-02-29', end_date: '2024-03-01' })],
    ['a 31st', 'event', (r) => Object.assign(r, { start_date: '2024-01-31', end_date: '2024-12-31' })],
    ['upper-case hex colour', 'event', (r) => (r.logo_bg_color = '#AbCdEf')],
    [
      'numeric slug and long short code',
      'event',
      (r) => Object.assign(r, { slug: '2024', short_code: 'a longer free text' }),
    ],
    ['tile pattern {z}/{x}-{y}', 'virtualfair', (r) => (r.tiles.tile_pattern = '{z}/{x}-{y}')],
    ['zoom default at min and max 0', 'virtualfair', (r) => Object.assign(r.zoom, { min: 0, max: 0, default: 0 })],
    ['translation factor 4.5 and null', 'virtualfair', (r) => (r.zoom.translation_factor_7 = 4.5)],
    ['translation factor null', 'virtualfair', (r) => (r.zoom.translation_factor_7 = null)],
    ['slug with underscore and capitals', 'virtualfair', (r) => (r.slug = 'Virtual_Expo-2')],
    ['.jpeg texture', 'virtualbooth-texture', (r) => (r.texture = 'https://m.example/t.jpeg')],
    ['.PNG texture with a query', 'virtualbooth-texture', (r) => (r.texture = 'https://m.example/t.PNG?v=2')],
    ['two categories', 'virtualbooth-texture', (r) => r.categories.push('dc06f438-7b43-4c22-9f44-5b398d7c672b')],
  ])('%s', (_label, resource, change) => {
    expect(broken(resource, change)).toEqual([]);
  });
});

describe('isCalendarDate', () => {
  it.each<[string, boolean]>([
    ['2024-02-29', true],
    ['2023-02-28', true],
    ['2000-02-29', true],
    ['9999-12-31', true],
    ['2023-02-29', false],
    ['1900-02-29', false],
    ['2024-13-01', false],
    ['2024-00-10', false],
    ['2024-04-31', false],
    ['2024-01-00', false],
    ['0000-01-01', false],
    ['2024-1-01', false],
    ['2024-01-01T00:00', false],
    ['20240101', false],
    [' 2024-01-01', false],
  ])('%s → %s', (value, expected) => {
    expect(isCalendarDate(value)).toBe(expected);
  });

  it("agrees with Date's calendar on every month 0..13 and day 0..32 of 1600..2000", () => {
    const pad = (n: number) => String(n).padStart(2, '0');
    const wrong: string[] = [];
    for (let year = 1600; year <= 2000; year++) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const date = new Date(Date.UTC(year, month - 1, day));
          const exists =
            date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
          const text = `${year}-${pad(month)}-${pad(day)}`;
          if (isCalendarDate(text) !== exists) wrong.push(text);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

const C = 'data/company/c.json#/0';
const E = 'data/event/e.json#/0';
const F = 'data/virtualfair/f.json#/0';

describe('company rules', () => {
  it.each<[string, (r: Raw) => void, string[]]>([
    [
      'unknown keys, one line each',
      (r) => Object.assign(r, { location: 'x', Name: 'y' }),
      [
        `${C}/location (record 0, id 1): unexpected field "location" (expected only the documented fields)`,
        `${C}/Name (record 0, id 1): unexpected field "Name" (expected only the documented fields)`,
      ],
    ],
    ['missing field', (r) => delete r.city, [`${C}/city (record 0, id 1): missing field (expected a string)`]],
    [
      'missing nullable field',
      (r) => delete r.phone,
      [`${C}/phone (record 0, id 1): missing field (expected a string)`],
    ],
    [
      'missing boolean',
      (r) => delete r.vf_plus_status,
      [`${C}/vf_plus_status (record 0, id 1): missing field (expected true or false)`],
    ],
    ['id as text', (r) => (r.id = '1'), [`${C}/id (record 0, id "1"): expected a number, got "1"`]],
    ['id not whole', (r) => (r.id = 1.5), [`${C}/id (record 0, id 1.5): expected an integer, got 1.5`]],
    ['id 0', (r) => (r.id = 0), [`${C}/id (record 0, id 0): expected a positive integer id, got 0`]],
    ['negative id', (r) => (r.id = -3), [`${C}/id (record 0, id -3): expected a positive integer id, got -3`]],
    [
      'boolean as text',
      (r) => (r.platform_plus_status = 'yes'),
      [`${C}/platform_plus_status (record 0, id 1): expected true or false, got "yes"`],
    ],
    ['string field as number', (r) => (r.phone = 5), [`${C}/phone (record 0, id 1): expected a string, got 5`]],
    [
      'null where null is not allowed',
      (r) => (r.street = null),
      [`${C}/street (record 0, id 1): expected a string, got null`],
    ],
    ['empty name', (r) => (r.name = ''), [`${C}/name (record 0, id 1): expected a non-empty string, got ""`]],
    [
      'empty country_name',
      (r) => (r.country_name = ''),
      [`${C}/country_name (record 0, id 1): expected a non-empty string, got ""`],
    ],
    [
      'lone surrogate',
      (r) => (r.street = 'Hauptstra\ud800e'),
      [`${C}/street (record 0, id 1): expected well-formed Unicode text (no lone surrogates), got "Hauptstra\\ud800e"`],
    ],
    [
      'relative logo URL',
      (r) => (r.logo = 'logos/acme.png'),
      [`${C}/logo (record 0, id 1): expected an absolute http(s) URL, got "logos/acme.png"`],
    ],
    [
      'site-relative logo URL',
      (r) => (r.logo = '/media/acme.png'),
      [`${C}/logo (record 0, id 1): expected an absolute http(s) URL, got "/media/acme.png"`],
    ],
    [
      'protocol-relative logo URL',
      (r) => (r.logo = '//x.example/a.png'),
      [`${C}/logo (record 0, id 1): expected an absolute http(s) URL, got "//x.example/a.png"`],
    ],
    [
      'ftp: logo URL',
      (r) => (r.logo = 'ftp://x.example/a.png'),
      [`${C}/logo (record 0, id 1): expected an absolute http(s) URL, got "ftp://x.example/a.png"`],
    ],
    [
      'javascript: logo URL',
      (r) => (r.logo = 'javascript:alert(1)'),
      [`${C}/logo (record 0, id 1): expected an absolute http(s) URL, got "javascript:alert(1)"`],
    ],
    [
      'logo URL without a host',
      (r) => (r.logo = 'https:///a.png'),
      [`${C}/logo (record 0, id 1): expected an absolute http(s) URL, got "https:///a.png"`],
    ],
    [
      'logo URL with a space',
      (r) => (r.logo = 'https://x.example/a b.png'),
      [`${C}/logo (record 0, id 1): expected an absolute http(s) URL, got "https://x.example/a b.png"`],
    ],
    ['empty logo', (r) => (r.logo = ''), [`${C}/logo (record 0, id 1): expected an absolute http(s) URL, got ""`]],
    [
      'tags with a space after a comma',
      (r) => (r.tags = 'Welding, Cutting'),
      [
        `${C}/tags (record 0, id 1): expected comma-separated labels with no space after a comma and no empty label, got "Welding, Cutting"`,
      ],
    ],
    [
      'tags with an empty label',
      (r) => (r.tags = 'Welding,,Cutting'),
      [
        `${C}/tags (record 0, id 1): expected comma-separated labels with no space after a comma and no empty label, got "Welding,,Cutting"`,
      ],
    ],
    [
      'tags with a trailing comma',
      (r) => (r.tags = 'Welding,'),
      [
        `${C}/tags (record 0, id 1): expected comma-separated labels with no space after a comma and no empty label, got "Welding,"`,
      ],
    ],
    [
      'empty tags (null is the empty value)',
      (r) => (r.tags = ''),
      [
        `${C}/tags (record 0, id 1): expected comma-separated labels with no space after a comma and no empty label, got ""`,
      ],
    ],
    [
      'several problems in one record, in field order',
      (r) => Object.assign(r, { id: 0, name: '', logo: 'x' }),
      [
        `${C}/id (record 0, id 0): expected a positive integer id, got 0`,
        `${C}/name (record 0, id 0): expected a non-empty string, got ""`,
        `${C}/logo (record 0, id 0): expected an absolute http(s) URL, got "x"`,
      ],
    ],
  ])('%s', (_label, change, expected) => {
    expect(broken('company', change)).toEqual(expected);
  });
});

describe('event rules', () => {
  it.each<[string, (r: Raw) => void, string[]]>([
    [
      'end before start (the example of the brief)',
      (r) => Object.assign(r, { start_date: '2024-05-02', end_date: '2024-05-01' }),
      [`${E}/end_date (record 0, id 5): expected a date on or after start_date (2024-05-02), got "2024-05-01"`],
    ],
    [
      'end a year before start',
      (r) => Object.assign(r, { start_date: '2024-01-10', end_date: '2023-12-31' }),
      [`${E}/end_date (record 0, id 5): expected a date on or after start_date (2024-01-10), got "2023-12-31"`],
    ],
    [
      '2023-02-29 does not exist',
      (r) => Object.assign(r, { start_date: '2023-02-29', end_date: '2023-03-01' }),
      [`${E}/start_date (record 0, id 5): expected a date YYYY-MM-DD that exists on the calendar, got "2023-02-29"`],
    ],
    [
      'month 13',
      (r) => Object.assign(r, { start_date: '2024-13-01', end_date: '2024-13-01' }),
      [
        `${E}/start_date (record 0, id 5): expected a date YYYY-MM-DD that exists on the calendar, got "2024-13-01"`,
        `${E}/end_date (record 0, id 5): expected a date YYYY-MM-DD that exists on the calendar, got "2024-13-01"`,
      ],
    ],
    [
      'a date with a time',
      (r) => (r.end_date = '2024-05-02T10:00:00'),
      [
        `${E}/end_date (record 0, id 5): expected a date YYYY-MM-DD that exists on the calendar, got "2024-05-02T10:00:00"`,
      ],
    ],
    [
      'a date as a number',
      (r) => (r.start_date = 20240502),
      [`${E}/start_date (record 0, id 5): expected a string, got 20240502`],
    ],
    [
      'logo as an absolute URL',
      (r) => (r.logo = 'https://media.example.com/e.png'),
      [
        `${E}/logo (record 0, id 5): expected a site-relative path beginning with /media/, got "https://media.example.com/e.png"`,
      ],
    ],
    [
      'logo /media/ alone',
      (r) => (r.logo = '/media/'),
      [`${E}/logo (record 0, id 5): expected a site-relative path beginning with /media/, got "/media/"`],
    ],
    [
      'logo outside /media/',
      (r) => (r.logo = '/static/e.png'),
      [`${E}/logo (record 0, id 5): expected a site-relative path beginning with /media/, got "/static/e.png"`],
    ],
    [
      'logo with a space',
      (r) => (r.logo = '/media/a b.png'),
      [`${E}/logo (record 0, id 5): expected a site-relative path beginning with /media/, got "/media/a b.png"`],
    ],
    [
      'short colour',
      (r) => (r.logo_bg_color = '#fff'),
      [`${E}/logo_bg_color (record 0, id 5): expected a colour of the form #rrggbb, got "#fff"`],
    ],
    [
      'colour without #',
      (r) => (r.logo_bg_color = 'ff00ff'),
      [`${E}/logo_bg_color (record 0, id 5): expected a colour of the form #rrggbb, got "ff00ff"`],
    ],
    [
      'colour not hex',
      (r) => (r.logo_bg_color = '#gg0000'),
      [`${E}/logo_bg_color (record 0, id 5): expected a colour of the form #rrggbb, got "#gg0000"`],
    ],
    ['empty slug', (r) => (r.slug = ''), [`${E}/slug (record 0, id 5): expected a non-empty string, got ""`]],
    [
      'short_code missing',
      (r) => delete r.short_code,
      [`${E}/short_code (record 0, id 5): missing field (expected a string)`],
    ],
  ])('%s', (_label, change, expected) => {
    expect(broken('event', change)).toEqual(expected);
  });
});

describe('virtual fair rules', () => {
  it.each<[string, (r: Raw) => void, string[]]>([
    [
      'slug with a space',
      (r) => (r.slug = 'virtual expo'),
      [`${F}/slug (record 0, id 3): expected a slug of letters, digits, hyphens and underscores, got "virtual expo"`],
    ],
    [
      'empty slug',
      (r) => (r.slug = ''),
      [`${F}/slug (record 0, id 3): expected a slug of letters, digits, hyphens and underscores, got ""`],
    ],
    [
      'relative link',
      (r) => (r.link = 'fairs/virtual-expo/'),
      [`${F}/link (record 0, id 3): expected an absolute http(s) URL, got "fairs/virtual-expo/"`],
    ],
    [
      'ftp: map URL',
      (r) => (r.url = 'ftp://maps.example.net/'),
      [`${F}/url (record 0, id 3): expected an absolute http(s) URL, got "ftp://maps.example.net/"`],
    ],
    ['null logo', (r) => (r.logo = null), [`${F}/logo (record 0, id 3): expected a string, got null`]],
    [
      'empty events list',
      (r) => (r.events = []),
      [`${F}/events (record 0, id 3): expected at least one event id, got []`],
    ],
    [
      'an event id twice',
      (r) => (r.events = [5, 5]),
      [`${F}/events (record 0, id 3): expected each event id once, got [5,5]`],
    ],
    [
      'an event id 0',
      (r) => (r.events = [0]),
      [`${F}/events/0 (record 0, id 3): expected a positive integer id, got 0`],
    ],
    [
      'an event id twice, once in an object',
      (r) => (r.events = [5, { id: 5, name: 'Expo' }]),
      [`${F}/events (record 0, id 3): expected each event id once, got [5,{"id":5,"name":"Expo"}]`],
    ],
    [
      'an event id as text',
      (r) => (r.events = ['5']),
      [
        `${F}/events/0 (record 0, id 3): expected an event id, or an object with the id and the fields this fair shows instead, got "5"`,
      ],
    ],
    [
      'tile pattern missing {y}',
      (r) => (r.tiles.tile_pattern = '{z}/{x}'),
      [
        `${F}/tiles/tile_pattern (record 0, id 3): expected a tile pattern holding each of {z}, {x} and {y} exactly once, got "{z}/{x}"`,
      ],
    ],
    [
      'tile pattern with {x} twice',
      (r) => (r.tiles.tile_pattern = '{z}/{x}/{x}/{y}'),
      [
        `${F}/tiles/tile_pattern (record 0, id 3): expected a tile pattern holding each of {z}, {x} and {y} exactly once, got "{z}/{x}/{x}/{y}"`,
      ],
    ],
    [
      'tile extension with a dot',
      (r) => (r.tiles.tile_extension = '.png'),
      [
        `${F}/tiles/tile_extension (record 0, id 3): expected a file extension without the dot, such as png, got ".png"`,
      ],
    ],
    [
      'tile size 0',
      (r) => (r.tiles.tile_size = 0),
      [`${F}/tiles/tile_size (record 0, id 3): expected a positive integer, got 0`],
    ],
    ['width 0', (r) => (r.size.width = 0), [`${F}/size/width (record 0, id 3): expected a positive integer, got 0`]],
    [
      'negative height',
      (r) => (r.size.height = -8192),
      [`${F}/size/height (record 0, id 3): expected a positive integer, got -8192`],
    ],
    [
      'negative zoom min',
      (r) => (r.zoom.min = -1),
      [`${F}/zoom/min (record 0, id 3): expected an integer of 0 or more, got -1`],
    ],
    [
      'negative booth_zoom_level',
      (r) => (r.zoom.booth_zoom_level = -4),
      [`${F}/zoom/booth_zoom_level (record 0, id 3): expected an integer of 0 or more, got -4`],
    ],
    [
      'negative xs_width_max',
      (r) => (r.zoom.xs_width_max = -40),
      [`${F}/zoom/xs_width_max (record 0, id 3): expected an integer of 0 or more, got -40`],
    ],
    [
      'zoom default above max',
      (r) => (r.zoom.default = 7),
      [`${F}/zoom/default (record 0, id 3): expected a level from min to max (0..6), got 7`],
    ],
    [
      'zoom default below min',
      (r) => Object.assign(r.zoom, { min: 2, default: 1 }),
      [`${F}/zoom/default (record 0, id 3): expected a level from min to max (2..6), got 1`],
    ],
    [
      'zoom min above max',
      (r) => Object.assign(r.zoom, { min: 7, default: 7 }),
      [`${F}/zoom/max (record 0, id 3): expected max >= min (7), got 6`],
    ],
    [
      'reverse as text',
      (r) => (r.zoom.reverse = 'false'),
      [`${F}/zoom/reverse (record 0, id 3): expected true or false, got "false"`],
    ],
    [
      'translation factor as text',
      (r) => (r.zoom.translation_factor_7 = '2.0'),
      [`${F}/zoom/translation_factor_7 (record 0, id 3): expected a number, got "2.0"`],
    ],
    [
      'unknown nested key',
      (r) => (r.tiles.tile_format = 'png'),
      [`${F}/tiles/tile_format (record 0, id 3): unexpected field "tile_format" (expected only the documented fields)`],
    ],
    ['missing zoom', (r) => delete r.zoom, [`${F}/zoom (record 0, id 3): missing field (expected an object)`]],
    [
      'missing nested field',
      (r) => delete r.size.height,
      [`${F}/size/height (record 0, id 3): missing field (expected a number)`],
    ],
  ])('%s', (_label, change, expected) => {
    expect(broken('virtualfair', change)).toEqual(expected);
  });
});

describe('virtual booth texture rules (one record per file)', () => {
  const T = 'data/virtualbooth-texture/t.json#';
  const LABEL = '(record id "6a1351f2-4afd-4a5d-96cc-b91631d3a389")';
  it.each<[string, (r: Raw) => void, string[]]>([
    [
      'upper-case UUID',
      (r) => (r.id = '6A1351F2-4AFD-4A5D-96CC-B91631D3A389'),
      [
        `${T}/id (record id "6A1351F2-4AFD-4A5D-96CC-B91631D3A389"): expected a lower-case UUID (8-4-4-4-12 hex digits), got "6A1351F2-4AFD-4A5D-96CC-B91631D3A389"`,
      ],
    ],
    [
      'UUID without hyphens',
      (r) => (r.id = '6a1351f24afd4a5d96ccb91631d3a389'),
      [
        `${T}/id (record id "6a1351f24afd4a5d96ccb91631d3a389"): expected a lower-case UUID (8-4-4-4-12 hex digits), got "6a1351f24afd4a5d96ccb91631d3a389"`,
      ],
    ],
    ['numeric id', (r) => (r.id = 5), [`${T}/id (record id 5): expected a string, got 5`]],
    ['empty name', (r) => (r.name = ''), [`${T}/name ${LABEL}: expected a non-empty string, got ""`]],
    [
      'gif texture',
      (r) => (r.texture = 'https://m.example/t.gif'),
      [`${T}/texture ${LABEL}: expected the URL of a jpg or png image, got "https://m.example/t.gif"`],
    ],
    [
      'png only in the query',
      (r) => (r.texture = 'https://m.example/t.gif?x=.png'),
      [`${T}/texture ${LABEL}: expected the URL of a jpg or png image, got "https://m.example/t.gif?x=.png"`],
    ],
    [
      'relative texture URL',
      (r) => (r.texture = 'textures/t.png'),
      [`${T}/texture ${LABEL}: expected an absolute http(s) URL, got "textures/t.png"`],
    ],
    [
      'no categories',
      (r) => (r.categories = []),
      [`${T}/categories ${LABEL}: expected at least one category UUID, got []`],
    ],
    [
      'a category that is not a UUID',
      (r) => (r.categories = ['metal']),
      [`${T}/categories/0 ${LABEL}: expected a lower-case UUID (8-4-4-4-12 hex digits), got "metal"`],
    ],
    [
      'a category twice (the value is cut at 60 characters)',
      (r) => r.categories.push(r.categories[0]),
      [
        `${T}/categories ${LABEL}: expected each category once, got ["0c33de5e-721a-4c87-8ab3-6763ab932548","0c33de5e-721a-4c...`,
      ],
    ],
  ])('%s', (_label, change, expected) => {
    expect(broken('virtualbooth-texture', change, null)).toEqual(expected);
  });
});

// The rule lives in the schemas themselves: a string with a lone surrogate fails its schema,
// wherever the string is, and the problem is reported through zod like any other.
describe('well-formed Unicode text, in every schema', () => {
  const LONE = 'x\udc00';
  it.each<[string, ResourceName, (r: Raw) => void, (string | number)[]]>([
    ['a company street', 'company', (r) => (r.street = LONE), ['street']],
    ['a company phone (nullable)', 'company', (r) => (r.phone = LONE), ['phone']],
    ['an event short code', 'event', (r) => (r.short_code = LONE), ['short_code']],
    [
      'a nested fair tile pattern',
      'virtualfair',
      (r) => (r.tiles.tile_pattern = `{z}/{x}/{y}${LONE}`),
      ['tiles', 'tile_pattern'],
    ],
    ['a texture name', 'virtualbooth-texture', (r) => (r.name = LONE), ['name']],
  ])('%s', (_label, resource, change, path) => {
    const record = structuredClone(VALID[resource]);
    change(record);
    const result = SCHEMAS[resource].safeParse(record);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [path, 'expected well-formed Unicode text (no lone surrogates)'],
    ]);
  });

  it("is reported also when other fields break their rules, after the record's other problems", () => {
    expect(broken('company', (r) => Object.assign(r, { street: LONE, name: '', vf_plus_status: 'no' }))).toEqual([
      `${C}/name (record 0, id 1): expected a non-empty string, got ""`,
      `${C}/vf_plus_status (record 0, id 1): expected true or false, got "no"`,
      `${C}/street (record 0, id 1): expected well-formed Unicode text (no lone surrogates), got "x\\udc00"`,
    ]);
  });

  it('accepts a surrogate pair', () => {
    expect(SCHEMAS.company.safeParse({ ...COMPANY, street: 'Stra\ud83d\ude00e' }).success).toBe(true);
  });
});

describe('records that are not objects', () => {
  it.each<[string, unknown, string]>([
    ['a number', 5, 'data/company/c.json#/0 (record 0): expected an object, got 5'],
    ['a string', 'x', 'data/company/c.json#/0 (record 0): expected an object, got "x"'],
    ['a nested array', [1], 'data/company/c.json#/0 (record 0): expected an object, got [1]'],
    [
      'a nested array of records (the value is cut at 60 characters)',
      [COMPANY],
      'data/company/c.json#/0 (record 0): expected an object, got [{"id":1,"name":"Acme GmbH","street":"","zip_code":"-","c...',
    ],
  ])('%s', (_label, value, expected) => {
    expect(lines([source('company', value)])).toEqual([expected]);
  });

  // A record that is not an object must be reported, not crash the build on its `.id`.
  it('reports a null record instead of crashing', () => {
    expect(() => lines([source('company', null)])).not.toThrow();
    expect(lines([source('company', null)])).toEqual([
      'data/company/c.json#/0 (record 0): expected an object, got null',
    ]);
  });
});

describe('record labels', () => {
  it.each<[string, SourceRecord, string]>([
    [
      'array file, with id',
      source('event', { ...EVENT, slug: '' }, 4),
      'data/event/e.json#/4/slug (record 4, id 5): expected a non-empty string, got ""',
    ],
    [
      'single-record file, with id',
      source('event', { ...EVENT, slug: '' }, null),
      'data/event/e.json#/slug (record id 5): expected a non-empty string, got ""',
    ],
    [
      'array file, no id',
      source('event', { ...EVENT, id: undefined, slug: 'x' }, 2),
      'data/event/e.json#/2/id (record 2): missing field (expected a number)',
    ],
    [
      'single-record file, no id',
      source('event', { ...EVENT, id: undefined }, null),
      'data/event/e.json#/id (record): missing field (expected a number)',
    ],
    [
      'a key with / and ~ in the pointer',
      source('company', { ...COMPANY, 'a/b~c': 1 }, 0),
      'data/company/c.json#/0/a~1b~0c (record 0, id 1): unexpected field "a/b~c" (expected only the documented fields)',
    ],
  ])('%s', (_label, record, expected) => {
    expect(lines([record])).toEqual([expected]);
  });
});

describe('rules across records', () => {
  it('reports a repeated id at each repeat, naming the first record', () => {
    expect(
      lines([
        source('event', EVENT, 0, 'data/event/a.json'),
        source('event', { ...EVENT, name: 'Other' }, 0, 'data/event/b.json'),
        source('event', { ...EVENT, name: 'Third' }, 1, 'data/event/b.json'),
      ]),
    ).toEqual([
      'data/event/b.json#/0/id (record 0, id 5): expected a unique id, but 5 is also used by data/event/a.json#/0/id',
      'data/event/b.json#/1/id (record 1, id 5): expected a unique id, but 5 is also used by data/event/a.json#/0/id',
    ]);
  });

  it('reports a repeated texture id of one-record files', () => {
    expect(
      lines([
        source('virtualbooth-texture', TEXTURE, null, 'data/virtualbooth-texture/a.json'),
        source('virtualbooth-texture', { ...TEXTURE, name: 'Oak' }, null, 'data/virtualbooth-texture/b.json'),
      ]),
    ).toEqual([
      'data/virtualbooth-texture/b.json#/id (record id "6a1351f2-4afd-4a5d-96cc-b91631d3a389"): expected a unique id, but "6a1351f2-4afd-4a5d-96cc-b91631d3a389" is also used by data/virtualbooth-texture/a.json#/id',
    ]);
  });

  it('checks ids of records that fail their schema too', () => {
    expect(lines([source('event', { ...EVENT, slug: '' }, 0), source('event', EVENT, 1)])).toEqual([
      'data/event/e.json#/0/slug (record 0, id 5): expected a non-empty string, got ""',
      'data/event/e.json#/1/id (record 1, id 5): expected a unique id, but 5 is also used by data/event/e.json#/0/id',
    ]);
  });

  it('allows the same id in different resources, and 5 beside "5"', () => {
    expect(
      lines([
        source('company', { ...COMPANY, id: 5 }),
        source('event', EVENT),
        source('virtualfair', { ...FAIR, id: 5 }),
        source('company', { ...COMPANY, id: '5' }, 1),
      ]),
    ).toEqual(['data/company/c.json#/1/id (record 1, id "5"): expected a number, got "5"']);
  });

  it('reports a fair event id that no event has', () => {
    expect(lines([source('virtualfair', { ...FAIR, events: [5, 99] }), source('event', EVENT)])).toEqual([
      'data/virtualfair/f.json#/0/events/1 (record 0, id 3): expected the id of an event in the event data, got 99',
    ]);
  });

  it('reports a fair event without a logo', () => {
    expect(lines([source('virtualfair', FAIR), source('event', { ...EVENT, logo: null })])).toEqual([
      'data/virtualfair/f.json#/0/events/0 (record 0, id 3): expected an event with a logo (a fair shows event_logo), but event 5 has logo null',
    ]);
  });

  it('does not call an event unknown when the event only fails its own schema', () => {
    expect(lines([source('virtualfair', FAIR), source('event', { ...EVENT, slug: '' })])).toEqual([
      'data/event/e.json#/0/slug (record 0, id 5): expected a non-empty string, got ""',
    ]);
  });

  // A fair that fails another rule still has its event ids checked, so one run reports all.
  it('checks the event ids of a fair that also breaks another rule', () => {
    expect(lines([source('virtualfair', { ...FAIR, events: [5, 77], show: 'yes' }), source('event', EVENT)])).toEqual([
      'data/virtualfair/f.json#/0/show (record 0, id 3): expected true or false, got "yes"',
      'data/virtualfair/f.json#/0/events/1 (record 0, id 3): expected the id of an event in the event data, got 77',
    ]);
  });

  it('does not call event ids unknown when an event file could not be read', () => {
    const records = [source('virtualfair', { ...FAIR, events: [5, 77] }), source('event', EVENT)];
    expect(validate(records, API, new Set(['event'])).errors.map(formatDataError)).toEqual([]);
  });

  // The build then sorts every problem by file and record (pipeline.ts).
  it("reports every problem of every record: the schemas' in record order, then the rules across records", () => {
    expect(
      lines([
        source('virtualbooth-texture', { ...TEXTURE, categories: [] }, null),
        source('virtualfair', { ...FAIR, events: [5, 6] }),
        source('event', { ...EVENT, end_date: '2024-05-01' }),
        source('event', { ...EVENT, id: 6, logo: null }, 1),
        source('company', { ...COMPANY, name: '' }),
        source('company', COMPANY, 1),
      ]),
    ).toEqual([
      'data/virtualbooth-texture/t.json#/categories (record id "6a1351f2-4afd-4a5d-96cc-b91631d3a389"): expected at least one category UUID, got []',
      'data/event/e.json#/0/end_date (record 0, id 5): expected a date on or after start_date (2024-05-02), got "2024-05-01"',
      'data/company/c.json#/0/name (record 0, id 1): expected a non-empty string, got ""',
      'data/company/c.json#/1/id (record 1, id 1): expected a unique id, but 1 is also used by data/company/c.json#/0/id',
      'data/virtualfair/f.json#/0/events/1 (record 0, id 3): expected an event with a logo (a fair shows event_logo), but event 6 has logo null',
    ]);
  });
});

describe('known problems in the date rules', () => {
  // zod runs the end-before-start check even when start_date is not a date; it must stay quiet then.
  it('reports only the bad start_date, not a second error about end_date', () => {
    expect(broken('event', (r) => Object.assign(r, { start_date: 'soon', end_date: '2024-05-02' }))).toEqual([
      `${E}/start_date (record 0, id 5): expected a date YYYY-MM-DD that exists on the calendar, got "soon"`,
    ]);
  });

  // Date.UTC would read the years 0-99 as 1900-1999; Python and Django accept 0050-01-01.
  it('accepts the years 1 to 99', () => {
    expect(['0001-01-01', '0050-06-15', '0099-12-31'].filter((value) => !isCalendarDate(value))).toEqual([]);
  });
});
