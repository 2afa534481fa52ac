// DRF 3.14's SearchFilter (`?search=`): how the value splits into terms, and how a record matches
// them on a PostgreSQL database in UTF-8 (Django's icontains, istartswith and iexact lookups).

import { PYTHON_SPACE, pythonSplit } from './python-text.ts';
import { pgUpper } from './upper-case.ts';

/** DRF's lookups by the prefix of a search field; `@` (full text) and `$` (regex) are not supported. */
export const SEARCH_LOOKUPS = { '^': 'istartswith', '=': 'iexact', '': 'icontains' } as const;

export type SearchLookup = (typeof SEARCH_LOOKUPS)[keyof typeof SEARCH_LOOKUPS];

/** A field of `search_fields`, its prefix read. */
export interface SearchField {
  field: string;
  lookup: SearchLookup;
}

/** The search parameter's name (DRF's SEARCH_PARAM). */
export const SEARCH_PARAM = 'search';

/** What a search field's prefix is: one of DRF's four, or none. */
export function searchPrefix(entry: string): '^' | '=' | '@' | '$' | '' {
  const first = entry[0];
  return first === '^' || first === '=' || first === '@' || first === '$' ? first : '';
}

/** A `search_fields` entry (`^city`), read as DRF's construct_search reads it; `@` and `$` are the caller's to refuse. */
export function searchField(entry: string): SearchField {
  const prefix = searchPrefix(entry);
  if (prefix === '@' || prefix === '$') throw new Error(`the ${prefix} prefix of ${entry} is not supported`);
  return { field: entry.slice(prefix.length), lookup: SEARCH_LOOKUPS[prefix] };
}

const COMMA_OR_SPACE = new RegExp(`[,]|${PYTHON_SPACE}`);

/** get_search_terms(): null characters removed, commas as spaces, then Python's str.split(). */
export function searchTerms(raw: string): string[] {
  const text = raw.replaceAll('\0', '');
  // Most values are one plain word: no copy, no split.
  if (!COMMA_OR_SPACE.test(text)) return text === '' ? [] : [text];
  return pythonSplit(text.replaceAll(',', ' '));
}

/**
 * A value as PostgreSQL casts it to text (`x::text`): text as it is, integers in decimal, booleans
 * as true or false; null has no text, and matches nothing.
 */
export function pgText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return null;
}

/** A value's text as a search compares it: PostgreSQL's upper case of its text, null for null. */
export function searchText(value: unknown): string | null {
  const text = pgText(value);
  return text === null ? null : pgUpper(text);
}

/**
 * Whether a value's text matches a term: `UPPER(x::text) LIKE UPPER('%term%')` and its kin. The
 * pattern's own `%`, `_` and `\` are escaped by Django, so a term is a plain substring. LIKE and
 * `=` compare the bytes, so the upper cases compare code point by code point.
 */
export function matchesTerm(upperValue: string, upperTerm: string, lookup: SearchLookup): boolean {
  switch (lookup) {
    case 'icontains':
      return upperValue.includes(upperTerm);
    case 'istartswith':
      return upperValue.startsWith(upperTerm);
    case 'iexact':
      return upperValue === upperTerm;
  }
}
