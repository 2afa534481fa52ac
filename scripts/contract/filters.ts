// django-filter 23.1's exact lookups (DjangoFilterBackend with `filterset_fields`), as they read a
// query value through Django 3.2's form fields: which values filter, which are ignored (an empty
// value, a boolean it cannot read), and the 400 body of those it refuses.

import { asciiDigits, PYTHON_SPACE, pythonStrip } from './python-text.ts';

/** The kinds of field a filter reads a value for, after the record's field kind. */
export const FILTER_KINDS = ['text', 'integer', 'boolean', 'date', 'uuid'] as const;
export type FilterKind = (typeof FILTER_KINDS)[number];

/** A field of `filterset_fields`, with the kind of its values. */
export interface FilterField {
  field: string;
  kind: FilterKind;
}

/** A record must hold exactly this value in the field (the value as the record's JSON holds it). */
export interface Condition {
  field: string;
  /** The value in the record's own form: a text, a canonical integer's digits, a boolean. */
  equals: string | boolean;
  kind: FilterKind;
}

/** The messages of Django's form fields. */
export const FILTER_MESSAGES = {
  nullCharacters: 'Null characters are not allowed.',
  integer: 'Enter a number.',
  date: 'Enter a valid date.',
  uuid: 'Enter a valid UUID.',
} as const;

type Reading = { ignored: true } | { value: string | boolean } | { error: string };
const IGNORED: Reading = { ignored: true };

/** forms.CharField: stripped, an empty value ignored, a null character refused. */
function readText(raw: string): Reading {
  const value = pythonStrip(raw);
  if (value === '') return IGNORED;
  return value.includes('\0') ? { error: FILTER_MESSAGES.nullCharacters } : { value };
}

// What Python's Decimal() reads once its white space and underscores are gone, digits in ASCII.
const DECIMAL = /^([+-]?)(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:e([+-]?\d+))?$/i;
/** Beyond this many digits no integer of a record (a JavaScript safe integer) can be equal. */
const MOST_DIGITS = 20;

/**
 * django-filter's NumberFilter (a forms.DecimalField) on an integer field: any finite decimal,
 * which Django's IntegerField then truncates toward zero (`?id=2.9` filters id 2). The value is
 * the integer's canonical digits, or null for one too large for any record to hold.
 */
function readInteger(raw: string): Reading {
  if (raw === '') return IGNORED;
  const text = asciiDigits(pythonStrip(raw).replaceAll('_', ''));
  const match = DECIMAL.exec(text);
  if (!match) return { error: FILTER_MESSAGES.integer };
  const [, sign, whole = '', fraction = '', onlyFraction, exponentText = '0'] = match;
  const digits = onlyFraction === undefined ? whole + fraction : onlyFraction;
  const exponent = Number(exponentText) - (onlyFraction === undefined ? fraction.length : onlyFraction.length);
  const significant = digits.replace(/^0+/, '');
  let integer: string;
  if (significant === '') integer = '0';
  else if (exponent >= 0) integer = exponent > MOST_DIGITS ? 'beyond' : significant + '0'.repeat(exponent);
  else integer = significant.slice(0, Math.max(0, significant.length + exponent)) || '0';
  if (integer.length > MOST_DIGITS) integer = 'beyond';
  return { value: sign === '-' && integer !== '0' ? `-${integer}` : integer };
}

/** django-filter's BooleanWidget: 1, 0, true, false in any case; anything else is no filter. */
function readBoolean(raw: string): Reading {
  const value = ({ '1': true, '0': false, true: true, false: false } as Record<string, boolean>)[raw.toLowerCase()];
  return value === undefined ? IGNORED : { value };
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
// Python's _strptime, sorted longest first as it sorts them.
const byLength = (names: string[]) => [...names].sort((a, b) => b.length - a.length).join('|');
const DIRECTIVES: Record<string, string> = {
  Y: '(?<Y>\\p{Nd}\\p{Nd}\\p{Nd}\\p{Nd})',
  y: '(?<y>\\p{Nd}\\p{Nd})',
  m: '(?<m>1[0-2]|0[1-9]|[1-9])',
  d: '(?<d>3[0-1]|[1-2]\\p{Nd}|0[1-9]|[1-9]| [1-9])',
  B: `(?<B>${byLength(MONTHS)})`,
  b: `(?<b>${byLength(MONTHS.map((month) => month.slice(0, 3)))})`,
};
/** Django 3.2's DATE_INPUT_FORMATS, tried in this order. */
const DATE_FORMATS = [
  '%Y-%m-%d',
  '%m/%d/%Y',
  '%m/%d/%y',
  '%b %d %Y',
  '%b %d, %Y',
  '%d %b %Y',
  '%d %b, %Y',
  '%B %d %Y',
  '%B %d, %Y',
  '%d %B %Y',
  '%d %B, %Y',
];
/** Each format as Python's strptime compiles it: case-insensitive, a space for any white space. */
const DATE_PATTERNS = DATE_FORMATS.map(
  (format) =>
    new RegExp(
      `^${format.replace(/ /g, `${PYTHON_SPACE}+`).replace(/%(\w)/g, (_, directive: string) => DIRECTIVES[directive] as string)}`,
      'iu',
    ),
);
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * forms.DateField: stripped, then each input format tried with strptime, whose match must take
 * the whole value and name a day of the calendar. The value is the date as a record holds it.
 */
function readDate(raw: string): Reading {
  if (raw === '') return IGNORED;
  // Python's case-insensitive matching takes the dotted and dotless i for an i; JavaScript's does not.
  const value = pythonStrip(raw).replace(/[İı]/g, 'i');
  for (const pattern of DATE_PATTERNS) {
    const match = pattern.exec(value);
    if (!match || match[0].length !== value.length) continue;
    const groups = match.groups as Record<string, string | undefined>;
    const number = (text: string) => Number(asciiDigits(text.trim()));
    let year = groups.Y !== undefined ? number(groups.Y) : number(groups.y as string);
    if (groups.y !== undefined) year += year <= 68 ? 2000 : 1900;
    const monthName = (groups.B ?? groups.b)?.toLowerCase();
    const month = monthName ? MONTHS.findIndex((name) => name.startsWith(monthName)) + 1 : number(groups.m as string);
    const day = number(groups.d as string);
    const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
    const days = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number);
    if (year < 1 || day > days) continue;
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    return { value: `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}` };
  }
  return { error: FILTER_MESSAGES.date };
}

