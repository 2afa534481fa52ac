// contract/search.ts and contract/upper-case.ts: DRF 3.14's SearchFilter on PostgreSQL in UTF-8
// with a glibc C.UTF-8 LC_CTYPE. The upper-case table is compared with the system's towupper()
// code point by code point, and the terms with Python's own split, when python3 is there.

import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { searchField, searchTerms } from '../../scripts/contract/search.ts';
import { pgUpper, upperCodePoint } from '../../scripts/contract/upper-case.ts';
import { findProgram, reportMissing } from '../installed.ts';
import { searchMatcher } from '../unit/helpers/record-match.ts';

const python = findProgram(['/usr/bin/python3', 'python3']);
if (python === undefined) reportMissing('python3', "the comparison of the search with Python's and glibc's");

const search = (terms: string, fields: string[]) => searchMatcher(searchTerms(terms), fields.map(searchField));

describe('search terms, split as DRF 3.14 splits them', () => {
  it.each([
    ['laser', ['laser']],
    ['  laser  cut ', ['laser', 'cut']],
    ['a,b,,c', ['a', 'b', 'c']],
    ['a\0b', ['ab']],
    [',', []],
    ['', []],
    ['a\u3000b\x1cc\u0085d', ['a', 'b', 'c', 'd']],
    ['a\ufeffb\u200bc', ['a\ufeffb\u200bc']],
  ])('%j', (raw, terms) => {
    expect(searchTerms(raw)).toEqual(terms);
  });
});

describe('a record matched by a search', () => {
  const company = { id: 1, name: 'Straße Müller GmbH', city: 'İzmir', zip_code: 'AB-12', phone: null, plus: true };

  it('is case-insensitive per code point, as UPPER() is under C.UTF-8: ß stays ß, İ and ı are no i', () => {
    expect(search('müller', ['name'])(company)).toBe(true);
    expect(search('STRASSE', ['name'])(company)).toBe(false);
    expect(search('straße', ['name'])(company)).toBe(true);
    expect(search('STRAẞE', ['name'])(company)).toBe(false);
    expect(search('izmir', ['city'])(company)).toBe(false);
    expect(search('İZMIR', ['city'])(company)).toBe(true);
    expect(search('ızmir', ['city'])(company)).toBe(false);
    expect(pgUpper('ı')).toBe('I');
    expect(pgUpper('ǆ')).toBe('Ǆ');
    expect(pgUpper('ﬀ')).toBe('ﬀ');
    expect(pgUpper('東京 é')).toBe('東京 É');
  });

  it('needs every term to match a field, each any of them', () => {
    expect(search('müller,izm', ['name', 'city'])(company)).toBe(false);
    expect(search('müller,İZM', ['name', 'city'])(company)).toBe(true);
    expect(search('gmbh nowhere', ['name', 'city'])(company)).toBe(false);
  });

  it('reads the prefixes: ^ starts with, = is the whole value', () => {
    expect(search('ab', ['^zip_code'])(company)).toBe(true);
    expect(search('12', ['^zip_code'])(company)).toBe(false);
    expect(search('ab-12', ['=zip_code'])(company)).toBe(true);
    expect(search('ab', ['=zip_code'])(company)).toBe(false);
  });

  it('never matches a null, and matches other values by their text in PostgreSQL', () => {
    expect(search('a', ['phone'])(company)).toBe(false);
    expect(search('TRU', ['plus'])(company)).toBe(true);
    expect(search('1', ['id'])(company)).toBe(true);
  });

  it('takes % and _ as plain characters, as Django escapes them', () => {
    expect(search('%', ['name'])(company)).toBe(false);
    expect(search('_', ['name'])({ name: 'a_b' })).toBe(true);
  });

  it('refuses the @ and $ prefixes', () => {
    expect(() => searchField('@name')).toThrow(/not supported/);
    expect(() => searchField('$name')).toThrow(/not supported/);
  });

  it('matches when a term is in the upper-cased value, whatever the text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme', minLength: 1 }), (before, term) => {
        const value = `${before}${term.toLowerCase()}`;
        const terms = searchTerms(term);
        fc.pre(terms.length === 1 && terms[0] === term);
        // Lower-casing then upper-casing per code point gives back the upper case of the term
        // wherever the simple mappings agree: check the engine against that only.
        fc.pre(pgUpper(term.toLowerCase()) === pgUpper(term));
        expect(searchMatcher(terms, [searchField('f')])({ f: value })).toBe(true);
      }),
    );
  });
});

describe.skipIf(python === undefined)('against the system', () => {
  it("has glibc's C.UTF-8 towupper() for every code point", () => {
    const script = [
      'import ctypes, ctypes.util, sys',
      "libc = ctypes.CDLL(ctypes.util.find_library('c'))",
      'libc.setlocale.restype = ctypes.c_char_p',
      "if not libc.setlocale(6, b'C.UTF-8'): sys.exit(3)",
      'libc.towupper.restype = ctypes.c_uint32',
      'libc.towupper.argtypes = [ctypes.c_uint32]',
      "print(' '.join(f'{c:x}:{libc.towupper(c):x}' for c in range(0x110000) if not 0xd800 <= c <= 0xdfff and libc.towupper(c) != c))",
    ].join('\n');
    const pairs = execFileSync(python as string, ['-c', script], { encoding: 'utf8', maxBuffer: 16 << 20 })
      .trim()
      .split(' ')
      .map((pair) => pair.split(':').map((hex) => Number.parseInt(hex, 16)) as [number, number]);
    const system = new Map(pairs);
    const differences: string[] = [];
    for (let codePoint = 0; codePoint < 0x110000; codePoint++) {
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
      const expected = system.get(codePoint) ?? codePoint;
      if (upperCodePoint(codePoint) !== expected) differences.push(codePoint.toString(16));
    }
    expect(system.size).toBeGreaterThan(1000);
    expect(differences).toEqual([]);
  });

  it("splits terms as Python's str.split() does", () => {
    const piece = fc.constantFrom(
      'a',
      'ß',
      '東',
      ',',
      ' ',
      '\t',
      '\0',
      '\x1c',
      '\x85',
      '\xa0',
      '\u2028',
      '\u3000',
      '\ufeff',
      '\u200b',
      '\u180e',
    );
    const values = fc.sample(
      fc.array(piece, { maxLength: 8 }).map((pieces) => pieces.join('')),
      { numRuns: 500, seed: 35 },
    );
    const script =
      "import json, sys\nfor line in sys.stdin: print(json.dumps(json.loads(line).replace('\\x00', '').replace(',', ' ').split()))";
    const output = execFileSync(python as string, ['-c', script], {
      input: values.map((value) => JSON.stringify(value)).join('\n'),
      encoding: 'utf8',
    });
    expect(values.map((value) => searchTerms(value))).toEqual(
      output
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    );
  });
});
