// scripts/contract/json.ts: the encoder must write the exact bytes of DRF's JSONRenderer
// (Python json.dumps with separators=(',', ':'), ensure_ascii=False, allow_nan=False, then
// U+2028/U+2029 escaped). Every expectation is a literal string, never computed.

import { describe, expect, it } from 'vitest';
import { encode, Float, type Json, pythonFloat } from '../../scripts/contract/json.ts';

describe('encode: layout', () => {
  it.each<[string, Json, string]>([
    ['compact object', { id: 1, name: 'x' }, '{"id":1,"name":"x"}'],
    ['compact array', [1, 2, 3], '[1,2,3]'],
    ['nested', { a: [{ b: null }, true, false] }, '{"a":[{"b":null},true,false]}'],
    ['empty object', {}, '{}'],
    ['empty array', [], '[]'],
    ['null', null, 'null'],
    ['negative integer', -12, '-12'],
    ['zero', 0, '0'],
  ])('%s', (_label, value, expected) => {
    expect(encode(value)).toBe(expected);
  });

  it('writes no trailing newline', () => {
    expect(encode({ a: 1 }).endsWith('}')).toBe(true);
    expect(encode([])).toBe('[]');
  });

  it('keeps keys in insertion order, not sorted', () => {
    expect(encode({ zeta: 1, alpha: 2, mid: 3 })).toBe('{"zeta":1,"alpha":2,"mid":3}');
    expect(encode({ start_date: 'a', end_date: 'b', id: 3 })).toBe('{"start_date":"a","end_date":"b","id":3}');
  });
});

describe('encode: strings', () => {
  it.each<[string, string, string]>([
    ['plain ASCII', 'abc', '"abc"'],
    ['é raw', 'Café', '"Café"'],
    ['CJK raw', '東京', '"東京"'],
    ['astral raw', '𝄞', '"𝄞"'],
    ['U+2028 escaped', 'a\u2028b', '"a\\u2028b"'],
    ['U+2029 escaped', 'a\u2029b', '"a\\u2029b"'],
    ['slash not escaped', 'a/b</script>', '"a/b</script>"'],
    ['< > & not escaped', '<b>&amp;', '"<b>&amp;"'],
    ['double quote', 'say "hi"', '"say \\"hi\\""'],
    ['backslash', 'C:\\dir', '"C:\\\\dir"'],
    ['newline', 'a\nb', '"a\\nb"'],
    ['tab', 'a\tb', '"a\\tb"'],
    ['carriage return', 'a\rb', '"a\\rb"'],
    ['backspace and form feed', '\b\f', '"\\b\\f"'],
    ['U+0001 as lower-case \\u escape', '\u0001', '"\\u0001"'],
    ['U+001F as lower-case \\u escape', '\u001f', '"\\u001f"'],
    ['U+007F raw', '\u007f', '"\u007f"'],
  ])('%s', (_label, value, expected) => {
    expect(encode(value)).toBe(expected);
  });

  it('escapes U+2028 in keys too', () => {
    expect(encode({ 'k\u2028': 'v\u2029' })).toBe('{"k\\u2028":"v\\u2029"}');
  });
});

describe('encode: Float as Python repr', () => {
  it.each<[number, string]>([
    [2, '2.0'],
    [4.5, '4.5'],
    [0.1, '0.1'],
    [100, '100.0'],
    [1e-7, '1e-07'],
    [1e22, '1e+22'],
    [1e16, '1e+16'],
    [1.5e16, '1.5e+16'],
    [1e15, '1000000000000000.0'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [-2.5e-5, '-2.5e-05'],
    [0, '0.0'],
    [-0, '-0.0'],
    [-4.5, '-4.5'],
    [123.456, '123.456'],
    [5e-324, '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
  ])('%d → %s', (value, expected) => {
    expect(encode(new Float(value))).toBe(expected);
    expect(pythonFloat(value)).toBe(expected);
  });

  it('writes a Float inside a record', () => {
    expect(encode({ translation_factor_7: new Float(2), xs_width_max: 40 })).toBe(
      '{"translation_factor_7":2.0,"xs_width_max":40}',
    );
  });

  it.each([NaN, Infinity, -Infinity])('rejects %d (allow_nan=False)', (value) => {
    expect(() => encode(new Float(value))).toThrow(RangeError);
    expect(() => encode({ a: new Float(value) })).toThrow(/not valid JSON/);
  });
});

describe('encode: plain numbers must be integers', () => {
  it.each([1.5, 0.1, NaN, Infinity, 2 ** 53])('rejects plain %d', (value) => {
    expect(() => encode(value)).toThrow(TypeError);
    expect(() => encode([value])).toThrow(/wrap floats in Float/);
  });
});