/**
 * forms.UUIDField: stripped, an empty value ignored; then Python's uuid.UUID(): `urn:` and `uuid:`
 * removed, braces at either end, hyphens anywhere, and 32 hexadecimal digits left.
 */
function readUuid(raw: string): Reading {
  const text = pythonStrip(raw);
  if (text === '') return IGNORED;
  const hex = text
    .replaceAll('urn:', '')
    .replaceAll('uuid:', '')
    .replace(/^[{}]+|[{}]+$/g, '')
    .replaceAll('-', '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) return { error: FILTER_MESSAGES.uuid };
  const lower = hex.toLowerCase();
  return {
    value: `${lower.slice(0, 8)}-${lower.slice(8, 12)}-${lower.slice(12, 16)}-${lower.slice(16, 20)}-${lower.slice(20)}`,
  };
}

const READERS: Record<FilterKind, (raw: string) => Reading> = {
  text: readText,
  // Infinity and NaN, which Decimal() reads, are refused with the same message: neither matches DECIMAL.
  integer: readInteger,
  boolean: readBoolean,
  date: readDate,
  uuid: readUuid,
};

export interface ReadFilters {
  conditions: Condition[];
  /** django-filter's 400 body, `{"field": ["message"]}` for every field refused, in the filters' order; null when none is. */
  errors: Record<string, string[]> | null;
}

/** The filters of a request: `params` holds each parameter's last value, as Django's QueryDict.get. */
export function readFilters(params: ReadonlyMap<string, string>, fields: readonly FilterField[]): ReadFilters {
  const conditions: Condition[] = [];
  let errors: Record<string, string[]> | null = null;
  for (const { field, kind } of fields) {
    const raw = params.get(field);
    if (raw === undefined) continue;
    const reading = READERS[kind](raw);
    if ('error' in reading) {
      errors ??= {};
      errors[field] = [reading.error];
    } else if ('value' in reading) conditions.push({ field, kind, equals: reading.value });
  }
  return { conditions, errors };
}

/** Whether a record holds every condition's value; null holds none. */
export function filterMatcher(
  conditions: readonly Condition[],
): (record: Readonly<Record<string, unknown>>) => boolean {
  return (record) =>
    conditions.every(({ field, kind, equals }) => {
      const value = record[field];
      if (value === null || value === undefined) return false;
      return kind === 'integer' ? String(value) === equals : value === equals;
    });
}

/** The text a request writes to filter on a record's value; undefined for a value no filter reads. */
export function requestText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isSafeInteger(value))) return String(value);
  return undefined;
}

/**
 * Whether a request writing `text` for `filter` keeps the records holding `value`: not for a null
 * (an exact filter matches none), nor for a text django-filter reads otherwise (empty, which it
 * ignores; with white space around it, which it strips; with a null character, which it refuses).
 */
export function keepsValue(filter: FilterField, text: string, value: unknown): boolean {
  const { conditions, errors } = readFilters(new Map([[filter.field, text]]), [filter]);
  return errors === null && conditions.length === 1 && filterMatcher(conditions)({ [filter.field]: value });
}

/**
 * The texts a request can write to keep some of `records` under `filter`, each with how many
 * records it keeps, in the order the records first hold them; a value no request reaches has none.
 */
export function filterValueCounts(
  records: ReadonlyArray<Readonly<Record<string, unknown>>>,
  filter: FilterField,
): Map<string, number> {
  const counts = new Map<string, number>();
  const refused = new Set<string>();
  for (const record of records) {
    const held = record[filter.field];
    const text = requestText(held);
    if (text === undefined || refused.has(text)) continue;
    const count = counts.get(text);
    if (count !== undefined) counts.set(text, count + 1);
    else if (keepsValue(filter, text, held)) counts.set(text, 1);
    else refused.add(text);
  }
  return counts;
}
