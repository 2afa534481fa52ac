// The local server's answer to a request whose head is over Node's limit (http.maxHeaderSize,
// 16 KiB): 431, whatever the method, as for GET; an answer to HEAD without a body, which a
// client keeping the connection would read as the next answer. Over real sockets to a build of
// the sample.

import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { sendRaw } from '../e2e/lib/raw-http.ts';
import { API } from '../fixtures/sample.ts';
import { builtSample } from './helpers/sample-output.ts';

const BIG = ['X-Big', 'b'.repeat(http.maxHeaderSize)] as const;

let server: http.Server;
let origin: string;

beforeAll(async () => {
  server = createApiServer(await builtSample(), API);
  origin = await listen(server, '127.0.0.1', 0);
});

afterAll(() => new Promise<void>((done) => server.close(() => done())));

/** Everything the server sends on one connection for `chunks`, written one by one, until it closes. */
function exchange(chunks: readonly string[]): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((done, fail) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', fail);
    socket.on('close', () => done(Buffer.concat(received).toString('latin1')));
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        socket.write(chunk);
        // A pause long enough that the server reads each chunk as a packet of its own.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
  });
}

describe('a head over the limit', () => {
  it('answers 431 to GET with the malformed body, and to HEAD with no body', async () => {
    const get = await sendRaw(origin, { method: 'GET', target: '/company/', headers: [BIG] });
    if (typeof get === 'string') throw new Error(get);
    expect([get.status, get.body.toString('utf8')]).toEqual([431, '{"detail":"Malformed request."}']);
    const head = await sendRaw(origin, { method: 'HEAD', target: '/company/', headers: [BIG] });
    if (typeof head === 'string') throw new Error(head);
    expect([head.status, head.body.length]).toEqual([431, 0]);
  });

  it('answers an unknown method 431 too, not the 405 of a head within the limit', async () => {
    for (const method of ['FOO', 'get']) {
      const small = await sendRaw(origin, { method, target: '/company/', headers: [] });
      if (typeof small === 'string') throw new Error(small);
      expect(small.status, method).toBe(405);
      const big = await sendRaw(origin, { method, target: '/company/', headers: [BIG] });
      if (typeof big === 'string') throw new Error(big);
      expect([big.status, big.body.toString('utf8')], method).toEqual([431, '{"detail":"Malformed request."}']);
    }
  });

  it('sends one head and nothing after it to a HEAD on a kept connection', async () => {
    const request = `HEAD /company/ HTTP/1.1\r\nHost: x\r\n${BIG[0]}: ${BIG[1]}\r\n\r\n`;
    const sent = await exchange([request]);
    expect(sent).toMatch(/^HTTP\/1\.1 431 /);
    expect(sent.slice(sent.indexOf('\r\n\r\n') + 4)).toBe('');
  });

  it('sends no body when the request line came in an earlier packet than the overflow', async () => {
    const sent = await exchange(['HEAD /company/ HTTP/1.1\r\nHost: x\r\n', `${BIG[0]}: ${BIG[1]}\r\n\r\n`]);
    expect(sent).toMatch(/^HTTP\/1\.1 431 /);
    expect(sent).toMatch(/\r\nContent-Length: 0\r\n/i);
    expect(sent.slice(sent.indexOf('\r\n\r\n') + 4)).toBe('');
  });
});
