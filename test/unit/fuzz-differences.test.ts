// The request fuzzer's documented differences (FUZZ_DIFFERENCES in test/e2e/expectations.ts) of
// cloudflare-pages-static and of the workers' runtime: an answer counts under a reason only when
// it is exactly what the contract says for the request as the target reads it, judged by the
// fuzzer's own oracle against a build of the sample. Anything else, a wrong file under 200
// above all, stays undocumented.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fuzzDifference } from '../e2e/expectations.ts';
import { API_HEADERS, NOT_FOUND_BODY } from '../e2e/lib/contract.ts';
import { judge } from '../e2e/lib/fuzz-oracle.ts';
import { Answer } from '../e2e/lib/http.ts';
import type { RawRequest } from '../e2e/lib/raw-http.ts';
import { declares, missingList } from '../fixtures/sample.ts';
import { builtSample } from './helpers/sample-output.ts';

const PUBLIC = await builtSample();
const file = (name: string) => readFileSync(path.join(PUBLIC, name));
const HEADERS = Object.entries(API_HEADERS);

const request = (method: string, target: string, headers: Array<[string, string]> = []): RawRequest => ({
  method,
  target,
  headers,
});
const answer = (status: number, body: Buffer | string, headers = HEADERS) =>
  new Answer('GET', '/', status, headers, Buffer.from(body));

/** The reason the fuzzer counts `got` under on `target`; null when the answer is the contract's. */
function verdict(target: string, sent: RawRequest, got: Answer | string): string | null | undefined {
  const problems = judge(sent, got, PUBLIC);
  if (problems.length === 0) return null;
  return fuzzDifference(target, { request: sent, answer: got, problems, publicDir: PUBLIC });
}
const pages = (sent: RawRequest, got: Answer | string) => verdict('cloudflare-pages-static', sent, got);

describe('cloudflare-pages-static: the query is ignored (pages-no-query)', () => {
  it('counts the plain list, the answer to the request without its query', ({ skip }) => {
    skip(!declares('virtualbooth-texture'), missingList('virtualbooth-texture'));
    expect(pages(request('GET', '/event/?ordering=-id'), answer(200, file('event/index.json')))).toBe('pages-no-query');
    expect(
      pages(request('GET', '/virtualbooth-texture/?page=2'), answer(200, file('virtualbooth-texture/index.json'))),
    ).toBe('pages-no-query');
    expect(pages(request('GET', '/company/?format=xml'), answer(200, file('company/index.json')))).toBe(
      'pages-no-query',
    );
  });

  it('leaves a 200 with any other file undocumented', () => {
    expect(pages(request('GET', '/event/?ordering=-id'), answer(200, file('company/index.json')))).toBeUndefined();
    expect(
      pages(request('GET', '/virtualbooth-texture/?page=2'), answer(200, file('virtualbooth-texture/page=3.json'))),
    ).toBeUndefined();
    expect(pages(request('GET', '/company/'), answer(200, file('event/index.json')))).toBeUndefined();
  });

  it('leaves the list undocumented without its headers', () => {
    expect(pages(request('GET', '/event/?page=2'), answer(200, file('event/index.json'), []))).toBeUndefined();
  });
});

describe('cloudflare-pages-static: the readings combine, each only where it applies', () => {
  it('counts a dot segment and a query together, the list of the resolved path', () => {
    expect(pages(request('GET', '/x/../company/?page=2'), answer(200, file('company/index.json')))).toBe(
      'pages-no-query',
    );
    expect(pages(request('GET', '/company/./'), answer(200, file('company/index.json')))).toBe('workerd-dot-segments');
    expect(pages(request('GET', '/x/../company/'), answer(200, file('event/index.json')))).toBeUndefined();
  });

  it('counts the list for an Accept no renderer can answer, not another file', () => {
    const xml: Array<[string, string]> = [['Accept', 'application/xml']];
    expect(pages(request('GET', '/event/', xml), answer(200, file('event/index.json')))).toBe('pages-no-negotiation');
    expect(pages(request('GET', '/event/', xml), answer(200, file('virtualfair/index.json')))).toBeUndefined();
  });

  it("counts an escaped list path's Not found, not a 404 without the contract's body", () => {
    expect(pages(request('GET', '/%63ompany/'), answer(404, NOT_FOUND_BODY))).toBe('pages-encoded-path');
    expect(pages(request('GET', '/company%2F'), answer(404, NOT_FOUND_BODY))).toBe('pages-encoded-path');
    expect(pages(request('GET', '/%63ompany/'), answer(404, ''))).toBeUndefined();
    expect(pages(request('GET', '/company/'), answer(404, NOT_FOUND_BODY))).toBeUndefined();
  });
});

