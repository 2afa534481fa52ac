// `npm run verify` (scripts/migrate/verify*.ts, scripts/cli/verify-command.ts). The sample data,
// built and served by the real local server behind a small proxy on 127.0.0.1, stands in for the
// running DRF service; the proxy strips a path prefix or spoils one answer to make it differ.
// drf-service.test.ts runs verify against a real DRF service under gunicorn.

import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { REJECTED_METHODS, type Route, requestOf, resolve } from '../../scripts/contract/routes.ts';
import { ServiceError, serviceClient } from '../../scripts/migrate/client.ts';
import { summaryLine, verifyAgainst } from '../../scripts/migrate/verify.ts';
import { verifyRequests } from '../../scripts/migrate/verify-requests.ts';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { type Finished, hasStackTrace, runCommand } from '../unit/helpers/cli.ts';

interface Answer {
  status: number;
  headers: http.OutgoingHttpHeaders;
  body: Buffer;
}

/** Changes the answer to `method url` (the url without the prefix, as the upstream saw it). */
type Tamper = (method: string, url: string, answer: Answer) => Answer;

/** The stand-in service: a proxy in front of the local server, which can strip a prefix and spoil answers. */
interface StandIn {
  /** The service's base URL, with its prefix and a trailing slash. */
  base: string;
  upstream: string;
  tamper: Tamper | undefined;
  server: http.Server;
}

const servers: http.Server[] = [];
let folder: string;

async function listening(server: http.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as AddressInfo).port;
}

/** A proxy that listens before its upstream exists, since the upstream's links name the proxy's port. */
async function standIn(prefix: string): Promise<StandIn> {
  const service: StandIn = { base: '', upstream: '', tamper: undefined, server: http.createServer() };
  service.server.on('request', (req, res) => {
    const method = req.method ?? 'GET';
    // Relative to the base URL, as verify names requests: `company/`.
    const url = (req.url ?? '/').slice(prefix.length + 1);
    const respond = (upstream: http.IncomingMessage, body: Buffer) => {
      const headers: http.OutgoingHttpHeaders = { ...upstream.headers };
      // The redirect of a service under a prefix names the path with its prefix.
      if (typeof headers.location === 'string') headers.location = `${prefix}${headers.location}`;
      const untouched: Answer = { status: upstream.statusCode ?? 0, headers, body };
      const answer = service.tamper?.(method, url, untouched) ?? untouched;
      if (method !== 'HEAD') answer.headers['content-length'] = String(answer.body.length);
      res.writeHead(answer.status, answer.headers).end(method === 'HEAD' ? undefined : answer.body);
    };
    const forwarded = http.request(`${service.upstream}${url}`, { method, headers: req.headers });
    forwarded.once('response', (upstream) => {
      const chunks: Buffer[] = [];
      upstream.on('data', (chunk: Buffer) => chunks.push(chunk));
      upstream.once('end', () => {
        try {
          respond(upstream, Buffer.concat(chunks));
        } catch (error) {
          // Not left hanging until the client's timeout: the test fails on the error at once.
          res.destroy();
          throw error;
        }
      });
    });
    forwarded.once('error', () => res.destroy());
    req.pipe(forwarded);
  });
  const port = await listening(service.server);
  service.base = `http://127.0.0.1:${port}${prefix}/`;
  return service;
}

/** The sample data built with page links on `base` (no trailing slash), served by the local server. */
async function servedBuild(name: string, baseUrl: string): Promise<{ url: string; outDir: string; routes: Route[] }> {
  const outDir = path.join(folder, name, 'public');
  const { routes } = await build({
    resources: API,
    dataDir: SAMPLE_DATA,
    headersPath: SAMPLE_HEADERS,
    baseUrl,
    pageSize: 10,
    outDir,
    targetsDir: path.join(folder, name, 'targets'),
    targets: [],
  });
  const server = createApiServer(outDir, API);
  servers.push(server);
  return { url: `${await listen(server, '127.0.0.1', 0)}/`, outDir, routes };
}

let plain: StandIn;
let prefixed: StandIn;
let served: Awaited<ReturnType<typeof servedBuild>>;

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'verify-test-'));
  plain = await standIn('');
  prefixed = await standIn('/api');
  served = await servedBuild('plain', plain.base.slice(0, -1));
  plain.upstream = served.url;
  prefixed.upstream = (await servedBuild('prefixed', prefixed.base.slice(0, -1))).url;
});

afterEach(() => {
  plain.tamper = undefined;
});

