// The fuzzer's oracle: what docs/contract.md says a request must get, and every way an answer
// departs from it. Which answer a request gets (a list file, a 301, a 404, a 405) comes from the
// route table's resolve(), as the contract's sections 3 to 5 say it is derived; everything else
// is written out here from the contract and RFC 9110 on their own: the six headers (section 2,
// from lib/contract.ts), the exact bodies, content negotiation (section 3), what validators and
// ranges may do (never on an error or OPTIONS answer), and how a precompressed answer must be
// labelled. A judged answer is a list of problems: none when the answer is the contract's.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { type OrderTerm, sortRecords } from '../../../scripts/contract/ordering.ts';
import { resolve } from '../../../scripts/contract/routes.ts';
import { API } from '../../fixtures/sample.ts';
import { varyBesidesEncoding } from './assert.ts';
import { API_HEADERS, INVALID_PAGE_BODY, NOT_FOUND_BODY, notAllowedBody, optionsBody } from './contract.ts';
import { Answer } from './http.ts';
import type { RawRequest } from './raw-http.ts';

export const NOT_ACCEPTABLE_BODY = '{"detail":"Could not satisfy the request Accept header."}';

/** What the contract says, before validators, ranges and encodings. */
export type Expected =
  | { status: 301; location: string }
  | { status: number; body: string }
  | { status: 200; file: string; terms?: OrderTerm[] }
  /** A request outside HTTP's syntax: the server's parser refuses it, with any body. */
  | { status: 400; malformed: true };

const header = (request: RawRequest, name: string) =>
  request.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];

/** A method is a token (RFC 9110 5.6.2), case-sensitive: `get` is not GET, `G@T` no method. */
const wellFormedMethod = (method: string) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(method);

/** Bytes above 0x7F in the target, which RFC 9112 does not allow: a parser may refuse them. */
const rawBytes = (target: string) => /[\x80-\xff]/.test(target);

/** DRF's DefaultContentNegotiation with the JSON and browsable API renderers: can it answer? */
export function acceptable(accept: string | undefined): boolean {
  if (accept === undefined) return true;
  return accept.split(',').some((token) => {
    const [type = ''] = token.trim().split(';');
    const [main = '', sub = ''] = type.trim().split('/');
    const matches = (m: string, s: string) => (main === '*' || main === m) && (sub === '*' || sub === s);
    return matches('application', 'json') || matches('text', 'html');
  });
}

