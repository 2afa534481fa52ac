// The strict JSON reader of the source files: the bytes must be UTF-8 (a byte order mark is
// accepted), and the JSON must mean one thing only: no duplicate key, no number a double cannot
// hold, no integer beyond 2^53 - 1, no nesting deeper than MAX_DEPTH. Each problem comes with its
// place (JSON pointer, line and column) and what to do.
//
// The common path stays fast (the benchmark catalogue is 62 MB): JSON.parse makes the value, and
// one walk of it (iterative, so no depth can overflow the stack) plus one count of the colons in
// the text prove there is nothing to report. Every key in the text is followed by exactly one
// colon outside the strings, so the text's colons are its keys plus the colons inside its strings;
// a dropped duplicate takes at least one colon with it, so the parsed value then has fewer. Only
// when that proof fails (or a number or the depth looks wrong) does a scanner of the text look
// for the problems and their places.

import { isAscii, isUtf8 } from 'node:buffer';
import { type ParseError, parse as parseTolerant, printParseErrorCode } from 'jsonc-parser';
import { pointerOf, type TextPosition } from './errors.ts';

/** Deeper than any record of the API (a record in a file's array is at depth 2). */
export const MAX_DEPTH = 64;

export interface JsonProblem {
  /** RFC 6901 pointer into the file's JSON; "" for the whole file. */
  pointer: string;
  message: string;
  /** Where a problem of the whole file is, written before it as `file:line:column`. */
  position?: TextPosition;
}

export type StrictResult = { ok: true; value: unknown } | { ok: false; problems: JsonProblem[] };

/**
 * Line and column of offsets into a text; many problems in one file cost one pass over it. A
 * column counts code points from 1, as editors show it: a character beyond U+FFFF (an emoji),
 * two UTF-16 units in the text, is one column. The text has no byte order mark (decodeUtf8
 * drops it), and a CR of a CRLF line end ends its line, so neither moves a column.
 */
export class LineIndex {
  private readonly starts: number[] = [0];
  /** Offsets of the second unit of each surrogate pair, which shares its character's column. */
  private readonly trailingSurrogates: number[] = [];
  constructor(text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
    // Text decoded from UTF-8 has no lone surrogate, so every trailing one is half of a pair.
    for (const match of text.matchAll(/[\uDC00-\uDFFF]/g)) this.trailingSurrogates.push(match.index);
  }
  position(offset: number): TextPosition {
    const line = lastAtOrBefore(this.starts, offset);
    const start = this.starts[line] as number;
    const pairsBefore = (at: number) => lastAtOrBefore(this.trailingSurrogates, at - 1) + 1;
    return { line: line + 1, column: offset - start + 1 - (pairsBefore(offset) - pairsBefore(start)) };
  }
  at(offset: number): string {
    const { line, column } = this.position(offset);
    return `line ${line}, column ${column}`;
  }
}

/** The index of the last of the ascending `offsets` that is at most `offset`; -1 if none is. */
function lastAtOrBefore(offsets: readonly number[], offset: number): number {
  let low = -1;
  let high = offsets.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((offsets[middle] as number) <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

// ---------------------------------------------------------------------------------------------
// Bytes to text

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** The encoding of a file that is not UTF-8 but UTF-16 or UTF-32, from its BOM or its NUL bytes. */
function wideEncoding(bytes: Uint8Array): string | null {
  const [b0, b1, b2, b3] = [bytes[0], bytes[1], bytes[2], bytes[3]];
  if (b0 === 0xff && b1 === 0xfe && b2 === 0 && b3 === 0) return 'UTF-32 (little-endian, with a byte order mark)';
  if (b0 === 0 && b1 === 0 && b2 === 0xfe && b3 === 0xff) return 'UTF-32 (big-endian, with a byte order mark)';
  if (b0 === 0xff && b1 === 0xfe) return 'UTF-16 (little-endian, with a byte order mark)';
  if (b0 === 0xfe && b1 === 0xff) return 'UTF-16 (big-endian, with a byte order mark)';
  // JSON text starts with an ASCII character, which these encodings pad with NUL bytes.
  if (bytes.length >= 4 && b0 !== 0 && b1 === 0 && b2 === 0 && b3 === 0) return 'UTF-32 (little-endian)';
  if (bytes.length >= 4 && b0 === 0 && b1 === 0 && b2 === 0 && b3 !== 0) return 'UTF-32 (big-endian)';
  if (bytes.length >= 2 && b0 !== 0 && b1 === 0) return 'UTF-16 (little-endian)';
  if (bytes.length >= 2 && b0 === 0 && b1 !== 0) return 'UTF-16 (big-endian)';
  return null;
}

/** The offset of the first byte that is not part of a well-formed UTF-8 sequence. */
function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    let length: number;
    let min = 0x80;
    let max = 0xbf;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) length = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b === 0xe0) min = 0xa0;
      if (b === 0xed) max = 0x9f; // no surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b === 0xf0) min = 0x90;
      if (b === 0xf4) max = 0x8f;
    } else return i;
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      const low = k === 1 ? min : 0x80;
      const high = k === 1 ? max : 0xbf;
      if (next === undefined || next < low || next > high) return i;
    }
    i += length;
  }
  return -1;
}

