// What a source record may hold: one strict zod schema per resource. Every rule of the
// service description is here, each with a message that says what was expected.

import { z } from 'zod';

const text = () => z.string();
// `.meta()` only describes a rule for the JSON Schemas of scripts/builder/json-schemas.ts (the
// editors' and the OpenAPI document's); it changes nothing zod checks.
const nonEmpty = () =>
  text()
    .refine((s) => s.length > 0, 'expected a non-empty string')
    .meta({ minLength: 1 });
const id = () => z.int().positive({ error: 'expected a positive integer id' });
const count = () => z.int().nonnegative({ error: 'expected an integer of 0 or more' });

function isAbsoluteHttpUrl(value: string): boolean {
  if (!/^https?:\/\/[^/?#\s]/i.test(value) || /\s/.test(value)) return false;
  // The scheme is http(s) by the test above, so whether the rest parses is all that is left;
  // canParse() makes no URL object (a company list holds 100,000 of these).
  return URL.canParse(value);
}

// `abort` keeps later checks (which parse the URL) from running on a value that is not one.
const HTTP_URL_START = '^[hH][tT][tT][pP][sS]?://[^/?#\\s]';
const absoluteUrl = () =>
  text()
    .refine(isAbsoluteHttpUrl, { error: 'expected an absolute http(s) URL', abort: true })
    .meta({
      pattern: `${HTTP_URL_START}\\S*$`,
      description:
        'An absolute http(s) URL. JSON Schema checks its form only; that it parses as a URL (WHATWG URL) is checked by the build.',
    });
const mediaPath = () =>
  text()
    .refine((s) => /^\/media\/\S+$/.test(s), 'expected a site-relative path beginning with /media/')
    .meta({ pattern: '^/media/\\S+$' });

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** An ISO 8601 calendar date that exists: 2024-02-29 is one, 2023-02-29 is not. */
export function isCalendarDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // The proleptic Gregorian calendar, as Python's date: by arithmetic, since a Date per check
  // costs more than the rest of an event's validation.
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  return year >= 1 && days !== undefined && day >= 1 && day <= days;
}

// isCalendarDate() as a regular expression, for JSON Schema: the days each month has, and
// 29 February in a leap year of the Gregorian calendar (year 0001 on). test/unit/json-schemas.test.ts
// checks that the two agree.
const LEAP_YEAR = '(?:\\d\\d(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)';
const CALENDAR_DATE =
  '^(?!0000)\\d{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1\\d|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)$' +
  `|^${LEAP_YEAR}-02-29$`;
const isoDate = () =>
  text()
    .refine(isCalendarDate, 'expected a date YYYY-MM-DD that exists on the calendar')
    .meta({ pattern: CALENDAR_DATE, description: 'A date YYYY-MM-DD that exists on the calendar.' });
const hexColour = () => text().regex(/^#[0-9a-fA-F]{6}$/, 'expected a colour of the form #rrggbb');
const uuid = () =>
  text().regex(
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    'expected a lower-case UUID (8-4-4-4-12 hex digits)',
  );

// Labels are non-empty and neither start nor end with white space (what trim() would remove).
const LABEL = '(?:[^,\\s]|[^,\\s][^,]*[^,\\s])';
const TAGS = new RegExp(`^${LABEL}(?:,${LABEL})*$`);
const tags = () =>
  text()
    .refine((s) => TAGS.test(s), 'expected comma-separated labels with no space after a comma and no empty label')
    .meta({ pattern: TAGS.source });

// Each placeholder once: a lookahead that finds it and one that finds no second one.
const ONCE_EACH = ['z', 'x', 'y']
  .map((name) => `(?=[\\s\\S]*\\{${name}\\})(?![\\s\\S]*\\{${name}\\}[\\s\\S]*\\{${name}\\})`)
  .join('');
const tilePattern = () =>
  text()
    .refine(
      (s) => ['{z}', '{x}', '{y}'].every((part) => s.split(part).length === 2),
      'expected a tile pattern holding each of {z}, {x} and {y} exactly once',
    )
    .meta({ pattern: `^${ONCE_EACH}`, description: 'A tile path holding each of {z}, {x} and {y} exactly once.' });

const LONE_SURROGATE = 'expected well-formed Unicode text (no lone surrogates)';

const isPlainObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Reports each string in `value`, the part of a record at `path`, that holds a lone surrogate. */
function reportIllFormed(value: unknown, path: PropertyKey[], ctx: z.RefinementCtx): void {
  if (typeof value === 'string') {
    if (!value.isWellFormed()) ctx.addIssue({ code: 'custom', path, message: LONE_SURROGATE, input: value });
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) reportIllFormed(item, [...path, index], ctx);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) reportIllFormed(item, [...path, key], ctx);
  }
}

