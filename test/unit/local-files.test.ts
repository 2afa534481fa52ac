// How the local server sends a list's file over real HTTP: its length, its time and `Accept-Ranges`
// as a static file server sends them, and a Range read as respond/ranges.ts reads it (docs/contract.md,
// section 2): one valid byte range of a GET is 206 with the slice, one that starts past the end
// 416 with no body, anything else (another method, several ranges, bad syntax) the whole 200.

import { readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { API } from '../fixtures/sample.ts';
import { builtSample } from './helpers/sample-output.ts';

let publicDir: string;
let server: http.Server;
let origin: string;
let list: Buffer;

beforeAll(async () => {
  publicDir = await builtSample();
  list = readFileSync(path.join(publicDir, 'event/index.json'));
  server = createApiServer(publicDir, API);
  origin = await listen(server, '127.0.0.1', 0);
}, 30_000);

afterAll(() => new Promise<void>((done) => server.close(() => done())));

interface Seen {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function ask(method: string, target: string, headers: Record<string, string> = {}): Promise<Seen> {
  return new Promise((done, fail) => {
    const request = http.request(`${origin}${target}`, { method, headers, agent: false }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () =>
        done({ status: answer.statusCode ?? 0, headers: answer.headers, body: Buffer.concat(chunks) }),
      );
    });
    request.once('error', fail);
    request.end();
  });
}

describe('the local server sending a file', () => {
  it('sends the whole file with its length, its time and Accept-Ranges', async () => {
    const answer = await ask('GET', '/event/');
    expect(answer.status).toBe(200);
    expect(answer.body.equals(list)).toBe(true);
    expect(answer.headers['content-length']).toBe(String(list.length));
    expect(answer.headers['accept-ranges']).toBe('bytes');
    expect(answer.headers['last-modified']).toBe(
      statSync(path.join(publicDir, 'event/index.json')).mtime.toUTCString(),
    );
    expect(answer.headers['content-disposition']).toBeUndefined();
  });

  it('answers HEAD with the same headers and no body, a Range ignored', async () => {
    const [get, head] = [await ask('GET', '/event/'), await ask('HEAD', '/event/', { Range: 'bytes=0-9' })];
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    const { date: _getDate, ...getHeaders } = get.headers;
    const { date: _headDate, ...headHeaders } = head.headers;
    expect(headHeaders).toEqual(getHeaders);
  });

  it.each([
    ['bytes=0-9', 0, 9],
    ['bytes=100-', 100, -1],
    ['bytes=-12', -12, -1],
    ['bytes=5-99999999', 5, -1],
    // The unit is case-insensitive (RFC 9110 14.1).
    ['BYTES=0-3', 0, 3],
    ['bytes= 2-4 ', 2, 4],
  ])('sends %s as 206 with the slice', async (range, first, last) => {
    const answer = await ask('GET', '/event/', { Range: range });
    const start = first < 0 ? list.length + first : first;
    const end = last < 0 ? list.length - 1 : last;
    expect(answer.status).toBe(206);
    expect(answer.body.equals(list.subarray(start, end + 1))).toBe(true);
    expect(answer.headers['content-range']).toBe(`bytes ${start}-${end}/${list.length}`);
    expect(answer.headers['content-length']).toBe(String(end - start + 1));
  });

  it('answers a range that starts past the end with 416, its Content-Range and no body', async () => {
    const answer = await ask('GET', '/event/', { Range: 'bytes=99999999-' });
    expect(answer.status).toBe(416);
    expect(answer.headers['content-range']).toBe(`bytes */${list.length}`);
    expect(answer.headers['content-length']).toBe('0');
    expect(answer.body.length).toBe(0);
  });

  it.each(['bytes=0-1,5-6', 'bytes=abc', 'bytes=5-2', 'items=0-1'])('ignores %s: the whole 200', async (range) => {
    const answer = await ask('GET', '/event/', { Range: range });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-range']).toBeUndefined();
    expect(answer.body.equals(list)).toBe(true);
  });
});