describe("cloudflare-pages-static: the asset server's and wrangler's own answers", () => {
  it("counts Pages' empty 405 to a method but GET and HEAD, compressed or not, with the six headers", () => {
    expect(pages(request('POST', '/company/'), answer(405, ''))).toBe('pages-asset-methods');
    expect(pages(request('OPTIONS', '/event/?page=2'), answer(405, ''))).toBe('pages-asset-methods');
    const gzipped = [...HEADERS, ['content-encoding', 'gzip']] as Array<[string, string]>;
    expect(pages(request('DELETE', '/nope/', [['Accept-Encoding', 'gzip']]), answer(405, gzipSync(''), gzipped))).toBe(
      'pages-asset-methods',
    );
  });

  it('leaves a 405 with a body, without the headers, or to GET undocumented', () => {
    expect(pages(request('POST', '/company/'), answer(405, 'Method Not Allowed'))).toBeUndefined();
    expect(pages(request('POST', '/company/'), answer(405, '', []))).toBeUndefined();
    expect(pages(request('GET', '/company/'), answer(405, ''))).toBeUndefined();
  });

  it('counts no answer to TRACE only', () => {
    const none = 'no complete answer within 10000 ms (0 bytes)';
    expect(pages(request('TRACE', '/company/'), none)).toBe('wrangler-pages-dev-trace');
    expect(pages(request('GET', '/company/'), none)).toBeUndefined();
  });
});

describe('the other targets keep their own differences', () => {
  it('does not read the query away on the targets with code', () => {
    for (const target of ['cloudflare-workers', 'cloudflare-pages', 'local', 'nginx'])
      expect(verdict(target, request('GET', '/event/?ordering=-id'), answer(200, file('event/index.json')))).toBe(
        undefined,
      );
  });
});

describe('several ranges: ignored, as contract section 2 says', () => {
  const several: Array<[string, string]> = [['Range', 'bytes=0-0,5-9']];
  const list = file('company/index.json');
  const multipart = answer(206, `--b\r\nContent-Range: bytes 0-0/${list.length}\r\n\r\n[\r\n--b--\r\n`, [
    ...HEADERS.filter(([name]) => name !== 'content-type'),
    ['content-type', 'multipart/byteranges; boundary=b'],
  ]);

  it('takes the whole list as the answer', () => {
    expect(verdict('nginx', request('GET', '/company/', several), answer(200, list))).toBeNull();
  });

  it('leaves a multipart 206 undocumented on every web server', () => {
    expect(judge(request('GET', '/company/', several), multipart, PUBLIC)).toContainEqual(
      expect.stringMatching(/^206 to several ranges/),
    );
    for (const target of ['nginx', 'caddy', 'apache'])
      expect(verdict(target, request('GET', '/company/', several), multipart), target).toBeUndefined();
  });
});

describe("cloudflare-workers: the edge's encoding, as miniflare stands for it (workerd-edge-encoding)", () => {
  const workers = (sent: RawRequest, got: Answer | string) => verdict('cloudflare-workers', sent, got);
  const refused = answer(415, 'Unsupported Media Type', [['content-type', 'text/plain;charset=UTF-8']]);

  it('counts its 415 to an Accept-Encoding that refuses identity, by name or by *', () => {
    for (const refusing of ['identity;q=0', '*;q=0', 'identity; q=0.0', 'deflate, *;q=0'])
      expect(workers(request('GET', '/event/', [['Accept-Encoding', refusing]]), refused), refusing).toBe(
        'workerd-edge-encoding',
      );
    expect(workers(request('GET', '/event/', [['Accept-Encoding', 'gzip;q=0']]), refused)).toBeUndefined();
  });

  it("counts a gzipped 206 whose body is the contract's slice, and no other", () => {
    const whole = file('event/index.json');
    const sent = request('GET', '/event/', [
      ['Range', 'bytes=3-12'],
      ['Accept-Encoding', 'gzip'],
    ]);
    const sliced = (bytes: Buffer) =>
      answer(206, gzipSync(bytes), [
        ...HEADERS,
        ['content-encoding', 'gzip'],
        ['content-range', `bytes 3-12/${whole.length}`],
      ] as Array<[string, string]>);
    expect(workers(sent, sliced(whole.subarray(3, 13)))).toBe('workerd-edge-encoding');
    expect(workers(sent, sliced(whole.subarray(4, 14)))).toBeUndefined();
  });
});