/**
 * Every string of a record must be text UTF-8 can encode: a lone surrogate would make the DRF
 * service fail, not answer. One check per record, after the fields' own checks and also when
 * one of them failed, so that one run reports every problem.
 */
function wellFormedText<T extends z.ZodType<object>>(schema: T): T {
  return schema.superRefine(
    (record, ctx) => {
      for (const key in record) {
        const value = (record as Record<string, unknown>)[key];
        // A top-level string, the common case, is checked without making a path for it.
        if (typeof value === 'string') {
          if (!value.isWellFormed())
            ctx.addIssue({ code: 'custom', path: [key], message: LONE_SURROGATE, input: value });
        } else if (value !== null && typeof value === 'object') {
          reportIllFormed(value, [key], ctx);
        }
      }
    },
    { when: (payload) => isPlainObject(payload.value) },
  );
}

// The API writes a company and a texture as zod outputs them: with the keys in this order.
const companySchema = z.strictObject({
  id: id(),
  name: nonEmpty(),
  street: text(),
  zip_code: text(),
  city: text(),
  country_name: nonEmpty(),
  phone: text().nullable(),
  fax: text().nullable(),
  e_mail: text().nullable(),
  platform_plus_status: z.boolean(),
  website: text().nullable(),
  logo: absoluteUrl().nullable(),
  tags: tags().nullable(),
  vf_plus_status: z.boolean(),
});

const eventSchema = z
  .strictObject({
    id: id(),
    name: nonEmpty(),
    slug: nonEmpty(),
    // Shown in the fairs' event lists only; /event/ does not list it.
    short_code: text().nullable(),
    start_date: isoDate(),
    end_date: isoDate(),
    logo: mediaPath().nullable(),
    logo_bg_color: hexColour().nullable(),
  })
  .superRefine((event, ctx) => {
    // zod runs this even when a date failed its own check; compare only two real dates.
    if (isCalendarDate(event.start_date) && isCalendarDate(event.end_date) && event.end_date < event.start_date) {
      ctx.addIssue({
        code: 'custom',
        path: ['end_date'],
        message: `expected a date on or after start_date (${event.start_date})`,
        input: event.end_date,
      });
    }
  });

