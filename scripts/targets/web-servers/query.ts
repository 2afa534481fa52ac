// Regular expressions over the raw (undecoded) query string, for web servers that route with
// regexes and cannot decode a value: nginx ($args, PCRE), Apache (%{QUERY_STRING}, PCRE) and
// Caddy ({query}, Go RE2). Django decodes before DRF compares, so each pattern accepts every
// way a client may spell the same decoded text: a character as itself or as %XX in either
// case, `+` for a space. The patterns use only syntax the three engines share (no lookahead,
// no backslash escapes, which each config language treats differently) and never a brace.

/** %XX of one byte, each hex digit in either case: `%2[dD]`. */
function percentByte(byte: number): string {
  return `%${[...byte.toString(16).toUpperCase().padStart(2, '0')]
    .map((digit) => (/[A-F]/.test(digit) ? `[${digit}${digit.toLowerCase()}]` : digit))
    .join('')}`;
}

/** A character as a client may send it: raw (when it needs no escape) or percent-encoded. */
function encodedChar(char: string): string {
  const escapes = [...Buffer.from(char, 'utf8')].map(percentByte).join('');
  if (/^[A-Za-z0-9_~-]$/.test(char)) return `(?:${char}|${escapes})`;
  if (char === '.') return `(?:[.]|${escapes})`;
  return escapes;
}

/** Matches exactly the spellings of `text` (ASCII letters, digits, `_~.-`): Django decodes them all to it. */
export function encodedLiteral(text: string): string {
  if (!/^[A-Za-z0-9_.~-]+$/.test(text)) throw new Error(`not a plain query word: ${text}`);
  return [...text].map(encodedChar).join('');
}

/** Code points of Python's str.isspace(): what DRF's `term.strip()` removes around an ordering term. */
const STRIP_WHITESPACE = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
  0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
];

/** What Python's int() strips around a page number: the same without U+001C..U+001F. */
const INT_WHITESPACE = STRIP_WHITESPACE.filter((codePoint) => codePoint < 0x1c || codePoint > 0x1f);

interface Trie {
  [hexDigit: string]: Trie;
}

/** A hex digit in either case: `[Aa]`, `5`. */
function hexDigit(digit: string): string {
  return /[A-F]/.test(digit) ? `[${digit}${digit.toLowerCase()}]` : digit;
}

/**
 * The percent-encoded UTF-8 spellings of a set of hex strings (`E28080`), written as a trie so
 * the pattern stays short: `%[Ee]2%80%(?:8[0-9Aa]|...)`. Siblings that end alike share a class.
 */
function renderTrie(node: Trie, depth: number): string {
  const byRest = new Map<string, string[]>();
  for (const digit of Object.keys(node).sort()) {
    const rest = renderTrie(node[digit] as Trie, depth + 1);
    byRest.set(rest, [...(byRest.get(rest) ?? []), digit]);
  }
  const alternatives = [...byRest].map(([rest, digits]) => {
    const charClass =
      digits.length === 1
        ? hexDigit(digits[0] as string)
        : `[${digits.map((digit) => (/[A-F]/.test(digit) ? digit + digit.toLowerCase() : digit)).join('')}]`;
    return `${depth % 2 === 0 ? '%' : ''}${charClass}${rest}`;
  });
  if (alternatives.length <= 1) return alternatives[0] ?? '';
  return `(?:${alternatives.join('|')})`;
}

function whitespace(codePoints: readonly number[]): string {
  const root: Trie = {};
  for (const codePoint of codePoints) {
    let node = root;
    for (const digit of Buffer.from(String.fromCodePoint(codePoint), 'utf8').toString('hex').toUpperCase())
      node = node[digit] ??= {};
  }
  // `+` is how a form-encoded query writes a space.
  return `(?:[+]|${renderTrie(root, 0).replace(/^\(\?:(.*)\)$/, '$1')})`;
}

export const STRIP_SPACE = whitespace(STRIP_WHITESPACE);
export const INT_SPACE = whitespace(INT_WHITESPACE);

/**
 * The group that holds a value: group 1, or a named group (`(?P<name>…)`), which nginx needs:
 * it percent-encodes a numbered capture again (`%` → `%25`) when the request's path was encoded.
 */
const group = (name?: string) => (name ? `(?P<${name}>` : '(');

/**
 * Group 1 (or `name`) is the value of the last `key` in the query, as Django's QueryDict.get
 * reads it (the last repeated key wins; `key` alone is an empty value). No match: the key is
 * absent. The greedy `(?:.*&)?` backtracks from the end, so the first key found is the last sent.
 */
export function lastValue(key: string, name?: string): string {
  return `^(?:.*&)?${encodedLiteral(key)}(?:=${group(name)}[^&]*))?(?:&.*)?$`;
}

/** Group 1 (or `name`) is an ordering term without the whitespace around it (DRF strips each term). */
export function stripped(name?: string): string {
  return `^${STRIP_SPACE}*${group(name)}.*?)${STRIP_SPACE}*$`;
}

/** An ordering value that DRF reads as `term` once stripped: the term with whitespace around it. */
export function paddedTerm(term: string): string {
  return `^${STRIP_SPACE}*${encodedLiteral(term)}${STRIP_SPACE}*$`;
}

