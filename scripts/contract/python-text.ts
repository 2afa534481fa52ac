// Python's own readings of a text, where the DRF service hands a query value to Python: what
// str.strip() and str.split() take for white space, and the digits int() and Decimal() accept.

/**
 * The characters str.isspace() is true of (checked against CPython 3.11 over every code point):
 * JavaScript's \s differs, taking U+FEFF and leaving out U+001C..U+001F and U+0085.
 */
export const PYTHON_SPACE =
  '[\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';

const EDGES = new RegExp(`^${PYTHON_SPACE}+|${PYTHON_SPACE}+$`, 'g');
const RUNS = new RegExp(`${PYTHON_SPACE}+`);

/** str.strip() without arguments. */
export function pythonStrip(text: string): string {
  return text.replace(EDGES, '');
}

/** str.split() without arguments: the words between runs of white space, none empty. */
export function pythonSplit(text: string): string[] {
  return pythonStrip(text)
    .split(RUNS)
    .filter((word) => word !== '');
}

const DECIMAL_DIGIT = /\p{Nd}/u;

/**
 * A text's decimal digits of any script as ASCII digits (`٣` is 3), as int() and Decimal() read
 * them. Unicode assigns decimal digits only in runs that go 0 to 9 (a stability guarantee), so a
 * digit's value is its distance from the start of its run, modulo 10.
 */
export function asciiDigits(text: string): string {
  return text.replace(/\P{ASCII}/gu, (char) => {
    if (!DECIMAL_DIGIT.test(char)) return char;
    let start = char.codePointAt(0) as number;
    while (DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
    return String(((char.codePointAt(0) as number) - start) % 10);
  });
}
