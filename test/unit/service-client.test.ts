// The service client of `npm run import` and `npm run verify` (scripts/migrate/client.ts),
// against a real node:http server on 127.0.0.1: retries, timeouts, closed connections, the
// bound on requests in flight, a path prefix, the origin rule, redirects and raw methods; and
// against a server that writes its answers byte by byte, in every framing a real server uses.

import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceError, serviceClient } from '../../scripts/migrate/client.ts';

type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const servers: http.Server[] = [];

/** A server answering each request with `route`; every request it receives is counted in `seen`. */
async function serve(route: Route): Promise<{ base: string; seen: string[] }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    route(req, res);
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, seen };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

const FAST = { retryDelayMs: 5, timeoutMs: 2_000 };

describe('serviceClient', () => {
  it('answers with the status, lower-case headers and the raw body, sending no Accept-Encoding', async () => {
    let acceptEncoding: string | undefined = 'unset';
    const { base } = await serve((req, res) => {
      acceptEncoding = req.headers['accept-encoding'];
      res.writeHead(200, { 'Content-Type': 'application/json', Vary: 'Accept', 'Content-Encoding': 'identity' });
      res.end('[{"id":1}]');
    });
    const answer = await serviceClient(base, FAST).request('company/');
    expect(answer.url).toBe(`${base}company/`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers.vary).toBe('Accept');
    expect(answer.body.toString()).toBe('[{"id":1}]');
    expect(acceptEncoding).toBeUndefined();
  });

  it('keeps a header sent twice as a list', async () => {
    const { base } = await serve((_req, res) => {
      res.setHeader('Content-Type', ['application/json', 'text/html']);
      res.end('{}');
    });
    const answer = await serviceClient(base, FAST).request('company/');
    expect(answer.headers['content-type']).toEqual(['application/json', 'text/html']);
  });

  it('retries a 503 and returns the 200 that follows', async () => {
    let calls = 0;
    const { base, seen } = await serve((_req, res) => {
      calls += 1;
      res.statusCode = calls === 1 ? 503 : 200;
      res.end(calls === 1 ? 'busy' : 'ok');
    });
    const answer = await serviceClient(base, FAST).request('event/');
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('ok');
    expect(seen).toEqual(['GET /event/', 'GET /event/']);
  });

  it('returns the last 5xx after the last retry, for the caller to judge', async () => {
    const { base, seen } = await serve((_req, res) => {
      res.statusCode = 500;
      res.end('{"detail":"A server error occurred."}');
    });
    const answer = await serviceClient(base, { ...FAST, retries: 2 }).request('event/');
    expect(answer.status).toBe(500);
    expect(seen).toHaveLength(3);
  });

  it('backs off, doubling the delay at each retry', async () => {
    const times: number[] = [];
    const { base } = await serve((_req, res) => {
      times.push(performance.now());
      res.statusCode = 502;
      res.end();
    });
    await serviceClient(base, { retries: 2, retryDelayMs: 60 }).request('event/');
    const gaps = [(times[1] as number) - (times[0] as number), (times[2] as number) - (times[1] as number)];
    expect(gaps[0]).toBeGreaterThanOrEqual(55);
    expect(gaps[1]).toBeGreaterThanOrEqual(115);
  });

  it('gives up on a service that does not answer with a ServiceError naming the URL, after every retry', async () => {
    const { base, seen } = await serve(() => {
      // Never answers.
    });
    const request = serviceClient(base, { timeoutMs: 100, retries: 1, retryDelayMs: 5 }).request('event/?ordering=-id');
    await expect(request).rejects.toThrow(ServiceError);
    await expect(request).rejects.toThrow(`GET ${base}event/?ordering=-id: no answer within 0.1 s (tried 2 times)`);
    expect(seen).toHaveLength(2);
  });

  it('times out a body that stops half-way (the limit runs to the last byte)', async () => {
    const { base } = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Length': '100' });
      res.write('[{"id":1}');
    });
    const request = serviceClient(base, { timeoutMs: 150, retries: 0 }).request('company/');
    await expect(request).rejects.toThrow(`GET ${base}company/: no answer within 0.15 s (tried once)`);
  });

  it('reports a connection closed before the answer, and one closed mid-body', async () => {
    const { base } = await serve((req, res) => {
      if (req.url === '/closed/') req.socket.destroy();
      else {
        res.writeHead(200, { 'Content-Length': '100' });
        res.write('[{"id":1}', () => req.socket.destroy());
      }
    });
    const client = serviceClient(base, { ...FAST, retries: 1 });
    await expect(client.request('closed/')).rejects.toThrow(
      `GET ${base}closed/: the connection was closed before the answer was complete (tried 2 times)`,
    );
    await expect(client.request('cut/')).rejects.toThrow(
      `GET ${base}cut/: the connection was closed before the answer was complete (tried 2 times)`,
    );
  });

  it('reports a refused connection', async () => {
    const { base } = await serve(() => {});
    const server = servers.pop() as http.Server;
    await new Promise((done) => server.close(done));
    await expect(serviceClient(base, { ...FAST, retries: 0 }).request('company/')).rejects.toThrow(
      `GET ${base}company/: connection refused (tried once)`,
    );
  });

  it('keeps at most `concurrency` requests in flight, counted by the server', async () => {
    let inFlight = 0;
    let most = 0;
    const { base, seen } = await serve((_req, res) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        res.end('ok');
      }, 80);
    });
    const client = serviceClient(base, { ...FAST, concurrency: 2 });
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => client.request(`event/?page=${n}`)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(seen).toHaveLength(5);
    expect(most).toBe(2);
  });

  it('resolves URLs under a path prefix, and takes absolute links on the same origin', async () => {
    const { base, seen } = await serve((_req, res) => res.end('ok'));
    const client = serviceClient(`${base}api/`, FAST);
    await client.request('virtualbooth-texture/?page=2');
    await client.request(`${base}api/virtualbooth-texture/?page=3`);
    expect(seen).toEqual(['GET /api/virtualbooth-texture/?page=2', 'GET /api/virtualbooth-texture/?page=3']);
  });

  it('refuses a URL on another origin without a connection', async () => {
    const { base, seen } = await serve((_req, res) => res.end('ok'));
    const other = await serve((_req, res) => res.end('ok'));
    const client = serviceClient(`${base}api/`, FAST);
    const elsewhere = `${other.base}api/virtualbooth-texture/?page=2`;
    await expect(client.request(elsewhere)).rejects.toThrow(
      `GET ${elsewhere}: ${other.base.slice(0, -1)} is on another origin than the service's base URL ${base}api/`,
    );
    await expect(client.request('//example.com/api/')).rejects.toThrow(ServiceError);
    expect(seen).toEqual([]);
    expect(other.seen).toEqual([]);
  });

  it('returns a redirect as it is, without following it', async () => {
    const { base, seen } = await serve((req, res) => {
      if (req.url === '/company') res.writeHead(301, { Location: '/company/' }).end();
      else res.end('the list');
    });
    const answer = await serviceClient(base, FAST).request('company');
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe('/company/');
    expect(seen).toEqual(['GET /company']);
  });

  it('sends TRACE and other methods as given, with the given headers', async () => {
    const { base, seen } = await serve((req, res) => {
      res.writeHead(405, { 'X-Got': String(req.headers['x-test']) }).end();
    });
    const client = serviceClient(base, FAST);
    const trace = await client.request('company/', { method: 'TRACE', headers: { 'X-Test': 'yes' } });
    const options = await client.request('company/', { method: 'OPTIONS' });
    expect(trace.status).toBe(405);
    expect(trace.headers['x-got']).toBe('yes');
    expect(options.status).toBe(405);
    expect(seen).toEqual(['TRACE /company/', 'OPTIONS /company/']);
  });

  it('calls onAnswer with each answer', async () => {
    const { base } = await serve((_req, res) => res.end('12345'));
    const sizes: number[] = [];
    const client = serviceClient(base, { ...FAST, onAnswer: (answer) => sizes.push(answer.body.length) });
    await client.request('a/');
    await client.request('b/');
    expect(sizes).toEqual([5, 5]);
  });
});