const zoomSchema = z
  .strictObject({
    min: count(),
    max: count(),
    default: count(),
    booth_zoom_level: count(),
    reverse: z.boolean(),
    booth_section_start: count(),
    booth_detail_start: count(),
    translation_factor_7: z.number().nullable(),
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

// What a fair shows of one event instead of the event record's values, with the event record's
// rules (eventSchema); `event_logo` is the record's `logo`, which a fair cannot show as null.
// The build fills in each field not given from the event record with that id: an object holding
// only `id` is the same as the id alone. When no event record has the id, every field must be
// given (checked across records, in validate.ts).
const fairEventSchema = z.strictObject({
  id: id(),
  slug: nonEmpty().optional(),
  name: nonEmpty().optional(),
  short_code: text().nullable().optional(),
  start_date: isoDate().optional(),
  event_logo: mediaPath().optional(),
});

/**
 * An event id, or an object that starts from one (fairEventSchema). An object is checked on its
 * own first, so that each of its problems is reported at its field: z.union() alone reports one
 * "invalid input" at the item when an object breaks a rule of a field's type (a missing id, a
 * name that is not a string), since the id option fails too. Only a valid object reaches the union.
 */
const fairEventItem = z.preprocess(
  (value, ctx) => {
    if (!isPlainObject(value)) return value;
    // With reportInput, every issue holds its input, as an issue raised here must.
    const result = fairEventSchema.safeParse(value, { reportInput: true });
    if (!result.success) ctx.issues.push(...(result.error.issues as z.core.$ZodRawIssue[]));
    return value;
  },
  z
    .union([id(), fairEventSchema], {
      error: 'expected an event id, or an object with the id and the fields this fair shows instead',
    })
    .meta({
      description:
        "An event id, or an object with the id and what this fair shows instead of the event record's slug, name, short_code, start_date or logo (as event_logo); a field not given is the event record's.",
    }),
);

function eachEventOnce(items: ReadonlyArray<number | { id: number }>): boolean {
  const ids = new Set<number>();
  for (const item of items) ids.add(typeof item === 'number' ? item : item.id);
  return ids.size === items.length;
}

const fairSchema = z.strictObject({
  id: id(),
  slug: text().regex(/^[-a-zA-Z0-9_]+$/, 'expected a slug of letters, digits, hyphens and underscores'),
  name: nonEmpty(),
  link: absoluteUrl(),
  logo: absoluteUrl(),
  has_catalog: z.boolean(),
  events: z
    .array(fairEventItem)
    .min(1, 'expected at least one event id')
    .refine(eachEventOnce, 'expected each event id once')
    .meta({
      uniqueItems: true,
      description:
        "The fair's events, in the order it lists them, each event id once (the build checks this also when an id is given in an object; uniqueItems only sees identical items).",
    }),
  url: absoluteUrl(),
  tiles: z.strictObject({
    tile_pattern: tilePattern(),
    tile_extension: text().regex(/^[a-z0-9]+$/, 'expected a file extension without the dot, such as png'),
    tile_size: z.int().positive({ error: 'expected a positive integer' }),
  }),
  size: z.strictObject({
    width: z.int().positive({ error: 'expected a positive integer' }),
    height: z.int().positive({ error: 'expected a positive integer' }),
  }),
  zoom: zoomSchema,
  show: z.boolean(),
});

// Key order is the API's field order (see companySchema).
const textureSchema = z.strictObject({
  id: uuid(),
  name: nonEmpty(),
  texture: absoluteUrl()
    .refine((s) => /\.(jpe?g|png)$/i.test(new URL(s).pathname), 'expected the URL of a jpg or png image')
    .meta({
      pattern: `${HTTP_URL_START}[^/?#\\s]*/[^?#\\s]*\\.(?:[jJ][pP][eE]?[gG]|[pP][nN][gG])(?:[?#]\\S*)?$`,
      description:
        'The absolute http(s) URL of a jpg or png image. JSON Schema checks its form only; that it parses as a URL (WHATWG URL), and the path it parses to, are checked by the build.',
    }),
  categories: z
    .array(uuid())
    .min(1, 'expected at least one category UUID')
    .refine((ids) => new Set(ids).size === ids.length, 'expected each category once')
    .meta({ uniqueItems: true }),
});

export type Company = z.infer<typeof companySchema>;
export type Event = z.infer<typeof eventSchema>;
export type Fair = z.infer<typeof fairSchema>;
/** An item of a fair's `events`: an event id, or an object with the id and the fields the fair shows instead. */
export type FairEvent = Fair['events'][number];
export type Texture = z.infer<typeof textureSchema>;

// What the JSON Schemas (scripts/builder/json-schemas.ts) cannot say, said in their descriptions;
// test/unit/json-schemas.test.ts lists the same rules and proves that zod and JSON Schema agree
// on every other one.
const URL_PARSES = 'each URL parses as a URL (WHATWG URL)';
const UNIQUE_IDS = 'the ids are unique across the files of the resource';
const BUILD_ONLY = {
  company: [URL_PARSES, UNIQUE_IDS],
  event: ['end_date is on or after start_date', UNIQUE_IDS],
  virtualfair: [
    'zoom: min <= default <= max',
    URL_PARSES,
    UNIQUE_IDS,
    'each event id once in a fair, whether given alone or in an object',
    "a fair event's id names an event of the event data, or the fair event is an object that gives slug, name, short_code, start_date and event_logo",
    'the event a fair shows has a logo, or the fair event gives event_logo',
  ],
  'virtualbooth-texture': [URL_PARSES, UNIQUE_IDS],
} as const;

const describeRecord = (what: string, rules: readonly string[]) =>
  `${what}. A file of data/ holds one record or an array of them. Checked by the build only, as ` +
  `JSON Schema cannot express it: every text is well-formed Unicode (no lone surrogates); ${rules.join('; ')}.`;

export const SCHEMAS = {
  company: wellFormedText(companySchema).describe(describeRecord('A company', BUILD_ONLY.company)),
  event: wellFormedText(eventSchema).describe(describeRecord('An event', BUILD_ONLY.event)),
  virtualfair: wellFormedText(fairSchema).describe(describeRecord('A virtual fair', BUILD_ONLY.virtualfair)),
  'virtualbooth-texture': wellFormedText(textureSchema).describe(
    describeRecord('A virtual booth texture', BUILD_ONLY['virtualbooth-texture']),
  ),
} as const;