afterAll(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
  await rm(folder, { recursive: true, force: true });
});

/** Verifies the stand-in against the local server that serves the same build, in this process. */
function verifyInProcess(service: StandIn) {
  return verifyAgainst(
    { client: serviceClient(service.base, { retryDelayMs: 1 }), base: service.base },
    { client: serviceClient(served.url), base: served.url },
    verifyRequests(served.routes, API),
    API,
  );
}

/** `npm run verify` in a process of its own, with a temporary folder of its own to check it cleans up. */
async function runVerify(args: readonly string[]): Promise<Finished & { leftovers: string[] }> {
  const tmp = await mkdtemp(path.join(folder, 'tmp-'));
  const finished = await runCommand('verify', args, { env: { TMPDIR: tmp }, timeoutMs: 25_000 });
  // tsx keeps its cache there too.
  const leftovers = (await readdir(tmp)).filter((name) => name.startsWith('static-api-verify-'));
  return { ...finished, leftovers };
}

/** The flags that make the command build the sample data as the stand-in serves it. */
function commandArgs(service: StandIn): string[] {
  const noSettingsFile = path.join(folder, 'no-settings.json');
  return [
    '--against',
    service.base,
    '--data',
    'data',
    '--base-url',
    service.base.slice(0, -1),
    '--config',
    noSettingsFile,
  ];
}

describe('the requests verify asks', () => {
  it('are every route of the table, then the answers resolve() decides without a file', () => {
    const requests = verifyRequests(served.routes, API);
    const asked = requests.map(({ method, url }) => `${method} /${url}`);
    for (const route of served.routes) expect(asked).toContain(`GET ${requestOf(route.file, API)}`);
    for (const { path: list } of API) {
      for (const method of ['HEAD', 'OPTIONS', ...REJECTED_METHODS]) expect(asked).toContain(`${method} ${list}`);
      expect(resolve('GET', list.slice(0, -1), API).kind).toBe('redirect');
      expect(asked).toContain(`GET ${list.slice(0, -1)}`);
    }
    const kinds = requests.map(({ method, url }) => resolve(method, `/${url}`, API).kind);
    expect(kinds).toContain('sorted');
    const notFound = requests.filter(({ method, url }) => {
      const answer = resolve(method, `/${url}`, API);
      return answer.kind === 'file' && answer.status === 404;
    });
    expect(notFound.map(({ url }) => url)).toEqual([
      'no-such-list/',
      'company/?format=no-such-format',
      'virtualbooth-texture/?page=0',
    ]);
    // The page after the last is asked too: resolve() cannot know it is missing, the build can.
    const lastPage = served.routes.filter((route) => route.query.page && !route.query.format).length;
    expect(asked).toContain(`GET /virtualbooth-texture/?page=${lastPage + 1}`);
    expect(served.routes.some((route) => route.query.page === String(lastPage))).toBe(true);
    expect(new Set(asked).size).toBe(asked.length);
  });
});

