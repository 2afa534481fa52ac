// The bytes DRF's JSONRenderer writes: Python's json.dumps with separators (',', ':'),
// ensure_ascii=False, then U+2028/U+2029 escaped. Clients were written against these bytes,
// so JSON.stringify alone is not enough: it writes a whole-valued float as `2`, not `2.0`.

/** A value that DRF serialises as a Python float (a FloatField), so `2` is written `2.0`. */
export class Float {
  constructor(readonly value: number) {}
}

export type Json = null | boolean | number | string | Float | Json[] | { [key: string]: Json };
/** JSON without floats: JSON.stringify already writes it as DRF does, but for U+2028/U+2029. */
export type PlainJson = null | boolean | number | string | PlainJson[] | { [key: string]: PlainJson };

const LINE_SEPARATORS = /[\u2028\u2029]/g;

function escapeSeparator(char: string): string {
  return char === '\u2028' ? '\\u2028' : '\\u2029';
}

/**
 * Python's repr() of a float: the shortest round-trip digits (as JavaScript also finds them),
 * in fixed notation with at least one decimal when the decimal exponent is in [-4, 16),
 * otherwise in exponent notation with a sign and at least two exponent digits.
 */
export function pythonFloat(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`${value} is not valid JSON (DRF sets allow_nan=False)`);
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa = '', exp = '0'] = value.toExponential().split('e');
  const exponent = Number(exp);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const expSign = exponent < 0 ? '-' : '+';
    return `${sign}${fraction}e${expSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction || '0'}`;
}

function encodeValue(value: Json): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      // JSON.stringify escapes exactly what Python's ensure_ascii=False encoder escapes
      // (quote, backslash, control characters with the same short forms and lower-case \u00xx).
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isSafeInteger(value)) throw new TypeError(`${value} is not an integer; wrap floats in Float`);
      return String(value);
  }
  if (value instanceof Float) return pythonFloat(value.value);
  if (Array.isArray(value)) return `[${value.map(encodeValue).join(',')}]`;
  let out = '{';
  let first = true;
  for (const key in value) {
    out += `${first ? '' : ','}${JSON.stringify(key)}:${encodeValue(value[key] as Json)}`;
    first = false;
  }
  return `${out}}`;
}

/** Encodes a value to the exact text DRF would send (keys in insertion order). */
export function encode(value: Json): string {
  return encodeValue(value).replace(LINE_SEPARATORS, escapeSeparator);
}

/**
 * The same bytes as encode() for values without Float, through the native encoder: the lists
 * of a large catalogue are mostly such values. Integers only, as in encode().
 */
export function encodePlain(value: PlainJson): string {
  const text = JSON.stringify(value);
  // includes() is a plain scan, several times faster than a regular expression on a 40 MB list.
  return text.includes('\u2028') || text.includes('\u2029') ? text.replace(LINE_SEPARATORS, escapeSeparator) : text;
}
