// `npm start` and `npm run dev`: a server, and a build for the origin it serves in a folder of
// .preview/, which git ignores. Only the output is built (no deploy targets, no schemas), so a
// preview never writes a committed file, whatever its port.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import type { BuildOptions } from '../builder/build.ts';
import { REFERENCE_DOCUMENT } from '../contract/routes.ts';
import { addressForPeople, closeOnSignals, createApi, listen } from '../respond/node-server.ts';
import { DEFAULTS, type Settings } from './settings.ts';

/** The settings of `npm start` and `npm run dev`, which take the same options. */
type PreviewSettings = Settings<'start' | 'dev'>;

export interface Preview {
  /** `.preview/<port>/`: a folder per port, so that two previews never write the same one. */
  outDir: string;
  /** `Serving .preview/3000/ at http://127.0.0.1:3000`, and where the reference page is when it is on. */
  banner: string;
  /** What to build from `settings` (read again by `npm run dev` on each change) for the origin served. */
  buildOptions(settings: PreviewSettings): BuildOptions;
  /**
   * Answers from `outDir` from now on; it must hold a build. Until then every request gets a 503
   * saying it is building. `anew`: the output was built under other settings (its lists' filters,
   * search and orderings), which the server reads again.
   */
  serve(anew?: boolean): void;
  /** The first build failed on the data: the 503 says so, until `serve()`. */
  failed(): void;
  /** Resolves once no request has been answered for a moment (a client asking again), or after `atMostMs`. */
  idle(atMostMs: number): Promise<void>;
}

/** The host name of the page links: `localhost` for a loopback or wildcard address, as the committed public/ has. */
function linkHost(host: string): string {
  if (['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost'].includes(host)) return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** The reference page's address, one to type: on every address, the loopback one, as addressForPeople() names it. */
function referenceAddress(url: string): string {
  return `${url.replace(/^http:\/\/(0\.0\.0\.0|\[::\]):/, 'http://127.0.0.1:')}${REFERENCE_DOCUMENT.path}`;
}

/** How long the server must have answered nothing to be idle: longer than a client takes to ask again. */
const IDLE_QUIET_MS = 50;

/** A 503 with DRF's error body, before anything is served. */
function unavailable(detail: string, headers: Record<string, string> = {}): http.RequestListener {
  const body = JSON.stringify({ detail });
  return (_request, response) => {
    response.writeHead(503, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
      ...headers,
    });
    response.end(body);
  };
}

// The first build of the sample takes about a second: a client may ask again after one.
const building = unavailable('Building: the API is served once the first build is done.', { 'Retry-After': '1' });
const hasProblems = unavailable('Nothing is built yet: the source data has problems (see the terminal).');

/**
 * Listens first, and only then builds: with `--port 0` only the bound socket knows the port that
 * the page links must name, and a port in use is said before any work.
 */
export async function openPreview(settings: PreviewSettings): Promise<Preview> {
  let answer = building;
  // What Node's parser refuses gets the contract's answer once there is a build to answer from.
  let refused: ReturnType<typeof createApi>['refused'] | undefined;
  let answering = 0;
  let lastActive = 0;
  const server = http.createServer((request, response) => {
    answering += 1;
    lastActive = performance.now();
    response.once('close', () => {
      answering -= 1;
      lastActive = performance.now();
    });
    answer(request, response);
  });
  server.on('clientError', (error: Error, socket) => {
    if (refused) refused(error, socket);
    else if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });
  const url = await listen(server, settings.host, settings.port);
  closeOnSignals(server);
  const { port } = server.address() as AddressInfo;
  const outDir = path.join(DEFAULTS.previewDir, String(port));
  // On every address, only the user knows the name others reach this machine by; files cannot
  // take it from each request's Host, as DRF does.
  const everyAddress = ['0.0.0.0', '::'].includes(settings.host) && !settings.baseUrlGiven;
  const linksNotice = everyAddress
    ? `\nIts page links name http://localhost:${port}, which another machine cannot follow: start it with --base-url (or BASE_URL) set to the address others reach it at, such as --base-url http://${hostname()}:${port}`
    : '';
  const referenceLine = settings.reference ? `\nThe API reference page: ${referenceAddress(url)}` : '';
  return {
    outDir,
    banner: `Serving ${outDir}/ at ${addressForPeople(url)}${referenceLine}${linksNotice}`,
    buildOptions: (current) => ({
      resources: current.resources,
      dataDir: current.dataDir,
      headersPath: current.headersPath,
      pageSize: current.pageSize,
      reference: current.reference,
      allowEmpty: current.allowEmpty,
      resourceSettings: current.resourceSettings,
      configPath: current.configPath,
      // Absolute links must name the origin clients reach, which only the host and port tell here.
      baseUrl: current.baseUrlGiven ? current.baseUrl : `http://${linkHost(current.host)}:${port}`,
      outDir,
      targets: [],
      // No target is written: the folder is only named.
      targetsDir: DEFAULTS.targetsDir,
    }),
    serve: (anew = false) => {
      if (anew || answer === building || answer === hasProblems) {
        const api = createApi(outDir, settings.resources);
        answer = api.listener;
        refused = api.refused;
      }
    },
    failed: () => {
      if (answer === building) answer = hasProblems;
    },
    idle: async (atMostMs) => {
      const started = performance.now();
      for (;;) {
        const now = performance.now();
        if (answering === 0 && now - lastActive >= IDLE_QUIET_MS) return;
        if (now - started >= atMostMs) return;
        await new Promise((resolve) => setTimeout(resolve, IDLE_QUIET_MS / 5));
      }
    },
  };
}