describe('npm run verify', () => {
  it('finds nothing different between a service and the same build', async () => {
    const report = await verifyInProcess(plain);
    expect(report.lines).toEqual([]);
    expect(report).toMatchObject({ requests: verifyRequests(served.routes, API).length, differ: 0, departed: 0 });
    expect(report.same).toBe(report.requests);
  });

  it('exits 0 with the summary when the service answers as the build does, and removes its folder', async () => {
    const result = await runVerify(commandArgs(plain));
    const count = verifyRequests(served.routes, API).length;
    expect(result.stdout).toBe(`verify: ${count} requests, ${count} the same, 0 differ\n`);
    expect(result.code).toBe(0);
    expect(result.leftovers).toEqual([]);
  });

  it('names the route, the record and the field of a changed record, and exits 1', async () => {
    const companies = path.join(served.outDir, 'company/index.json');
    const page2 = path.join(served.outDir, 'virtualbooth-texture/page=2.json');
    const [companyText, pageText] = await Promise.all([readFile(companies, 'utf8'), readFile(page2, 'utf8')]);
    const company = (JSON.parse(companyText) as Array<{ id: number; name: string; city: string }>)[0];
    const texture = (JSON.parse(pageText) as { results: Array<{ id: string; name: string }> }).results[1];
    if (!company || !texture) throw new Error('the sample data has too few records for this test');
    try {
      await writeFile(companies, companyText.replace(`"city":${JSON.stringify(company.city)}`, '"city":"Bonn"'));
      await writeFile(page2, pageText.replace(`"name":${JSON.stringify(texture.name)}`, '"name":"Renamed"'));
      const result = await runVerify(commandArgs(plain));
      const count = verifyRequests(served.routes, API).length;
      expect(result.stdout.split('\n')).toEqual([
        'Each difference reads: as the service answers → as this build answers.',
        `GET company/: company ${company.id} ${JSON.stringify(company.name)}: city "Bonn" → ${JSON.stringify(company.city)}`,
        `GET virtualbooth-texture/?page=2: virtualbooth-texture ${texture.id} ${JSON.stringify(texture.name)}: name "Renamed" → ${JSON.stringify(texture.name)}`,
        `verify: ${count} requests, ${count - 2} the same, 2 differ`,
        '',
      ]);
      expect(result.code).toBe(1);
      expect(result.leftovers).toEqual([]);
    } finally {
      await Promise.all([writeFile(companies, companyText), writeFile(page2, pageText)]);
    }
  });

  it('lists the problems of bad data and asks nothing', async () => {
    let asked = 0;
    plain.tamper = (_method, _url, answer) => {
      asked += 1;
      return answer;
    };
    const args = commandArgs(plain);
    args[args.indexOf('--data') + 1] = path.resolve('test/fixtures/broken/duplicate-id/data');
    const result = await runVerify(args);
    expect(result.stderr).toMatch(/problems? in the source data; nothing was verified\.\n$/);
    expect(result.stderr).toContain('duplicate-id/data/');
    expect(result.stdout).toBe('');
    expect(result.code).toBe(1);
    expect(asked).toBe(0);
    expect(result.leftovers).toEqual([]);
  });

  it('compares a service under a path prefix, with its redirects and page links under the prefix', async () => {
    const result = await runVerify(commandArgs(prefixed));
    expect(result.stdout).toMatch(/^verify: (\d+) requests, \1 the same, 0 differ\n$/);
    expect(result.code).toBe(0);
  });

  it('reports a service that refuses connections in one line, and exits 1', async () => {
    const closed = http.createServer();
    const port = await listening(closed);
    await new Promise((done) => closed.close(done));
    servers.splice(servers.indexOf(closed), 1);
    const against = `http://127.0.0.1:${port}/`;
    await expect(
      verifyAgainst(
        { client: serviceClient(against, { retries: 0 }), base: against },
        { client: serviceClient(served.url), base: served.url },
        verifyRequests(served.routes, API),
        API,
      ),
    ).rejects.toThrow(ServiceError);
    const result = await runVerify(['--against', against, '--data', SAMPLE_DATA]);
    expect(result.stderr).toContain(`: connection refused (tried 4 times)\n`);
    expect(result.stderr).toMatch(new RegExp(`^GET ${against}[^ ]*: connection refused`, 'm'));
    expect(hasStackTrace(result.stderr)).toBe(false);
    expect(result.stdout).toBe('');
    expect(result.code).toBe(1);
    expect(result.leftovers).toEqual([]);
  });

  it('reports a 5xx of the service on one route, after its retries', async () => {
    plain.tamper = (_method, url, answer) =>
      url === 'event/?ordering=-name'
        ? { ...answer, status: 500, body: Buffer.from('{"detail":"A server error occurred."}') }
        : answer;
    const report = await verifyInProcess(plain);
    expect(report.lines).toEqual([
      'GET event/?ordering=-name: status 500 → 200 (the service\'s body: "{\\"detail\\":\\"A server error occurred.\\"}")',
    ]);
    expect(report.differ).toBe(1);
  });

  it('reports a header of the contract that is missing or different', async () => {
    plain.tamper = (method, url, answer) => {
      if (method !== 'GET' || url !== 'company/') return answer;
      const { vary: _vary, ...headers } = answer.headers;
      return { ...answer, headers: { ...headers, 'content-type': 'application/json; charset=utf-8' } };
    };
    const report = await verifyInProcess(plain);
    expect(report.lines).toEqual([
      'GET company/: Content-Type "application/json; charset=utf-8" → "application/json"',
      'GET company/: Vary none → "Accept"',
    ]);
    expect(summaryLine(report)).toBe(`verify: ${report.requests} requests, ${report.requests - 1} the same, 1 differ`);
  });

  it('reports a missing-slash redirect to the wrong place, relative to each base URL', async () => {
    plain.tamper = (_method, url, answer) =>
      url === 'company' ? { ...answer, headers: { ...answer.headers, location: '/event/' } } : answer;
    const report = await verifyInProcess(plain);
    expect(report.lines).toEqual(['GET company: Location "event/" → "company/"']);
  });

  it('accounts for a list by record: order, a record only on one side, a field added', async () => {
    plain.tamper = (_method, url, answer) => {
      if (url !== 'event/?ordering=-id') return answer;
      const events = JSON.parse(answer.body.toString()) as Array<Record<string, unknown>>;
      const [first, second, , ...rest] = events;
      const changed = [second, { ...first, extra: 1 }, ...rest];
      return { ...answer, body: Buffer.from(JSON.stringify(changed)) };
    };
    const events = JSON.parse(await readFile(path.join(served.outDir, 'event/ordering=-id.json'), 'utf8')) as Array<{
      id: number;
      name: string;
    }>;
    const [first, second, third, fourth] = events as [
      (typeof events)[0],
      (typeof events)[0],
      (typeof events)[0],
      (typeof events)[0],
    ];
    const report = await verifyInProcess(plain);
    expect(report.lines).toEqual([
      `GET event/?ordering=-id: event ${third.id} ${JSON.stringify(third.name)}: only in this build`,
      `GET event/?ordering=-id: event ${first.id} ${JSON.stringify(first.name)}: extra 1 → absent`,
      expect.stringMatching(
        new RegExp(
          `^GET event/\\?ordering=-id: order differs from position 1: ids ${second.id}, ${first.id}, ${fourth.id}, .* → ${first.id}, ${second.id}, ${fourth.id}, `,
        ),
      ),
    ]);
  });

  it("takes Django's own pages where the contract departs from them, and only there", async () => {
    const djangoPage = (answer: Answer, body: string): Answer => {
      const { location } = answer.headers;
      const headers = { 'content-type': 'text/html; charset=utf-8', ...(location ? { location } : {}) };
      return { status: answer.status, headers, body: Buffer.from(body) };
    };
    plain.tamper = (_method, url, answer) => {
      if (url === 'no-such-list/' || url === 'company/?format=no-such-format') {
        return djangoPage(answer, '<h1>Not Found</h1><p>The requested resource was not found on this server.</p>');
      }
      return answer.status === 301 ? djangoPage(answer, '') : answer;
    };
    const report = await verifyInProcess(plain);
    // DRF answers an unknown format itself, in JSON: Django's page there is a difference.
    expect(report.lines).toEqual([
      'GET company/?format=no-such-format: Content-Type "text/html; charset=utf-8" → "application/json"',
      'GET company/?format=no-such-format: Vary none → "Accept"',
      'GET company/?format=no-such-format: Allow none → "GET, HEAD, OPTIONS"',
      'GET company/?format=no-such-format: body "<h1>Not Found</h1><p>The requested resource was not found on this server.</p>" → "{\\"detail\\":\\"Not found.\\"}"',
    ]);
    expect(report.departed).toBe(API.length + 2);
    expect(report.notes).toContain(
      "GET no-such-list/: differs only as the contract decides: Django's 404 page is HTML, the build's is JSON with the API's headers (docs/contract.md, section 8, decisions 1 and 2)",
    );
    expect(summaryLine(report)).toBe(
      `verify: ${report.requests} requests, ${report.requests - API.length - 3} the same, ${API.length + 2} differ only where the contract departs from Django (docs/contract.md, section 8), 1 differ`,
    );
  });

  it("takes a JSON 404 without the API's headers as the contract decides, and still compares its values", async () => {
    // A DRF service whose handler404 returns a JsonResponse: JSON, Django's spacing, no Vary or Allow.
    const jsonNotFound = (body: string): Answer => ({
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(body),
    });
    plain.tamper = (_method, url, answer) =>
      url === 'no-such-list/' ? jsonNotFound('{"detail": "Not found."}') : answer;
    const report = await verifyInProcess(plain);
    expect(report.lines).toEqual([]);
    expect(report).toMatchObject({ departed: 1, differ: 0 });
    expect(report.notes).toEqual([
      "GET no-such-list/: differs only as the contract decides: the build's 404 carries the API's headers, as the contract decides for every 404 (docs/contract.md, section 8, decision 2)",
    ]);
    // Other values in the JSON are the service's own answer, which the build does not give.
    plain.tamper = (_method, url, answer) =>
      url === 'no-such-list/' ? jsonNotFound('{"error": "no such page"}') : answer;
    const other = await verifyInProcess(plain);
    expect(other.lines).toEqual([
      'GET no-such-list/: error "no such page" → absent',
      'GET no-such-list/: detail absent → "Not found."',
    ]);
    expect(other).toMatchObject({ departed: 0, differ: 1 });
  });

  it("takes DRF's browsable API on format=api as the contract decides, and still compares a JSON answer there", async () => {
    type Page = { results: Array<{ id: string; name: string }> };
    const page2 = JSON.parse(
      await readFile(path.join(served.outDir, 'virtualbooth-texture/format=api/page=2.json'), 'utf8'),
    ) as Page;
    const texture = page2.results[0];
    if (!texture) throw new Error('the sample data has too few textures for this test');
    plain.tamper = (_method, url, answer) => {
      if (!url.includes('format=api')) return answer;
      if (url.endsWith('page=2')) {
        const page = JSON.parse(answer.body.toString()) as Page;
        (page.results[0] as { name: string }).name = 'Renamed';
        return { ...answer, body: Buffer.from(JSON.stringify(page)) };
      }
      const headers = { ...answer.headers, 'content-type': 'text/html; charset=utf-8' };
      return {
        ...answer,
        headers,
        body: Buffer.from('<!DOCTYPE html>\n<html><title>Virtual Booth Texture List</title></html>'),
      };
    };
    const report = await verifyInProcess(plain);
    expect(report.lines).toEqual([
      `GET virtualbooth-texture/?format=api&page=2: virtualbooth-texture ${texture.id} ${JSON.stringify(texture.name)}: name "Renamed" → ${JSON.stringify(texture.name)}`,
    ]);
    const browsable = served.routes.filter((route) => route.query.format === 'api').length - 1;
    expect(report).toMatchObject({ departed: browsable, differ: 1 });
    // One line for them all, however many pages.
    expect(report.notes).toEqual([
      `GET virtualbooth-texture/?format=api, virtualbooth-texture/?format=api&page=last, virtualbooth-texture/?format=api&page=3 and ${browsable - 3} more: differs only as the contract decides: DRF's browsable API is an HTML page, the build answers the JSON (docs/contract.md, section 8, decision 11)`,
    ]);
  });

  it('says once that the service sends a body on HEAD, and compares HEAD by its status and headers', async () => {
    // The client reads such a body and flags it (service-client.test.ts); gunicorn sends one
    // (drf-service.test.ts).
    const client = serviceClient(plain.base, { retryDelayMs: 1 });
    const bodyOnHead: ReturnType<typeof serviceClient> = {
      request: async (url, init) => {
        const answer = await client.request(url, init);
        return init?.method === 'HEAD' ? { ...answer, bodyOnHead: true } : answer;
      },
    };
    plain.tamper = (method, url, answer) => {
      if (method !== 'HEAD' || url !== 'event/') return answer;
      const { vary: _vary, ...headers } = answer.headers;
      return { ...answer, headers };
    };
    const report = await verifyAgainst(
      { client: bodyOnHead, base: plain.base },
      { client: serviceClient(served.url), base: served.url },
      verifyRequests(served.routes, API),
      API,
    );
    expect(report.lines).toEqual(['HEAD event/: Vary none → "Accept"']);
    expect(report.notes).toEqual([
      `the service sends a body with its answer to HEAD (${API.length} answers), which HTTP forbids; HEAD is compared by status and headers`,
    ]);
    expect(summaryLine(report)).toBe(`verify: ${report.requests} requests, ${report.requests - 1} the same, 1 differ`);
  });

  it("reports the answer to an unknown path when it is neither the build's nor Django's page", async () => {
    plain.tamper = (_method, url, answer) =>
      url === 'no-such-list/' ? { ...answer, body: Buffer.from('{"detail":"Nothing here."}') } : answer;
    const report = await verifyInProcess(plain);
    expect(report.lines).toEqual(['GET no-such-list/: detail "Nothing here." → "Not found."']);
    expect(report.departed).toBe(0);
  });

  it('says once that the page links have another base URL', async () => {
    const args = commandArgs(plain);
    args[args.indexOf('--base-url') + 1] = 'https://api.example.com';
    const result = await runVerify(args);
    const pages = served.routes.filter((route) => route.resource === 'virtualbooth-texture').length;
    expect(result.stdout).toContain(
      `page links: base URL "${plain.base.slice(0, -1)}" → "https://api.example.com" in ${pages} answers (this build's comes from --base-url or baseUrl in the settings file)\n`,
    );
    expect(result.stdout).not.toContain('next');
    expect(result.code).toBe(1);
  });
});