/** A stripped ordering term that DRF reads as `term`. */
export function orderingTerm(term: string): string {
  return `^${encodedLiteral(term)}$`;
}

/** A value holding a comma, raw or encoded: an ordering by several fields. */
export const HAS_COMMA = '(?:,|%2[cC])';

/**
 * A page value that Python's int() reads as a positive number whose digits are plain ASCII:
 * group 1 is the number without its leading zeros. `+` is a space here; the sign is `%2B`.
 */
export const PAGE_NUMBER = `^${INT_SPACE}*(?:%2[bB])?(?:0|%30)*([1-9][0-9]*)${INT_SPACE}*$`;

/** `page=last` (compared as it is, not stripped, by DRF). */
export const PAGE_LAST = `^${encodedLiteral('last')}$`;

/** A format value DRF renders (`api`, `json`): compared as it is, not stripped. */
export function formatValue(format: string): string {
  return `^${encodedLiteral(format)}$`;
}

/** Any of the format values DRF renders. */
export function formatValues(formats: readonly string[]): string {
  return `^(?:${formats.map(encodedLiteral).join('|')})$`;
}

/** A path (decoded, as the server matches it) exactly, case-sensitive; each special character in a class. */
export function exactPath(path: string): string {
  return `^${path.replace(/[.*+?^$()[\]{}|]/g, (char) => `[${char}]`)}$`;
}

/** Characters a client may leave unencoded in a query value besides the unreserved ones (RFC 3986 sub-delims and the like). */
const RAW_IN_VALUE = /^[!()*,:@/;]$/;

/** A character of a value as a client may send it: raw where a query may hold it, a space as `+`, or percent-encoded. */
function valueChar(char: string): string {
  const escapes = [...Buffer.from(char, 'utf8')].map(percentByte).join('');
  if (char === ' ') return `(?:[+]|${escapes})`;
  if (/^[A-Za-z0-9_.~-]$/.test(char)) return encodedChar(char);
  if (RAW_IN_VALUE.test(char)) return `(?:[${char}]|${escapes})`;
  return escapes;
}

/** A letter in either case, raw or percent-encoded (django-filter's BooleanWidget lowers the value). */
function eitherCase(char: string): string {
  const cases = [...new Set([char.toLowerCase(), char.toUpperCase()])];
  return `(?:[${cases.join('')}]|${cases.map((one) => percentByte(one.charCodeAt(0))).join('|')})`;
}

/**
 * The spellings of a query value that django-filter reads as `value` of a field of `kind`
 * (contract/filters.ts), over the raw query: each character raw or percent-encoded (its UTF-8
 * bytes, a hex digit in either case), a space as `+`; text, dates and UUIDs with Python's white
 * space around them, which the form field strips, and integers with a `+` sign and leading zeros
 * too, which it reads away. `exact` (a paginated list, whose page links repeat the value as
 * read) takes only the spellings that decode to `value` itself. Other spellings (a decimal `2.0`,
 * an upper-case UUID, raw bytes beyond ASCII) are not matched: refused, never another answer.
 */
export function filterValuePattern(kind: string, value: string, exact: boolean): string {
  const literal = [...value].map(valueChar).join('');
  if (kind === 'boolean') {
    const word = value === 'true' ? 'true' : 'false';
    return `^(?:${encodedChar(value === 'true' ? '1' : '0')}|${[...word].map(eitherCase).join('')})$`;
  }
  if (exact) return `^${literal}$`;
  if (kind === 'integer') {
    const negative = value.startsWith('-');
    const digits = negative ? value.slice(1) : value;
    const sign = negative ? '(?:-|%2[dD])' : '(?:%2[bB])?';
    const number = digits === '0' ? '(?:0|%30)+' : `(?:0|%30)*${[...digits].map(valueChar).join('')}`;
    return `^${STRIP_SPACE}*${sign}${number}${STRIP_SPACE}*$`;
  }
  return `^${STRIP_SPACE}*${literal}${STRIP_SPACE}*$`;
}

/** A value that is not empty: a key with one is counted among a request's filters. */
export const NOT_EMPTY = '.';

/**
 * The state a configuration writes of a request to a list with settings, `<format>:<keys>:<filter>`:
 * the format read (`api`, `json` or none), each settings key sent with a value followed by `;`
 * (a comma would end a mod_rewrite flag), and the pre-rendered filter whose value matched. This pattern is a request the list's
 * own files answer: no key but, on a list that orders itself, `ordering`.
 */
export function listState(settings: { ownOrdering: boolean }): string {
  return `^[^:]*:${settings.ownOrdering ? '(?:ordering;)?' : ''}:$`;
}

/** A request a pre-rendered filter answers: its key alone, its value matched; on a paginated list, no format. */
export function filterState(settings: { paginated: boolean; filters: ReadonlyArray<{ field: string }> }): string {
  const fields = settings.filters.map(({ field }) => `${field};:${field}`).join('|');
  return `^${settings.paginated ? '' : '[^:]*'}:(?:${fields})$`;
}
