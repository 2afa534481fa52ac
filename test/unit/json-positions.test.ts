// scripts/builder/pipeline/json-positions.ts: the line and column of a problem's pointer in its file. The
// columns count code points, so that a character beyond U+FFFF (two UTF-16 units) is one column,
// and neither a byte order mark nor the CR of a CRLF moves them. A property test checks every
// value and key of random JSON against jsonc-parser's syntax tree.

import fc from 'fast-check';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import {
  type DataError,
  formatDataError,
  pointerOf,
  type TextPosition,
} from '../../scripts/builder/pipeline/errors.ts';
import { locateInFiles, withPositions } from '../../scripts/builder/pipeline/json-positions.ts';
import { decodeUtf8 } from '../../scripts/builder/pipeline/strict-json.ts';

const problem = (pointer: string, subject?: 'key'): DataError => ({
  file: 'f.json',
  pointer,
  message: 'm',
  ...(subject ? { subject } : {}),
});

/** The position of each pointer in `text`, or null where there is none. */
function positions(text: string, pointers: string[], subject?: 'key'): (TextPosition | null)[] {
  return withPositions(
    text,
    pointers.map((pointer) => problem(pointer, subject)),
  ).map((p) => p.position ?? null);
}

const at = (line: number, column: number): TextPosition => ({ line, column });

const RECORDS = [
  '[',
  '  {',
  '    "id": 5,',
  '    "name": "",',
  '    "tiles": {"tile_pattern": "{z}/{x}/{y}", "tile-size": 256},',
  '    "events": [9, [1, 2], 77],',
  '    "a/b~c": null',
  '  }',
  ']',
].join('\n');

describe('withPositions', () => {
  it('places a value at its first character', () => {
    expect(positions(RECORDS, ['/0/name', '/0/events/2', '/0/tiles/tile-size', '/0/a~1b~0c', '/0'])).toEqual([
      at(4, 13),
      at(6, 27),
      at(5, 59),
      at(7, 14),
      at(2, 3),
    ]);
  });

  it('places the values after an empty object or array', () => {
    expect(positions('[{},"",[],{"a":{},"b":2}]', ['/1', '/2', '/3/b'])).toEqual([at(1, 5), at(1, 8), at(1, 23)]);
  });

  it('places a problem about a field name at its key', () => {
    expect(positions(RECORDS, ['/0/tiles/tile-size', '/0/name'], 'key')).toEqual([at(5, 46), at(4, 5)]);
  });

  it('places a missing field at the object that lacks it, a nested one at the nested object', () => {
    expect(positions(RECORDS, ['/0/city', '/0/tiles/tile_size', '/0/tiles/tile_size/deeper'])).toEqual([
      at(2, 3),
      at(5, 14),
      at(5, 14),
    ]);
  });

  it('leaves a problem about the whole file without a position, and the problems in their order', () => {
    const located = withPositions(RECORDS, [problem(''), problem('/0/id'), problem('')]);
    expect(located.map((p) => [p.pointer, p.position ?? null])).toEqual([
      ['', null],
      ['/0/id', at(3, 11)],
      ['', null],
    ]);
  });

  it('reads past strings holding quotes, brackets, commas and colons', () => {
    const text = '{"a\\"{[,:": "]}\\\\", "b": [{"c,": "\\"}"}, "x"], "d": true}';
    expect(positions(text, ['/a"{[,:', '/b/1', '/b/0/c,', '/d'])).toEqual([at(1, 13), at(1, 42), at(1, 34), at(1, 53)]);
  });

  it('counts a column per code point: é and 😀 are one each', () => {
    const text = '{"name": "Café 😀", "city": "Köln", "id": 5}';
    // In UTF-16 units, "id" would be one column further on.
    expect(text.indexOf('"id"') + 1).toBe(37);
    expect(positions(text, ['/id'], 'key')).toEqual([at(1, 36)]);
    expect(positions(text, ['/city'])).toEqual([at(1, 28)]);
  });

  it('counts lines and columns alike with CRLF line ends', () => {
    const text = '[\r\n  {\r\n    "id": 5,\r\n    "name": ""\r\n  }\r\n]\r\n';
    expect(positions(text, ['/0/name', '/0/city'])).toEqual([at(4, 13), at(2, 3)]);
  });

  it('counts the first line from after a byte order mark', () => {
    const decoded = decodeUtf8(Buffer.from('\uFEFF{"id": 5, "name": ""}', 'utf8'));
    expect(decoded.ok && positions(decoded.text, ['/name'])).toEqual([at(1, 19)]);
  });

  it('locates many problems on one long line', () => {
    const records = Array.from({ length: 2000 }, (_, id) => ({ id, name: id % 2 ? '😀' : '' }));
    const text = JSON.stringify(records);
    const pointers = records.map((_, i) => `/${i}/name`);
    const found = positions(text, pointers);
    // Each record before the i-th adds its length in code points; an emoji is one.
    let column = 1;
    records.forEach((record, i) => {
      const compact = JSON.stringify(record);
      expect(found[i], `record ${i}`).toEqual(at(1, column + 1 + compact.indexOf('"name":') + 7));
      column += [...compact].length + 1;
    });
  });
});

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path into `value`, containers before their contents. */
function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const paths = [prefix];
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) paths.push(...pathsOf(item, [...prefix, i]));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]));
  }
  return paths;
}