/**
 * A server that writes each answer as given, on raw TCP: `answers` is called with the method of
 * each request and the number of that request on its connection, from 1. An answer ends with
 * the connection closed when `close` is set, else the connection stays open for the next one,
 * whatever the request asked.
 */
async function rawServe(
  answers: (method: string, nth: number) => { bytes: string[]; close?: boolean },
): Promise<{ base: string; requests: string[] }> {
  const requests: string[] = [];
  const server = net.createServer((socket) => {
    rawSockets.push(socket);
    let nth = 0;
    let pending = '';
    let writing = Promise.resolve();
    socket.on('data', (chunk) => {
      pending += chunk.toString('latin1');
      while (pending.includes('\r\n\r\n')) {
        const head = pending.slice(0, pending.indexOf('\r\n\r\n'));
        pending = pending.slice(head.length + 4);
        const method = head.split(' ')[0] as string;
        nth += 1;
        requests.push(`${method} #${nth}`);
        const { bytes, close } = answers(method, nth);
        // Each part on its own write, a moment apart, as a server that sends the head and then
        // the body does; the answers of one connection in the order of its requests.
        writing = writing.then(async () => {
          for (const part of bytes) {
            if (socket.destroyed) return;
            socket.write(part);
            await new Promise((done) => setTimeout(done, 5));
          }
          if (close) socket.end();
        });
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  rawServers.push(server);
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests };
}

const rawServers: net.Server[] = [];
const rawSockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of rawSockets.splice(0)) socket.destroy();
  for (const server of rawServers.splice(0)) await new Promise((done) => server.close(done));
});

const BODY = '[{"id":1},{"id":2}]';
const HEAD_LINES = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nVary: Accept\r\n';
const LENGTH = `Content-Length: ${BODY.length}\r\n`;
/** The body in two chunks, then the last, empty one. */
const CHUNKED_BODY = [
  `5\r\n${BODY.slice(0, 5)}\r\n`,
  `${(BODY.length - 5).toString(16)}\r\n${BODY.slice(5)}\r\n0\r\n\r\n`,
];

describe('serviceClient on every framing of an answer', () => {
  it.each([
    ['Content-Length', [`${HEAD_LINES}${LENGTH}\r\n`, BODY], false],
    ['chunked', [`${HEAD_LINES}Transfer-Encoding: chunked\r\n\r\n`, ...CHUNKED_BODY], false],
    ['no length, ended by Connection: close', [`${HEAD_LINES}Connection: close\r\n\r\n`, BODY], true],
    ['no length and no Connection header, ended by closing', [`${HEAD_LINES}\r\n`, BODY], true],
  ] as const)('reads a GET answer framed by %s whole', async (_framing, bytes, close) => {
    const { base } = await rawServe(() => ({ bytes: [...bytes], close }));
    const answer = await serviceClient(base, FAST).request('company/');
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe(BODY);
    expect(answer.bodyOnHead).toBeUndefined();
  });

  it.each([
    ['Content-Length', [`${HEAD_LINES}${LENGTH}\r\n`, BODY]],
    ['chunked', [`${HEAD_LINES}Transfer-Encoding: chunked\r\n\r\n`, ...CHUNKED_BODY]],
  ])('reads several answers framed by %s on one kept-alive connection', async (_framing, bytes) => {
    const { base, requests } = await rawServe(() => ({ bytes: [...bytes] }));
    const client = serviceClient(base, { ...FAST, concurrency: 1 });
    for (const target of ['company/', 'event/', 'virtualfair/'])
      expect((await client.request(target)).body.toString()).toBe(BODY);
    expect(requests).toEqual(['GET #1', 'GET #2', 'GET #3']);
  });

  it.each([
    ['its Content-Length that of the GET', `${HEAD_LINES}${LENGTH}\r\n`],
    ['chunked', `${HEAD_LINES}Transfer-Encoding: chunked\r\n\r\n`],
    ['no length', `${HEAD_LINES}Connection: close\r\n\r\n`],
  ])('reads an answer to HEAD without a body, %s', async (_framing, head) => {
    const { base, requests } = await rawServe(() => ({ bytes: [head], close: true }));
    const answer = await serviceClient(base, { ...FAST, retries: 0 }).request('company/', { method: 'HEAD' });
    expect(answer).toMatchObject({ status: 200, bodyOnHead: false });
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.body.length).toBe(0);
    expect(requests).toEqual(['HEAD #1']);
  });

  it.each([
    ['under Content-Length with Connection: close', [`${HEAD_LINES}${LENGTH}Connection: close\r\n\r\n`, BODY], true],
    ['under Content-Length on a kept-alive connection', [`${HEAD_LINES}${LENGTH}\r\n`, BODY], true],
    // A server that keeps the connection open although the request said `Connection: close`.
    ['under Content-Length, the connection left open', [`${HEAD_LINES}${LENGTH}\r\n`, BODY], false],
    ['chunked, the connection left open', [`${HEAD_LINES}Transfer-Encoding: chunked\r\n\r\n`, ...CHUNKED_BODY], false],
  ] as const)(
    'reads past a body sent on HEAD %s, says so, and the next requests are answered right',
    async (_how, bytes, close) => {
      const { base, requests } = await rawServe((method) =>
        method === 'HEAD' ? { bytes: [...bytes], close } : { bytes: [`${HEAD_LINES}Content-Length: 2\r\n\r\n`, '[]'] },
      );
      const client = serviceClient(base, { ...FAST, retries: 0, concurrency: 1 });
      const answer = await client.request('company/', { method: 'HEAD' });
      expect(answer).toMatchObject({ status: 200, bodyOnHead: true });
      expect(answer.headers['content-type']).toBe('application/json');
      expect(answer.body.length).toBe(0);
      expect((await client.request('company/')).body.toString()).toBe('[]');
      expect((await client.request('event/')).body.toString()).toBe('[]');
      // HEAD on a connection of its own: the GETs, on the client's pooled connection, never met
      // the stray body.
      expect(requests).toEqual(['HEAD #1', 'GET #1', 'GET #2']);
    },
  );
});