/** The text of a source file, or why it cannot be read as UTF-8. A UTF-8 BOM is dropped. */
export function decodeUtf8(bytes: Buffer): { ok: true; text: string } | { ok: false; message: string } {
  const wide = wideEncoding(bytes);
  if (wide) return { ok: false, message: `the file is encoded as ${wide}: save it as UTF-8` };
  const bom = bytes[0] === UTF8_BOM[0] && bytes[1] === UTF8_BOM[1] && bytes[2] === UTF8_BOM[2];
  const body = bom ? bytes.subarray(3) : bytes;
  // ASCII, the common case, is also Latin-1, which is the fastest to decode.
  if (isAscii(body)) return { ok: true, text: body.toString('latin1') };
  if (isUtf8(body)) return { ok: true, text: body.toString('utf8') };
  const offset = firstInvalidByte(body);
  const before = body.subarray(0, offset);
  const lineStart = before.lastIndexOf(0x0a) + 1;
  const line = before.reduce((count, byte) => count + (byte === 0x0a ? 1 : 0), 1);
  const column = [...before.subarray(lineStart).toString('utf8')].length + 1;
  const hex = (body[offset] as number).toString(16).toUpperCase().padStart(2, '0');
  return {
    ok: false,
    message:
      `invalid UTF-8 at line ${line}, column ${column} (byte ${offset + (bom ? 3 : 0)}, 0x${hex}): ` +
      'save the file as UTF-8',
  };
}

// ---------------------------------------------------------------------------------------------
// Text to value

/** Where nesting first goes deeper than MAX_DEPTH, on any text, valid JSON or not; -1 if nowhere. */
function tooDeepAt(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string; an unclosed one ends the text.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_DEPTH) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

function tooDeep(lines: LineIndex, offset: number): JsonProblem {
  return {
    pointer: '',
    message: `nesting deeper than ${MAX_DEPTH} levels: the records are only a few levels deep; remove the extra brackets`,
    position: lines.position(offset),
  };
}

/** Where JSON.parse gave up; V8's own message has no position, so a tolerant parser finds it. */
function describeSyntaxError(text: string, fallback: string): JsonProblem {
  const problems: ParseError[] = [];
  try {
    parseTolerant(text, problems, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  } catch {
    // The tolerant parser recurses; tooDeepAt has already ruled out deep nesting, but be safe.
  }
  const first = problems[0];
  if (!first) return { pointer: '', message: `malformed JSON (${fallback})` };
  const code = printParseErrorCode(first.error);
  if (code === 'CommaExpected') {
    // Found at the next value, often on the next line: the comma is missing right after the value before it.
    const before = text.slice(0, first.offset).trimEnd().length;
    return {
      pointer: '',
      message: 'malformed JSON: a comma is missing here, after the value before it',
      position: new LineIndex(text).position(before),
    };
  }
  // `PropertyNameExpected` → `property name expected`
  const reason = code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return { pointer: '', message: `malformed JSON: ${reason}`, position: new LineIndex(text).position(first.offset) };
}

/**
 * True when the parsed value certainly holds every key of the text, no number out of range and
 * no nesting deeper than MAX_DEPTH (see the top of this file). False means: scan to find out.
 */
function certainlyFine(value: unknown, text: string): boolean {
  let keys = 0;
  let colonsInStrings = 0;
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const item = values.pop();
    const depth = depths.pop() as number;
    if (typeof item === 'string') {
      for (let at = item.indexOf(':'); at !== -1; at = item.indexOf(':', at + 1)) colonsInStrings++;
    } else if (typeof item === 'number') {
      if (!Number.isSafeInteger(item) && (item > Number.MAX_SAFE_INTEGER || item < -Number.MAX_SAFE_INTEGER)) {
        return false;
      }
    } else if (typeof item === 'object' && item !== null) {
      if (depth >= MAX_DEPTH) return false;
      if (Array.isArray(item)) {
        for (const element of item) {
          values.push(element);
          depths.push(depth + 1);
        }
      } else {
        for (const key in item) {
          keys++;
          for (let at = key.indexOf(':'); at !== -1; at = key.indexOf(':', at + 1)) colonsInStrings++;
          values.push((item as Record<string, unknown>)[key]);
          depths.push(depth + 1);
        }
      }
    }
  }
  // An escaped colon (\u003a) is a colon in the value but not in the text: let the scanner decide.
  if (text.includes('\\u003')) return false;
  let colons = 0;
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) colons++;
  return colons === keys + colonsInStrings;
}

