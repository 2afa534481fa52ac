// `npm run verify`: builds the data into a temporary folder, serves it on the loopback with the
// local server, asks it and the running service the same requests, compares each pair of
// answers, and sums up.

import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BuildOptions, build } from '../builder/build.ts';
import type { Routed } from '../contract/routes.ts';
import { createApiServer, listen } from '../respond/node-server.ts';
import { mapLimited } from '../shared/map-limited.ts';
import { serviceClient } from './client.ts';
import { compareAnswers } from './verify-compare.ts';
import { queryRequests } from './verify-queries.ts';
import { type VerifyRequest, verifyRequests } from './verify-requests.ts';

type Client = ReturnType<typeof serviceClient>;

/** A side to ask: its client, and the base URL the client was made with. */
export interface Side {
  client: Client;
  base: string;
}

export interface VerifyReport {
  requests: number;
  same: number;
  /** Requests whose answers differ only where the contract departs from Django on purpose. */
  departed: number;
  differ: number;
  /** One line per difference, `GET company/: ...`, in the order of the requests. */
  lines: string[];
  /**
   * For the requests of `departed`, one line per thing the contract decided, naming the first
   * few; then what the service itself does against HTTP.
   */
  notes: string[];
}

/** Requests that differ only where the contract decided one thing. */
interface Departed {
  method: string;
  departure: string;
  urls: string[];
}

/** Requests named in a note: a texture page for each page of a large catalogue would bury the rest. */
const URLS_NAMED = 3;

/** `GET company, virtualfair, event and 2 more: differs only as the contract decides: …`. */
function departureLines(groups: Iterable<Departed>): string[] {
  return [...groups].map(({ method, departure, urls }) => {
    const more = urls.length - URLS_NAMED;
    const named = `${urls.slice(0, URLS_NAMED).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
    return `${method} ${named}: differs only as the contract decides: ${departure}`;
  });
}

/**
 * Said once, whatever the number of such answers: a body on HEAD is the service's own departure
 * from HTTP (gunicorn sends one), not a difference of the build, so HEAD is judged without it.
 */
function bodyOnHeadLine(answers: number): string {
  const count = `${answers} answer${answers === 1 ? '' : 's'}`;
  return `the service sends a body with its answer to HEAD (${count}), which HTTP forbids; HEAD is compared by status and headers`;
}

/** `http://127.0.0.1:8000 → http://localhost:3000`: the page links' bases, with how many answers have them. */
function linkBaseLines(bases: ReadonlyMap<string, number>): string[] {
  return [...bases].map(
    ([pair, answers]) =>
      `page links: base URL ${pair} in ${answers} answers (this build's comes from --base-url or baseUrl in the settings file)`,
  );
}

/** Requests in flight on each side: the service is often a production one. */
const CONCURRENCY = 4;

/** Asks both sides every request; a service that cannot be asked ends it with the ServiceError. */
export async function verifyAgainst(
  service: Side,
  build: Side,
  requests: readonly VerifyRequest[],
  resources: readonly Routed[],
): Promise<VerifyReport> {
  const outcomes = await mapLimited(requests, CONCURRENCY, async (request) => {
    const init = { method: request.method };
    const [fromService, fromBuild] = await Promise.all([
      service.client.request(request.url, init),
      build.client.request(request.url, init),
    ]);
    const comparison = compareAnswers(
      request,
      { base: service.base, answer: fromService },
      { base: build.base, answer: fromBuild },
      resources,
    );
    return { ...comparison, bodyOnHead: fromService.bodyOnHead === true };
  });
  const report: VerifyReport = { requests: requests.length, same: 0, departed: 0, differ: 0, lines: [], notes: [] };
  const linkBases = new Map<string, number>();
  const departures = new Map<string, Departed>();
  for (const [index, { differences, departure, linkBase }] of outcomes.entries()) {
    const { method, url } = requests[index] as VerifyRequest;
    if (linkBase) {
      const pair = linkBase.map((base) => JSON.stringify(base)).join(' → ');
      linkBases.set(pair, (linkBases.get(pair) ?? 0) + 1);
    }
    if (differences.length > 0 || linkBase) report.differ += 1;
    else if (departure !== undefined) {
      report.departed += 1;
      const key = `${method} ${departure}`;
      const group = departures.get(key) ?? { method, departure, urls: [] };
      departures.set(key, group);
      group.urls.push(url);
    } else report.same += 1;
    report.lines.push(...differences.map((line) => `${method} ${url}: ${line}`));
  }
  report.lines.push(...linkBaseLines(linkBases));
  report.notes.push(...departureLines(departures.values()));
  const bodiesOnHead = outcomes.filter((outcome) => outcome.bodyOnHead).length;
  if (bodiesOnHead > 0) report.notes.push(bodyOnHeadLine(bodiesOnHead));
  return report;
}

/** `verify: 64 requests, 62 the same, 2 differ`. */
export function summaryLine(report: VerifyReport): string {
  const departed =
    report.departed === 0
      ? ''
      : `, ${report.departed} differ only where the contract departs from Django (docs/contract.md, section 8)`;
  return `verify: ${report.requests} requests, ${report.same} the same${departed}, ${report.differ} differ`;
}

/** The build's settings verify builds with, and the service to ask. */
export type VerifyOptions = Pick<
  BuildOptions,
  'resources' | 'dataDir' | 'headersPath' | 'baseUrl' | 'pageSize' | 'resourceSettings' | 'configPath' | 'allowEmpty'
> & {
  /** The service's base URL, with a trailing slash. */
  against: string;
  /** Said once the requests are known. */
  log: (line: string) => void;
  /** What the process does on SIGINT or SIGTERM, once the build is removed. */
  onInterrupt: () => void;
};

/** Builds the data, serves it and asks it and the service every request; the build is removed at the end. */
export async function verify(options: VerifyOptions): Promise<VerifyReport> {
  const { against: service, resources } = options;
  const folder = await mkdtemp(path.join(tmpdir(), 'static-api-verify-'));
  // A run against a slow service may well be stopped with Ctrl-C: the build goes with it.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      rmSync(folder, { recursive: true, force: true });
      options.onInterrupt();
    });
  }
  let server: http.Server | undefined;
  try {
    const outDir = path.join(folder, 'public');
    const { dataDir, headersPath, baseUrl, pageSize, resourceSettings, configPath, allowEmpty } = options;
    // Output only: no deploy target's files, and no schemas. Its client asks for no
    // Accept-Encoding: the answers' siblings would go unread.
    const { routes } = await build({
      resources,
      dataDir,
      headersPath,
      baseUrl,
      pageSize,
      resourceSettings,
      configPath,
      allowEmpty,
      outDir,
      targetsDir: path.join(folder, 'targets'),
      targets: [],
      precompress: false,
    });
    server = createApiServer(outDir, resources);
    const local = `${await listen(server, '127.0.0.1', 0)}/`;
    const requests = [...verifyRequests(routes, resources), ...(await queryRequests(outDir, resources))];
    options.log(`verify: ${requests.length} requests, each to ${service} and to this build of ${dataDir}/`);
    return await verifyAgainst(
      { client: serviceClient(service), base: service },
      { client: serviceClient(local), base: local },
      requests,
      resources,
    );
  } finally {
    server?.closeAllConnections();
    server?.close();
    await rm(folder, { recursive: true, force: true });
  }
}
