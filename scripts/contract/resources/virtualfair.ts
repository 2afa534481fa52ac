// The fair list: in the order of the data, each fair with its events written out.

import type { z } from 'zod';
import type { FieldKinds } from './fields.ts';
import { declare, UNIQUE_IDS, URL_PARSES } from './resource.ts';

const isPlainObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);

function eachEventOnce(items: ReadonlyArray<number | { id: number }>): boolean {
  const ids = new Set<number>();
  for (const item of items) ids.add(typeof item === 'number' ? item : item.id);
  return ids.size === items.length;
}

function zoom(field: FieldKinds) {
  const { count } = field;
  return field.z
    .strictObject({
      min: count(),
      max: count(),
      default: count(),
      booth_zoom_level: count(),
      reverse: field.z.boolean(),
      booth_section_start: count(),
      booth_detail_start: count(),
      translation_factor_7: field.z.number().nullable(),
      xs_width_max: count().nullable(),
    })
    .superRefine((zoom, ctx) => {
      if (![zoom.min, zoom.max, zoom.default].every(Number.isInteger)) return;
      if (zoom.min > zoom.max) {
        ctx.addIssue({ code: 'custom', path: ['max'], message: `expected max >= min (${zoom.min})`, input: zoom.max });
      } else if (zoom.default < zoom.min || zoom.default > zoom.max) {
        ctx.addIssue({
          code: 'custom',
          path: ['default'],
          message: `expected a level from min to max (${zoom.min}..${zoom.max})`,
          input: zoom.default,
        });
      }
    });
}

/**
 * An event id, or an object that starts from one: what a fair shows of one event instead of the
 * event record's values, with the event record's rules; `event_logo` is the record's `logo`, which
 * a fair cannot show as null. The build fills in each field not given from the event record with
 * that id: an object holding only `id` is the same as the id alone. When no event record has the
 * id, every field must be given (checked across records, by the build).
 *
 * An object is checked on its own first, so that each of its problems is reported at its field:
 * z.union() alone reports one "invalid input" at the item when an object breaks a rule of a
 * field's type (a missing id, a name that is not a string), since the id option fails too. Only a
 * valid object reaches the union.
 */
function fairEvent(field: FieldKinds) {
  const given = field.z.strictObject({
    id: field.id(),
    slug: field.nonEmpty().optional(),
    name: field.nonEmpty().optional(),
    short_code: field.text().nullable().optional(),
    start_date: field.isoDate().optional(),
    event_logo: field.mediaPath().optional(),
  });
  return field.z.preprocess(
    (value, ctx) => {
      if (!isPlainObject(value)) return value;
      // With reportInput, every issue holds its input, as an issue raised here must.
      const result = given.safeParse(value, { reportInput: true });
      if (!result.success) ctx.issues.push(...(result.error.issues as z.core.$ZodRawIssue[]));
      return value;
    },
    field.z
      .union([field.id(), given], {
        error: 'expected an event id, or an object with the id and the fields this fair shows instead',
      })
      .meta({
        description:
          "An event id, or an object with the id and what this fair shows instead of the event record's slug, name, short_code, start_date or logo (as event_logo); a field not given is the event record's.",
      }),
  );
}

export const virtualfair = declare({
  name: 'virtualfair',
  path: '/virtualfair/',
  title: 'Virtual Fair List',
  one: 'a virtual fair',
  many: 'virtual fairs',
  record: (field) =>
    field.z.strictObject({
      id: field.id(),
      slug: field.text().regex(/^[-a-zA-Z0-9_]+$/, 'expected a slug of letters, digits, hyphens and underscores'),
      name: field.nonEmpty(),
      link: field.absoluteUrl(),
      logo: field.absoluteUrl(),
      has_catalog: field.z.boolean(),
      events: field.z
        .array(fairEvent(field))
        .min(1, 'expected at least one event id')
        .refine(eachEventOnce, 'expected each event id once')
        .meta({
          uniqueItems: true,
          description:
            "The fair's events, in the order it lists them, each event id once (the build checks this also when an id is given in an object; uniqueItems only sees identical items).",
        }),
      url: field.absoluteUrl(),
      tiles: field.z.strictObject({
        tile_pattern: field.tilePattern(),
        tile_extension: field.text().regex(/^[a-z0-9]+$/, 'expected a file extension without the dot, such as png'),
        tile_size: field.z.int().positive({ error: 'expected a positive integer' }),
      }),
      size: field.z.strictObject({
        width: field.z.int().positive({ error: 'expected a positive integer' }),
        height: field.z.int().positive({ error: 'expected a positive integer' }),
      }),
      zoom: zoom(field),
      show: field.z.boolean(),
    }),
  floats: ['zoom.translation_factor_7'],
  // The API lists fairs in the order the data gives them.
  order: 'source',
  orderingFields: [],
  paginated: false,
  embeds: {
    field: 'events',
    resource: 'event',
    shows: {
      id: 'id',
      slug: 'slug',
      name: 'name',
      short_code: 'short_code',
      start_date: 'start_date',
      event_logo: 'logo',
    },
    notNull: ['event_logo'],
    one: 'an event',
    owner: 'fair',
    component: 'FairEvent',
    description: 'An event as a virtual fair lists it.',
  },
  buildOnlyRules: [
    'zoom: min <= default <= max',
    URL_PARSES,
    UNIQUE_IDS,
    'each event id once in a fair, whether given alone or in an object',
    "a fair event's id names an event of the event data, or the fair event is an object that gives slug, name, short_code, start_date and event_logo",
    'the event a fair shows has a logo, or the fair event gives event_logo',
  ],
  component: 'VirtualFair',
  componentDescription: 'A virtual fair, with its events written out.',
});
