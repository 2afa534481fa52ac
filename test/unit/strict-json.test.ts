// scripts/builder/pipeline/strict-json.ts: the source bytes read strictly. Each case names the problem, its
// place and what to do; on the code before this reader, each was silently accepted (U+FFFD, the
// last duplicate, a rounded integer), misreported (1e400 as null) or crashed (deep nesting).

import { describe, expect, it } from 'vitest';
import { MAX_DEPTH, parseStrict } from '../../scripts/builder/pipeline/strict-json.ts';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));

function problems(data: Buffer): string[] {
  const result = parseStrict(data);
  if (result.ok) return [];
  return result.problems.map(({ pointer, message, position }) => {
    const place = position ? `${position.line}:${position.column}: ` : '';
    return pointer === '' ? `${place}${message}` : `#${pointer}: ${message}`;
  });
}

describe('strict JSON: encodings', () => {
  it('refuses invalid UTF-8 with its line, column and byte', () => {
    expect(problems(bytes('{\n "name": "K', [0xf6], 'ln"}'))).toEqual([
      'invalid UTF-8 at line 2, column 12 (byte 13, 0xF6): save the file as UTF-8',
    ]);
  });

  it.each<[string, number[]]>([
    ['a lone continuation byte', [0x80]],
    ['a truncated sequence', [0xe2, 0x82]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a code point beyond U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])('refuses %s', (_label, bad) => {
    expect(problems(bytes('["é', bad, '"]'))).toEqual([
      `invalid UTF-8 at line 1, column 4 (byte 4, 0x${bad[0]?.toString(16).toUpperCase()}): save the file as UTF-8`,
    ]);
  });

  it('counts the byte offset from the start of the file, BOM included', () => {
    expect(problems(bytes([0xef, 0xbb, 0xbf], '["', [0xff], '"]'))).toEqual([
      'invalid UTF-8 at line 1, column 3 (byte 5, 0xFF): save the file as UTF-8',
    ]);
  });

  it.each<[string, Buffer, string]>([
    [
      'UTF-16 LE with a BOM',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{}', 'utf16le')]),
      'UTF-16 (little-endian, with a byte order mark)',
    ],
    [
      'UTF-16 BE with a BOM',
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('{}', 'utf16le').swap16()]),
      'UTF-16 (big-endian, with a byte order mark)',
    ],
    ['UTF-16 LE', Buffer.from('{"a": 1}', 'utf16le'), 'UTF-16 (little-endian)'],
    ['UTF-16 BE', Buffer.from('{"a": 1}', 'utf16le').swap16(), 'UTF-16 (big-endian)'],
    [
      'UTF-32 LE with a BOM',
      Buffer.from([0xff, 0xfe, 0, 0, 0x7b, 0, 0, 0, 0x7d, 0, 0, 0]),
      'UTF-32 (little-endian, with a byte order mark)',
    ],
    [
      'UTF-32 BE with a BOM',
      Buffer.from([0, 0, 0xfe, 0xff, 0, 0, 0, 0x7b, 0, 0, 0, 0x7d]),
      'UTF-32 (big-endian, with a byte order mark)',
    ],
    ['UTF-32 LE', Buffer.from([0x7b, 0, 0, 0, 0x7d, 0, 0, 0]), 'UTF-32 (little-endian)'],
    ['UTF-32 BE', Buffer.from([0, 0, 0, 0x7b, 0, 0, 0, 0x7d]), 'UTF-32 (big-endian)'],
  ])('refuses %s and says to save it as UTF-8', (_label, data, encoding) => {
    expect(problems(data)).toEqual([`the file is encoded as ${encoding}: save it as UTF-8`]);
  });

  it('accepts a UTF-8 byte order mark', () => {
    expect(parseStrict(bytes([0xef, 0xbb, 0xbf], '{"name": "Köln"}'))).toEqual({ ok: true, value: { name: 'Köln' } });
  });
});