export function expectedAnswer(request: RawRequest): Expected {
  if (!wellFormedMethod(request.method)) return { status: 400, malformed: true };
  // Section 4: raw bytes are read as their percent-escapes, where the parser lets them through.
  const written = request.target.replace(/[\x80-\xff]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const target = written.startsWith('http://') ? written.replace(/^http:\/\/[^/]*/, '') : written;
  const answer = resolve(request.method, target, API);
  if (answer.kind === 'redirect') return { status: 301, location: answer.location };
  if (answer.kind === 'file' && answer.file === '_errors/not-found.json') {
    // Section 4: a path the API does not have. Negotiation comes after the path, as in DRF.
    return { status: 404, body: NOT_FOUND_BODY };
  }
  // Section 3: the path is one of the lists and format did not decide: DRF negotiates now,
  // before the method and the page are looked at. A known format decides the renderer itself.
  const format = new URLSearchParams(target.split('?')[1] ?? '').getAll('format').at(-1) ?? '';
  if (format === '' && !acceptable(header(request, 'Accept'))) return { status: 406, body: NOT_ACCEPTABLE_BODY };
  if (answer.kind === 'not-allowed') return { status: 405, body: notAllowedBody(answer.method) };
  if (answer.kind === 'sorted') return { status: 200, file: answer.file, terms: answer.terms };
  // The fuzzed builds have no filter, search or ordering settings.
  if (answer.kind === 'query') throw new Error(`${target} was answered from a query setting the fuzzer has none of`);
  if (answer.kind === 'file' && answer.file.startsWith('_options/')) {
    const name = answer.file.slice('_options/'.length, -'.json'.length);
    const list = API.find((resource) => resource.name === name);
    if (list === undefined) throw new Error(`${answer.file} is the OPTIONS answer of no declared list`);
    return { status: 200, body: optionsBody(list) };
  }
  if (answer.kind === 'file' && answer.file === '_errors/invalid-page.json')
    return { status: 404, body: INVALID_PAGE_BODY };
  return { status: 200, file: answer.file };
}

/** The answer without its Content-Type, counted as the contract's (a multipart 206 has its own). */
function answerWithoutContentType(answer: Answer): Answer {
  const headers = answer.headers.map(([name, value]) =>
    name === 'content-type' ? ([name, API_HEADERS['content-type'] as string] as const) : ([name, value] as const),
  );
  return new Answer(answer.method, answer.url, answer.status, headers, answer.body);
}

/** The bytes of a 200 file answer from the build output; null for a page the build has not. */
function fileBytes(publicDir: string, expected: { file: string; terms?: OrderTerm[] }): Buffer | null {
  const file = path.join(publicDir, expected.file);
  if (!existsSync(file)) return null;
  return expected.terms ? sortedBody(publicDir, expected.file, expected.terms) : readFileSync(file);
}

interface ByteRange {
  first: number;
  last: number;
}

/** A Range header's byte ranges for a representation of `length` bytes (RFC 9110 14.1.2), or null when invalid. */
function byteRanges(value: string, length: number): { ranges: ByteRange[]; satisfiable: boolean } | null {
  const match = /^bytes=(.+)$/i.exec(value.trim());
  if (!match) return null;
  const ranges: ByteRange[] = [];
  let satisfiable = false;
  for (const spec of (match[1] as string).split(',')) {
    const m = /^\s*(\d*)-(\d*)\s*$/.exec(spec);
    if (!m || (m[1] === '' && m[2] === '')) return null;
    if (m[1] === '') {
      const suffix = Number(m[2]);
      if (suffix > 0) satisfiable = true;
      ranges.push({ first: Math.max(0, length - suffix), last: length - 1 });
      continue;
    }
    const first = Number(m[1]);
    const last = m[2] === '' ? length - 1 : Math.min(Number(m[2]), length - 1);
    if (m[2] !== '' && Number(m[2]) < first) return null;
    if (first < length) satisfiable = true;
    ranges.push({ first, last });
  }
  return { ranges, satisfiable };
}

/** Whether Accept-Encoding allows `coding` (RFC 9110 12.5.3): named or `*`, with q above 0. */
function accepts(acceptEncoding: string | undefined, coding: string): boolean {
  if (acceptEncoding === undefined) return false;
  let star: boolean | undefined;
  for (const item of acceptEncoding.split(',')) {
    const [name = '', ...params] = item.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const allowed = q === undefined || Number(q) > 0;
    if (name.trim() === coding) return allowed;
    if (name.trim() === '*') star = allowed;
  }
  return star ?? false;
}

/** How the answer's section 2 headers depart from the contract's: none when each is there once, as written. */
export function headerProblems(answer: Answer): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(API_HEADERS)) {
    const values = name === 'vary' ? varyBesidesEncoding(answer) : answer.all(name);
    if (values.length !== 1 || values[0] !== value)
      problems.push(`header ${name}: ${JSON.stringify(values)}, contract ${JSON.stringify(value)}`);
  }
  return problems;
}

/** The body as it was before a gzip or br Content-Encoding; null when it does not decode. */
export function decodedBody(answer: Answer): Buffer | null {
  const coding = answer.header('content-encoding');
  try {
    return coding === 'br'
      ? brotliDecompressSync(answer.body)
      : coding === 'gzip'
        ? gunzipSync(answer.body)
        : answer.body;
  } catch {
    return null;
  }
}