/** Where a value is: the key or index of each value around it, outermost first (a pointer's segments). */
export type JsonPath = readonly (string | number)[];

export interface JsonVisitor {
  /** At the first character of each value, containers before their contents; false ends the walk. */
  value(path: JsonPath, offset: number): boolean;
  /** At the opening quote of each key of an object; `path` ends with the key. */
  key?(path: JsonPath, offset: number): void;
}

// Whitespace, `,`, `]` and `}`: what ends a number, true, false or null.
const endsLiteral = (c: number) => c <= 0x20 || c === 0x2c || c === 0x5d || c === 0x7d;

/** The end (exclusive) of the string literal starting at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return text.length;
}

/**
 * Walks text that JSON.parse accepted, in text order: the one tokenizer of the source files, for
 * the problems scan() looks for and for the places of the build's problems (json-positions.ts).
 * `path` is the walker's own array, changed as it goes on: copy it to keep it.
 */
export function walkJson(text: string, visitor: JsonVisitor): void {
  const path: (string | number)[] = [];
  const inObject: boolean[] = [];
  let expectKey = false;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (expectKey) {
        path[path.length - 1] = JSON.parse(text.slice(i, end)) as string;
        expectKey = false;
        visitor.key?.(path, i);
      } else if (!visitor.value(path, i)) return;
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (!visitor.value(path, i)) return;
      expectKey = c === 0x7b;
      inObject.push(expectKey);
      path.push(expectKey ? '' : 0);
      i++;
    } else if (c === 0x7d || c === 0x5d) {
      inObject.pop();
      path.pop();
      // An empty object ends still waiting for its first key.
      expectKey = false;
      i++;
    } else if (c === 0x2c) {
      const last = path.length - 1;
      if (inObject[last]) expectKey = true;
      else path[last] = (path[last] as number) + 1;
      i++;
    } else if (c <= 0x20 || c === 0x3a) i++;
    else {
      if (!visitor.value(path, i)) return;
      i++;
      while (i < text.length && !endsLiteral(text.charCodeAt(i))) i++;
    }
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** What is wrong with the number at `offset`, if a double cannot hold it as written. */
function numberProblem(text: string, offset: number, lines: LineIndex): string | undefined {
  NUMBER.lastIndex = offset;
  const literal = NUMBER.exec(text)?.[0] ?? '';
  const number = Number(literal);
  if (!Number.isFinite(number)) {
    return `the number ${literal} at ${lines.at(offset)} is outside the range of a double (about ±1.8e308): write a smaller number`;
  }
  // Written as an integer (a large number written with a fraction or exponent is a double).
  if (!Number.isSafeInteger(number) && /^-?\d+$/.test(literal)) {
    return `the integer ${literal} at ${lines.at(offset)} is beyond 2^53 - 1 and would be rounded: write an integer between -9007199254740991 and 9007199254740991`;
  }
  return undefined;
}

/** Scans text that JSON.parse accepted for the problems certainlyFine() could not rule out. */
function scan(text: string): JsonProblem[] {
  const lines = new LineIndex(text);
  const problems: JsonProblem[] = [];
  // The keys read so far of the object open at each depth, each with the offset where it first is.
  const keysAtDepth: Map<string, number>[] = [];
  walkJson(text, {
    value(path, offset) {
      const c = text.charCodeAt(offset);
      if (c === 0x7b || c === 0x5b) {
        if (path.length >= MAX_DEPTH) {
          problems.push(tooDeep(lines, offset));
          return false;
        }
        if (c === 0x7b) keysAtDepth[path.length] = new Map();
      } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
        const message = numberProblem(text, offset, lines);
        if (message) problems.push({ pointer: pointerOf(path), message });
      }
      return true;
    },
    key(path, offset) {
      const key = path[path.length - 1] as string;
      const keys = keysAtDepth[path.length - 1] as Map<string, number>;
      const first = keys.get(key);
      if (first === undefined) keys.set(key, offset);
      else {
        problems.push({
          pointer: pointerOf(path),
          message:
            `duplicate key ${JSON.stringify(key)} at ${lines.at(offset)}, first at ${lines.at(first)}: ` +
            'JSON keeps only one of them; remove the other',
        });
      }
    },
  });
  return problems;
}

/** Parses a source file's bytes strictly: the value, or every problem with its place. */
export function parseStrict(bytes: Buffer): StrictResult {
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) return { ok: false, problems: [{ pointer: '', message: decoded.message }] };
  const { text } = decoded;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const deep = tooDeepAt(text);
    if (deep !== -1) return { ok: false, problems: [tooDeep(new LineIndex(text), deep)] };
    return { ok: false, problems: [describeSyntaxError(text, (error as Error).message)] };
  }
  if (certainlyFine(value, text)) return { ok: true, value };
  const problems = scan(text);
  return problems.length === 0 ? { ok: true, value } : { ok: false, problems };
}
