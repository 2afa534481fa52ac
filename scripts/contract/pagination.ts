// DRF's PageNumberPagination on top of Django's Paginator: which page a `?page=` value names,
// and the absolute next/previous links DRF builds from the request URL.

/**
 * The page size of the paginated lists unless the settings give another (DRF's PAGE_SIZE in the
 * contract's service): the settings' default, and what the import keeps when it cannot tell.
 */
export const DEFAULT_PAGE_SIZE = 10;

/** Django's Paginator with allow_empty_first_page: an empty list still has page 1. */
export function pageCount(count: number, pageSize: number): number {
  return Math.max(1, Math.ceil(count / pageSize));
}

// What Python's int() accepts: surrounding whitespace, a sign, and underscores between
// decimal digits of any script (`２` is 2). `2.0`, `` and `abc` are not integers.
const PYTHON_INT = /^[+-]?\p{Nd}+(?:_\p{Nd}+)*$/u;
const DECIMAL_DIGIT = /\p{Nd}/u;
// The white space Python's int() strips (checked character by character against CPython):
// JavaScript's \s without U+FEFF, plus U+0085; unlike str.strip(), not U+001C..U+001F.
const SPACE = '[\\t\\n\\v\\f\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const PYTHON_WHITESPACE = new RegExp(`^${SPACE}+|${SPACE}+$`, 'g');

/**
 * Unicode assigns decimal digits only in runs that go 0 to 9 (a stability guarantee), so a
 * digit's value is its distance from the start of its run, modulo 10.
 */
function toAsciiDigits(text: string): string {
  return text.replace(/\P{ASCII}/gu, (char) => {
    let start = char.codePointAt(0) as number;
    while (DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
    return String(((char.codePointAt(0) as number) - start) % 10);
  });
}

/**
 * The page a `?page=` value names: a page number, `last`, or null where DRF answers 404
 * "Invalid page." whatever the list holds. Whether a number is beyond the last page is for
 * the caller to tell. Digits are kept as text, so a huge number stays an invalid page.
 */
export function parsePage(raw: string): string | null {
  if (raw === 'last') return raw;
  const text = raw.replace(PYTHON_WHITESPACE, '');
  if (!PYTHON_INT.test(text)) return null;
  const digits = toAsciiDigits(text.replaceAll('_', ''))
    .replace(/^\+/, '')
    .replace(/^0+(?=\d)/, '');
  return digits.startsWith('-') || digits === '0' ? null : digits;
}

/** Python's urllib.parse.quote_plus: form encoding with `+` for space and upper-case escapes. */
export function quotePlus(text: string): string {
  // Most values (`json`, page numbers) need no escape: one test instead of three passes.
  if (/^[\w.~-]*$/.test(text)) return text;
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll('%20', '+');
}

/** A query string of `pairs` in their order, each key and value form-encoded as DRF's links are. */
export function formQuery(pairs: Iterable<readonly [string, string]>): string {
  return Array.from(pairs, ([key, value]) => `${quotePlus(key)}=${quotePlus(value)}`).join('&');
}

/** DRF's replace_query_param/remove_query_param result: keys sorted, values form-encoded. */
export function buildUrl(base: string, path: string, query: Readonly<Record<string, string>>): string {
  const search = formQuery(
    Object.keys(query)
      .sort()
      .map((key) => [key, query[key] as string] as const),
  );
  return `${base}${path}${search ? `?${search}` : ''}`;
}

export interface PageLinks {
  next: string | null;
  previous: string | null;
}

/**
 * Links of `page` out of `pages`. `query` holds the other parameters the links keep.
 * The link to page 1 drops `page` altogether, as DRF's remove_query_param does.
 */
export function pageLinks(
  base: string,
  path: string,
  query: Readonly<Record<string, string>>,
  page: number,
  pages: number,
): PageLinks {
  const linkTo = (pageNumber: number) =>
    buildUrl(base, path, pageNumber === 1 ? query : { ...query, page: String(pageNumber) });
  return {
    next: page < pages ? linkTo(page + 1) : null,
    previous: page > 1 ? linkTo(page - 1) : null,
  };
}