describe('strict JSON: one meaning only', () => {
  it('refuses a duplicate key, naming both places', () => {
    expect(problems(Buffer.from('[\n  {"id": 1,\n   "name": "a",\n   "name": "b"}\n]'))).toEqual([
      '#/0/name: duplicate key "name" at line 4, column 4, first at line 3, column 4: JSON keeps only one of them; remove the other',
    ]);
  });

  it.each<[string, string, string]>([
    [
      'with a space before the colon',
      '{"a" : 1, "a": 2}',
      '#/a: duplicate key "a" at line 1, column 11, first at line 1, column 2',
    ],
    [
      'written with an escape',
      '{"a": 1, "\\u0061": 2}',
      '#/a: duplicate key "a" at line 1, column 10, first at line 1, column 2',
    ],
    [
      'hidden by an escaped colon',
      '{"a": "\\u003a", "a": 1}',
      '#/a: duplicate key "a" at line 1, column 17, first at line 1, column 2',
    ],
    [
      'holding colons',
      '{"a:b": "c:d", "a:b": "e"}',
      '#/a:b: duplicate key "a:b" at line 1, column 16, first at line 1, column 2',
    ],
    [
      'in a nested object',
      '{"x": [{}, {"k": 1, "k": 1}]}',
      '#/x/1/k: duplicate key "k" at line 1, column 21, first at line 1, column 13',
    ],
    [
      '__proto__',
      '{"__proto__": 1, "__proto__": 2}',
      '#/__proto__: duplicate key "__proto__" at line 1, column 18, first at line 1, column 2',
    ],
  ])('refuses a duplicate key %s', (_label, text, start) => {
    expect(problems(Buffer.from(text))).toEqual([`${start}: JSON keeps only one of them; remove the other`]);
  });

  it('counts columns in code points, after a BOM and with CRLF line ends, as the build places its problems', () => {
    // 😀 is two UTF-16 units but one column, as editors show it; the BOM and each CR take none.
    const text = '{"note": "😀 Köln",\r\n "id": 1, "id": 2}';
    expect(problems(bytes([0xef, 0xbb, 0xbf], text))).toEqual([
      '#/id: duplicate key "id" at line 2, column 11, first at line 2, column 2: JSON keeps only one of them; remove the other',
    ]);
    expect(problems(bytes('["😀😀", 1e400]'))[0]).toMatch(/^#\/1: the number 1e400 at line 1, column 8 /);
  });

  it('reports every duplicate of a file', () => {
    expect(problems(Buffer.from('{"a": 1, "a": 2, "a": 3}'))).toHaveLength(2);
  });

  it('accepts the same key in different objects, and colons and quotes in strings', () => {
    const text = '[{"a": "x:y", "b": "\\":"}, {"a": "http://e.com/"}, {"c:d": 1}]';
    expect(parseStrict(Buffer.from(text))).toEqual({ ok: true, value: JSON.parse(text) });
  });

  it.each([['1e400'], ['-1e400'], ['1E+999'], ['123456789e305']])(
    'refuses %s, outside the range of a double',
    (number) => {
      expect(problems(Buffer.from(`{"size": ${number}}`))).toEqual([
        `#/size: the number ${number} at line 1, column 10 is outside the range of a double (about ±1.8e308): write a smaller number`,
      ]);
    },
  );

  it.each([['9007199254740992'], ['12345678901234567890'], ['-9007199254740993']])(
    'refuses the integer %s beyond 2^53 - 1, as written',
    (number) => {
      expect(problems(Buffer.from(`[{"id": ${number}}]`))).toEqual([
        `#/0/id: the integer ${number} at line 1, column 9 is beyond 2^53 - 1 and would be rounded: write an integer between -9007199254740991 and 9007199254740991`,
      ]);
    },
  );

  it('reads on past an empty object: what follows it is a value, not a key', () => {
    expect(problems(Buffer.from('[{}, "x", {"a": {}, "b": 1e400}]'))).toEqual([
      '#/2/b: the number 1e400 at line 1, column 26 is outside the range of a double (about ±1.8e308): write a smaller number',
    ]);
  });

  it('accepts the largest safe integers and large doubles', () => {
    const text = '[9007199254740991, -9007199254740991, 1.5e300, 1e20, 0.1]';
    expect(parseStrict(Buffer.from(text))).toEqual({ ok: true, value: JSON.parse(text) });
  });
});

describe('strict JSON: nesting', () => {
  it(`accepts ${MAX_DEPTH} levels`, () => {
    const text = '['.repeat(MAX_DEPTH) + ']'.repeat(MAX_DEPTH);
    expect(parseStrict(Buffer.from(text)).ok).toBe(true);
  });

  it.each([[MAX_DEPTH + 1], [100_000]])('refuses %i levels without a stack overflow', (depth) => {
    expect(problems(Buffer.from('['.repeat(depth) + ']'.repeat(depth)))).toEqual([
      `1:${MAX_DEPTH + 1}: nesting deeper than ${MAX_DEPTH} levels: the records are only a few levels deep; remove the extra brackets`,
    ]);
  });

  it('refuses deep objects, and deep nesting in malformed JSON', () => {
    const objects = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    expect(problems(Buffer.from(objects))[0]).toMatch(/^1:321: nesting deeper than 64 levels:/);
    expect(problems(Buffer.from(`{"a": "[{", "b": ${'['.repeat(100_000)}`))[0]).toMatch(
      /^1:81: nesting deeper than 64 levels:/,
    );
  });
});
