// The kinds of field a record may hold, each with its rule and the message that says what was
// expected: made from zod by fieldKinds(z), so a declaration names them without loading zod.

import type { z as Zod } from 'zod';

type ZodNamespace = typeof Zod;

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

function isAbsoluteHttpUrl(value: string): boolean {
  if (!/^https?:\/\/[^/?#\s]/i.test(value) || /\s/.test(value)) return false;
  // The scheme is http(s) by the test above, so whether the rest parses is all that is left;
  // canParse() makes no URL object (a company list holds 100,000 of these).
  return URL.canParse(value);
}

/** The start of an absolute http(s) URL, for the JSON Schema patterns. */
export const HTTP_URL_START = '^[hH][tT][tT][pP][sS]?://[^/?#\\s]';

// Labels are non-empty and neither start nor end with white space (what trim() would remove).
const LABEL = '(?:[^,\\s]|[^,\\s][^,]*[^,\\s])';
const TAGS = new RegExp(`^${LABEL}(?:,${LABEL})*$`);

// Each placeholder once: a lookahead that finds it and one that finds no second one.
const ONCE_EACH = ['z', 'x', 'y']
  .map((name) => `(?=[\\s\\S]*\\{${name}\\})(?![\\s\\S]*\\{${name}\\}[\\s\\S]*\\{${name}\\})`)
  .join('');

/** The field kinds, made with `z` (zod's namespace): `.meta()` only describes a rule for the JSON Schemas. */
export function fieldKinds(z: ZodNamespace) {
  const text = () => z.string();
  return {
    z,
    text,
    nonEmpty: () =>
      text()
        .refine((s) => s.length > 0, 'expected a non-empty string')
        .meta({ minLength: 1 }),
    id: () => z.int().positive({ error: 'expected a positive integer id' }),
    count: () => z.int().nonnegative({ error: 'expected an integer of 0 or more' }),
    // `abort` keeps later checks (which parse the URL) from running on a value that is not one.
    absoluteUrl: () =>
      text()
        .refine(isAbsoluteHttpUrl, { error: 'expected an absolute http(s) URL', abort: true })
        .meta({
          pattern: `${HTTP_URL_START}\\S*$`,
          description:
            'An absolute http(s) URL. JSON Schema checks its form only; that it parses as a URL (WHATWG URL) is checked by the build.',
        }),
    mediaPath: () =>
      text()
        .refine((s) => /^\/media\/\S+$/.test(s), 'expected a site-relative path beginning with /media/')
        .meta({ pattern: '^/media/\\S+$' }),
    isoDate: () =>
      text()
        .refine(isCalendarDate, 'expected a date YYYY-MM-DD that exists on the calendar')
        .meta({ pattern: CALENDAR_DATE, description: 'A date YYYY-MM-DD that exists on the calendar.' }),
    hexColour: () => text().regex(/^#[0-9a-fA-F]{6}$/, 'expected a colour of the form #rrggbb'),
    uuid: () =>
      text().regex(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
        'expected a lower-case UUID (8-4-4-4-12 hex digits)',
      ),
    tags: () =>
      text()
        .refine((s) => TAGS.test(s), 'expected comma-separated labels with no space after a comma and no empty label')
        .meta({ pattern: TAGS.source }),
    tilePattern: () =>
      text()
        .refine(
          (s) => ['{z}', '{x}', '{y}'].every((part) => s.split(part).length === 2),
          'expected a tile pattern holding each of {z}, {x} and {y} exactly once',
        )
        .meta({ pattern: `^${ONCE_EACH}`, description: 'A tile path holding each of {z}, {x} and {y} exactly once.' }),
  };
}

export type FieldKinds = ReturnType<typeof fieldKinds>;
