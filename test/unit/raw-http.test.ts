// The fuzzer's bare-socket client ends an answer where its framing says, not where the
// connection does: a server that keeps the connection open after a whole answer (wrangler's dev
// proxy does, for seconds) must not make every request wait for it.

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Answer } from '../e2e/lib/http.ts';
import { sendRaw } from '../e2e/lib/raw-http.ts';

const servers: net.Server[] = [];
const sockets = new Set<net.Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

/** A server that writes `answer` (in the given pieces) to every connection and never closes one itself. */
async function keepsOpen(...pieces: string[]): Promise<string> {
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', async () => {
      for (const piece of pieces) {
        socket.write(piece);
        await new Promise((next) => setTimeout(next, 20));
      }
    });
  });
  servers.push(server);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

const GET = { method: 'GET', target: '/', headers: [] } as const;
const TIMEOUT_MS = 3_000;

describe('sendRaw', () => {
  it('ends an answer at its Content-Length, even in pieces', async () => {
    const origin = await keepsOpen('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab', 'cde');
    const answer = await sendRaw(origin, GET, TIMEOUT_MS);
    expect(answer).toBeInstanceOf(Answer);
    expect((answer as Answer).body.toString()).toBe('abcde');
  });

  it('ends a chunked answer at its last chunk', async () => {
    const origin = await keepsOpen('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n', '0\r\n\r\n');
    const answer = await sendRaw(origin, GET, TIMEOUT_MS);
    expect((answer as Answer).body.toString()).toBe('abc');
  });

  it('ends an answer to HEAD, and a 304, at its head', async () => {
    const origin = await keepsOpen('HTTP/1.1 304 Not Modified\r\nETag: "x"\r\n\r\n');
    expect(((await sendRaw(origin, GET, TIMEOUT_MS)) as Answer).status).toBe(304);
    const head = await keepsOpen('HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n');
    expect(((await sendRaw(head, { ...GET, method: 'HEAD' }, TIMEOUT_MS)) as Answer).status).toBe(200);
  });

  it('waits for the connection to end an answer without framing, and says so when it does not', async () => {
    const origin = await keepsOpen('HTTP/1.1 200 OK\r\n\r\nabc');
    expect(await sendRaw(origin, GET, 300)).toMatch(/^no complete answer within 300 ms/);
  });
});
