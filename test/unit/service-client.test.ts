// The service client of `npm run import` and `npm run verify` (scripts/migrate/client.ts),
// against a real node:http server on 127.0.0.1: retries, timeouts, closed connections, the
// bound on requests in flight, a path prefix, the origin rule, redirects and raw methods.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
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

  it('resolves targets under a path prefix, and takes absolute links on the same origin', async () => {
    const { base, seen } = await serve((_req, res) => res.end('ok'));
    const client = serviceClient(`${base}api/`, FAST);
    await client.request('virtualbooth-texture/?page=2');
    await client.request(`${base}api/virtualbooth-texture/?page=3`);
    expect(seen).toEqual(['GET /api/virtualbooth-texture/?page=2', 'GET /api/virtualbooth-texture/?page=3']);
  });

  it('refuses a target on another origin without a connection', async () => {
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