const show = (bytes: Buffer) => {
  const text = bytes.toString('utf8');
  return JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}…` : text);
};

/**
 * Every way `answer` departs from the contract for `request`; empty when it is the contract's
 * answer. `publicDir` is the build output the target serves.
 */
export function judge(request: RawRequest, answer: Answer | string, publicDir: string): string[] {
  if (typeof answer === 'string') return [answer];
  const expected = expectedAnswer(request);
  const problems: string[] = [];
  const head = request.method === 'HEAD';
  // A parser's refusal of bytes RFC 9112 does not allow in a request line is an answer too.
  if (rawBytes(request.target) && answer.status === 400) return [];
  if ('malformed' in expected) {
    // Outside HTTP's grammar the contract has no answer but a refusal: a 4xx, never a list.
    if (answer.status < 400 || answer.status > 499) problems.push(`status ${answer.status} to a malformed request`);
    return problems;
  }

  let body: Buffer | null = null;
  let expectedStatus = expected.status;
  if ('file' in expected) {
    body = fileBytes(publicDir, expected);
    if (body === null) {
      // A page beyond the last: the route table's fallback.
      expectedStatus = 404;
    }
  }
  const fixed =
    'body' in expected ? expected.body : body === null && 'file' in expected ? INVALID_PAGE_BODY : undefined;
  const isFile = body !== null;
  const reading = request.method === 'GET' || head;

  // Validators and ranges apply to a file answer of GET or HEAD only (section 2).
  if (answer.status === 304) {
    const inm = header(request, 'If-None-Match');
    const etag = answer.header('etag');
    const matches =
      inm !== undefined
        ? inm.trim() === '*' ||
          (etag !== undefined && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag.replace(/^W\//, '')))
        : header(request, 'If-Modified-Since') !== undefined;
    if (!(isFile && reading && expectedStatus === 200 && matches))
      problems.push(
        `304, where the contract's answer is ${expectedStatus}${isFile ? ' and no validator matches' : ''}`,
      );
    if (answer.body.length) problems.push('a 304 with a body');
    return problems;
  }

  const range = header(request, 'Range');
  if (answer.status === 206 || answer.status === 416) {
    if (!(isFile && request.method === 'GET' && expectedStatus === 200 && range !== undefined)) {
      problems.push(`${answer.status}, where the contract's answer is ${expectedStatus} (ranges are for list files)`);
      return problems;
    }
  } else if (answer.status !== expectedStatus) {
    problems.push(`status ${answer.status}, contract ${expectedStatus}`);
    return problems;
  }

  const multipart = answer.status === 206 && /^multipart\/byteranges/.test(answer.header('content-type') ?? '');
  problems.push(...headerProblems(multipart ? answerWithoutContentType(answer) : answer));
  if (expected.status === 301 && 'location' in expected) {
    const location = answer.all('location');
    if (location.length !== 1 || location[0] !== expected.location)
      problems.push(`Location ${JSON.stringify(location)}, contract ${JSON.stringify(expected.location)}`);
    return problems;
  }

  // The representation: the file or its precompressed sibling, as labelled.
  const coding = answer.header('content-encoding');
  let representation: Buffer | null = body;
  if (coding !== undefined) {
    if (!isFile) problems.push(`Content-Encoding ${coding} on a ${answer.status} answer the contract writes itself`);
    else if (!accepts(header(request, 'Accept-Encoding'), coding))
      problems.push(`Content-Encoding ${coding}, which the request's Accept-Encoding does not accept`);
    if (!answer.all('vary').some((v) => /accept-encoding/i.test(v)))
      problems.push(`Content-Encoding ${coding} without Accept-Encoding in Vary`);
    const sibling =
      isFile && 'file' in expected ? path.join(publicDir, `${expected.file}.${coding === 'br' ? 'br' : 'gz'}`) : '';
    representation = sibling && existsSync(sibling) ? readFileSync(sibling) : null;
  }

  if (head) {
    if (answer.body.length) problems.push(`HEAD answered with ${answer.body.length} bytes of body`);
    return problems;
  }

  if (answer.status === 206 || answer.status === 416) {
    const length = representation?.length ?? Number(/\/(\d+)$/.exec(answer.header('content-range') ?? '')?.[1]);
    const parsed = byteRanges(range as string, length);
    if (parsed === null) {
      problems.push(`${answer.status} to an invalid Range (${range}), which must be ignored: 200`);
      return problems;
    }
    if (answer.status === 416) {
      if (parsed.satisfiable) problems.push(`416 to a satisfiable Range (${range})`);
      return problems;
    }
    if (parsed.ranges.length > 1) {
      problems.push(`${answer.status} to several ranges (${range}), which must be ignored: 200`);
      return problems;
    }
    if (!parsed.satisfiable) problems.push(`206 to an unsatisfiable Range (${range})`);
    const cr = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(answer.header('content-range') ?? '');
    if (!cr) {
      problems.push(`206 with Content-Range ${JSON.stringify(answer.header('content-range'))}`);
      return problems;
    }
    const [first, last] = [Number(cr[1]), Number(cr[2])];
    const covers = parsed.ranges.every((r) => r.first >= first && Math.min(r.last, length - 1) <= last);
    if (!covers) problems.push(`206 of bytes ${first}-${last} for Range ${range}: not every range`);
    if (representation && !answer.body.equals(representation.subarray(first, last + 1)))
      problems.push(`206 body is not bytes ${first}-${last} of the answer`);
    return problems;
  }

  // A whole answer: decoded, it is the contract's body.
  const received = decodedBody(answer);
  if (received === null) {
    problems.push(`a body that is not ${coding}`);
    return problems;
  }
  const want = fixed !== undefined ? Buffer.from(fixed) : (body as Buffer);
  if (!received.equals(want)) problems.push(`body ${show(received)}, contract ${show(want)}`);
  return problems;
}

/** Section 5.3: the event list sorted by the terms, as DRF's JSONRenderer writes it. */
function sortedBody(publicDir: string, file: string, terms: OrderTerm[]): Buffer {
  const text = readFileSync(path.join(publicDir, file), 'utf8');
  // The list file is DRF's bytes: each record's text is kept, only their order changes.
  const records = splitTopLevel(text);
  const parsed = records.map((raw) => ({ raw, ...(JSON.parse(raw) as { id: number }) }));
  const sorted = sortRecords(parsed, terms);
  return Buffer.from(`[${sorted.map((r) => r.raw).join(',')}]`);
}

/** The texts of the items of a JSON array, as written. */
function splitTopLevel(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 1;
  let inString = false;
  for (let i = 1; i < text.length - 1; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      items.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (text.length > 2) items.push(text.slice(start, text.length - 1));
  return items;
}