/** Line and column of an offset, counted here without the module's code. */
function lineAndColumn(text: string, offset: number): TextPosition {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: [...before.slice(lineStart)].length + 1 };
}

describe('locateInFiles', () => {
  const TEXTS = new Map([
    ['a.json', '[\n  {"id": 5},\n  {"id": 6}\n]'],
    ['b.json', '{\n  "id": 5\n}'],
  ]);
  const textOf = async (file: string) => TEXTS.get(file);

  it('places a problem and the other place it names (seeAlso), each in its own file', async () => {
    const duplicate: DataError = {
      file: 'b.json',
      pointer: '/id',
      message: 'expected a unique id, but 5 is also used by',
      seeAlso: { file: 'a.json', pointer: '/0/id' },
    };
    const [located] = await locateInFiles([duplicate], textOf);
    expect(located?.position).toEqual(at(2, 9));
    expect(located?.seeAlso?.position).toEqual(at(2, 10));
    expect(formatDataError(located as DataError)).toBe(
      'b.json:2:9 #/id: expected a unique id, but 5 is also used by a.json:2:10',
    );
  });

  it('keeps the order of the problems, and names by pointer a place whose file has no text', async () => {
    const problems: DataError[] = [
      { file: 'a.json', pointer: '/1/id', message: 'one', seeAlso: { file: 'gone.json', pointer: '/0/id' } },
      { file: 'b.json', pointer: '/id', message: 'two' },
      { file: 'a.json', pointer: '/0/id', message: 'three' },
    ];
    const located = await locateInFiles(problems, textOf);
    expect(located.map(formatDataError)).toEqual([
      'a.json:3:10 #/1/id: one gone.json#/0/id',
      'b.json:2:9 #/id: two',
      'a.json:2:10 #/0/id: three',
    ]);
  });
});

describe('withPositions on random JSON', () => {
  it("agrees with jsonc-parser's syntax tree on every value and key", () => {
    const layout = fc.record({
      indent: fc.constantFrom(0, 1, 2, '\t'),
      crlf: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 4 }), layout, (json, { indent, crlf }) => {
        const value = json as Json;
        const pretty = JSON.stringify(value, null, indent);
        const text = crlf ? pretty.replaceAll('\n', '\r\n') : pretty;
        const tree = parseTree(text);
        if (!tree) throw new Error(`jsonc-parser read no tree from ${text}`);
        // The root's pointer, "", names the whole file, which has no one place.
        const paths = pathsOf(value).slice(1);
        const pointers = paths.map((path) => pointerOf(path));
        const [values, keys] = [positions(text, pointers), positions(text, pointers, 'key')];
        paths.forEach((path, i) => {
          const node = findNodeAtLocation(tree, path);
          if (!node) throw new Error(`jsonc-parser found no ${pointerOf(path)}`);
          expect(values[i], pointerOf(path)).toEqual(lineAndColumn(text, node.offset));
          // A member's key is the first child of its property node; an item has no key.
          const key = typeof path.at(-1) === 'string' ? node.parent?.children?.[0] : node;
          expect(keys[i], `key of ${pointerOf(path)}`).toEqual(lineAndColumn(text, key?.offset ?? -1));
        });
      }),
      { numRuns: 300 },
    );
  });
});
