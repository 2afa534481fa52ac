// The reference page (docs/reference.md) on the deploy targets that nginx, Caddy and Apache
// (reference.test.ts) leave: the two Cloudflare targets with the worker under `wrangler dev` and
// `wrangler pages dev`, cloudflare-pages-static under `wrangler pages dev` with its own
// `_redirects` and `_headers`, Netlify under `netlify dev` (when netlify-cli is installed), and
// vercel.json through Vercel's own route compiler. Each is started by the end-to-end suite's
// starter, on one build with the page on. With the setting off, every target's files and the
// output are those of a build without it; the rules come from the route table's pages, whatever
// page they are given.

import { mkdir, readFile, rm } from 'node:fs/promises';
import type http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { getTransformedRoutes } from '@vercel/routing-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuildOptions, build } from '../../scripts/builder/build.ts';
import { fixedBody } from '../../scripts/contract/bodies.ts';
import { parseHeadersFile } from '../../scripts/contract/headers.ts';
import { type DocumentRoute, NOT_FOUND_FILE, planRoutes, REFERENCE_DOCUMENT } from '../../scripts/contract/routes.ts';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { cloudflarePagesStatic as pagesStaticTarget } from '../../scripts/targets/cloudflare/targets.ts';
import { TARGET_NAMES } from '../../scripts/targets/index.ts';
import { countRules } from '../../scripts/targets/limits.ts';
import { FUNCTION_FILE, FUNCTIONS_DIR } from '../../scripts/targets/netlify/netlify.ts';
import { netlify as netlifyTarget } from '../../scripts/targets/netlify/target.ts';
import type { Target as BuildTarget, TargetContext } from '../../scripts/targets/target.ts';
import { vercel as vercelTarget } from '../../scripts/targets/vercel/target.ts';
import {
  apache as apacheTarget,
  caddy as caddyTarget,
  nginx as nginxTarget,
} from '../../scripts/targets/web-servers/targets.ts';
import { fetchFromEmulator } from '../e2e/lib/emulator.ts';
import { cloudflarePages } from '../e2e/targets/cloudflare-pages.ts';
import { cloudflarePagesStatic } from '../e2e/targets/cloudflare-pages-static.ts';
import { cloudflareWorkers } from '../e2e/targets/cloudflare-workers.ts';
import { netlify } from '../e2e/targets/netlify.ts';
import { freePort } from '../e2e/targets/process.ts';
import type { RunningTarget, Target } from '../e2e/targets/target.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { findProgram, reportMissing } from '../installed.ts';
import { readTree } from '../unit/helpers/tree.ts';

const NOT_FOUND = fixedBody(NOT_FOUND_FILE, API) as string;

let parent: string;
/** Each build's folder: public/ and targets/ side by side, as the starters expect. */
const folder = (name: 'on' | 'off' | 'absent') => path.join(parent, name);

beforeAll(async () => {
  parent = path.join(tmpdir(), `reference-targets-${process.pid}`);
  await rm(parent, { recursive: true, force: true });
  const builds: Array<[Parameters<typeof folder>[0], Partial<BuildOptions>]> = [
    ['on', { reference: true }],
    ['off', { reference: false }],
    ['absent', {}],
  ];
  await Promise.all(
    builds.map(([name, overrides]) =>
      build({
        resources: API,
        dataDir: SAMPLE_DATA,
        headersPath: SAMPLE_HEADERS,
        baseUrl: 'http://localhost:3000',
        pageSize: 10,
        outDir: path.join(folder(name), 'public'),
        targetsDir: path.join(folder(name), 'targets'),
        // Named: a target over one of its host's limits stops the build instead of being left out.
        targets: [...TARGET_NAMES],
        ...overrides,
      }),
    ),
  );
}, 60_000);

afterAll(async () => {
  await rm(parent, { recursive: true, force: true });
});

describe('the reference setting off', () => {
  it("writes every target's files and the output of a build without the setting", async () => {
    for (const dir of ['targets', 'public']) {
      const [off, absent] = await Promise.all([
        readTree(path.join(folder('off'), dir)),
        readTree(path.join(folder('absent'), dir)),
      ]);
      expect([...off.keys()].sort()).toEqual([...absent.keys()].sort());
      for (const [file, bytes] of absent) expect(off.get(file)?.equals(bytes), `${dir}/${file}`).toBe(true);
    }
  });
});

describe("the page's rules", () => {
  it('are counted against the cloudflare-pages-static limits: one static and one dynamic _redirects rule, one _headers rule', async () => {
    const read = (name: 'on' | 'off', file: string) =>
      readFile(path.join(folder(name), 'targets', 'cloudflare-pages-static', file), 'utf8');
    for (const [file, counts] of [
      ['_redirects', ['redirects-static', 'redirects-dynamic']],
      ['_headers', ['headers']],
    ] as const) {
      const [on, off] = await Promise.all([read('on', file), read('off', file)]);
      for (const count of counts) expect(countRules(on, count), `${file} ${count}`).toBe(countRules(off, count) + 1);
    }
  });

  it("come from the context's pages, not from a path of their own", async () => {
    const other: DocumentRoute = {
      path: '/_other/',
      file: '_other/page.htm',
      contentType: 'text/plain; charset=utf-8',
    };
    const headerRules = parseHeadersFile(await readFile(SAMPLE_HEADERS, 'utf8')).rules;
    const context: TargetContext = { routes: planRoutes(6, API), documents: [other], headerRules, resources: API };
    const of = async (target: BuildTarget, file: string) =>
      [`${target.name}/${file}`, (await target.files(context)).get(file) as string] as const;
    const ruleFiles = [
      await of(pagesStaticTarget, '_redirects'),
      await of(pagesStaticTarget, '_headers'),
      await of(netlifyTarget, 'netlify.toml'),
      // The function's config, not its code: the handler knows the reference page's path itself.
      [
        'netlify/config',
        ((await netlifyTarget.files(context)).get(`${FUNCTIONS_DIR}/${FUNCTION_FILE}`) as string).split(
          '\nexport const config = ',
        )[1] as string,
      ] as const,
      await of(vercelTarget, 'vercel.json'),
      await of(nginxTarget, 'api.conf'),
      await of(caddyTarget, 'api.caddyfile'),
      await of(apacheTarget, 'api.conf'),
    ];
    for (const [file, text] of ruleFiles) {
      // Netlify declares a function's path without its slash (targets/netlify/netlify.ts).
      expect(text, file).toContain(file === 'netlify/config' ? other.path.slice(0, -1) : other.path);
      expect(text, file).not.toContain('_reference');
    }
  });
});

interface Answer {
  status: number;
  type: string | null;
  body: Buffer;
}

/** Within the test's timeout even when every try of a request waits this long. */
const ANSWER_TIMEOUT_MS = 25_000;

/**
 * The response and its body, from the local server at its origin or from a target under an
 * emulator, which is asked as lib/emulator.ts says.
 */
async function respond(
  server: string | RunningTarget,
  method: string,
  target: string,
): Promise<{ response: Response; body: Buffer }> {
  const init: RequestInit = { method, redirect: 'manual' };
  if (typeof server !== 'string')
    return fetchFromEmulator(`${server.origin}${target}`, init, {
      timeoutMs: ANSWER_TIMEOUT_MS,
      output: server.output,
    });
  const response = await fetch(`${server}${target}`, init);
  return { response, body: Buffer.from(await response.arrayBuffer()) };
}

async function ask(server: string | RunningTarget, method: string, target: string): Promise<Answer> {
  const { response, body } = await respond(server, method, target);
  return { status: response.status, type: response.headers.get('content-type'), body };
}

/** A served target and what it answers differently (test/e2e/expectations.ts says why). */
interface Served {
  target: Target;
  /** The Content-Type of the static JSON 404: netlify dev's static server adds a charset (netlify-dev-charset). */
  jsonType: string;
  /** Pages' asset server answers other methods itself (pages-asset-methods). */
  otherMethods: boolean;
}

const netlifyInstalled = findProgram(netlify.needs?.names ?? []) !== undefined;
if (!netlifyInstalled) reportMissing(netlify.needs?.what ?? 'netlify', 'the reference page on netlify');

const SERVED: Served[] = [
  { target: cloudflareWorkers, jsonType: 'application/json', otherMethods: true },
  { target: cloudflarePages, jsonType: 'application/json', otherMethods: true },
  { target: cloudflarePagesStatic, jsonType: 'application/json', otherMethods: false },
  ...(netlifyInstalled
    ? [
        {
          target: netlify,
          jsonType: 'application/json; charset=utf-8',
          otherMethods: true,
        } as const,
      ]
    : []),
];

/** The status, Location and each header `_headers` names, of a GET. */
async function ruleHeaders(server: string | RunningTarget, target: string): Promise<Record<string, string | null>> {
  const names = parseHeadersFile(await readFile(SAMPLE_HEADERS, 'utf8')).rules.flatMap((rule) =>
    rule.headers.map(([name]) => name),
  );
  const { response } = await respond(server, 'GET', target);
  return Object.fromEntries([
    ['status', String(response.status)],
    ...['location', ...names].map((name) => [name, response.headers.get(name)]),
  ]);
}

describe('the reference page on the targets that run offline', () => {
  const running = new Map<string, RunningTarget>();
  let page: Buffer;
  /** The local server on the same build: what the targets answer like. */
  let localServer: http.Server;
  let local: string;

  beforeAll(async () => {
    page = await readFile(path.join(folder('on'), 'public', REFERENCE_DOCUMENT.file));
    localServer = createApiServer(path.join(folder('on'), 'public'), API);
    local = await listen(localServer, '127.0.0.1', 0);
    // All at once: each start takes a few seconds (netlify dev about fifteen, minutes on a loaded machine).
    const started = await Promise.allSettled(
      SERVED.map(async ({ target }) => {
        const workDir = path.join(parent, 'work', target.name);
        await mkdir(workDir, { recursive: true });
        const publicDir = path.join(folder('on'), 'public');
        const targetsDir = path.join(folder('on'), 'targets');
        running.set(target.name, await target.start({ publicDir, targetsDir, port: await freePort(), workDir }));
      }),
    );
    const failed = started.filter((result) => result.status === 'rejected');
    if (failed.length > 0) throw (failed[0] as PromiseRejectedResult).reason;
  }, 240_000);

  afterAll(async () => {
    await Promise.all([...running.values()].map((target) => target.stop()));
    await new Promise<void>((done) => localServer?.close(() => done()));
  });

  it.each(SERVED.map((served) => [served.target.name, served] as const))(
    '%s serves it for GET and HEAD as HTML with the bytes of its file, and answers 404 Not found at its file name',
    async (name, served) => {
      const runningTarget = running.get(name) as RunningTarget;
      for (const asked of [REFERENCE_DOCUMENT.path, `${REFERENCE_DOCUMENT.path}?x=1`]) {
        const answer = await ask(runningTarget, 'GET', asked);
        expect({ status: answer.status, type: answer.type }, asked).toEqual({
          status: 200,
          type: REFERENCE_DOCUMENT.contentType,
        });
        expect(answer.body.equals(page), `${asked}: the bytes of ${REFERENCE_DOCUMENT.file}`).toBe(true);
      }
      expect(await ask(runningTarget, 'HEAD', REFERENCE_DOCUMENT.path)).toEqual({
        status: 200,
        type: REFERENCE_DOCUMENT.contentType,
        body: Buffer.alloc(0),
      });
      // The page's path answered by code (the worker, Netlify's function): the API's exact 404.
      const notFound = { status: 404, type: 'application/json', body: NOT_FOUND };
      const text = async (method: string, asked: string) => {
        const answer = await ask(runningTarget, method, asked);
        return { status: answer.status, type: answer.type, body: answer.body.toString('utf8') };
      };
      expect(await text('GET', `/${REFERENCE_DOCUMENT.file}`)).toEqual({ ...notFound, type: served.jsonType });
      // As the local server: the API's 404 without the slash, not the page.
      expect(await text('GET', REFERENCE_DOCUMENT.path.slice(0, -1))).toEqual(notFound);
      // With the slash and without it, the status, Location and the headers of _headers are the
      // local server's (Netlify's function sees the path as asked: its config takes both).
      for (const asked of [REFERENCE_DOCUMENT.path, REFERENCE_DOCUMENT.path.slice(0, -1)]) {
        expect(await ruleHeaders(runningTarget, asked), asked).toEqual(await ruleHeaders(local, asked));
      }
      if (served.otherMethods) expect(await text('POST', REFERENCE_DOCUMENT.path)).toEqual(notFound);
      // The page's rule is its path's alone: the API keeps its JSON.
      expect((await ask(runningTarget, 'GET', '/company/')).type).toBe('application/json');
    },
    // netlify dev runs the function for each request on the page's path: seconds each on a loaded machine.
    120_000,
  );

  it.runIf(netlifyInstalled)(
    "netlify: Netlify's header parser gives the page its type over _headers' JSON (netlify dev's file server types it by its name)",
    async () => {
      // netlify-cli's own parser, installed with it: @netlify/headers-parser merges the `_headers`
      // rules with netlify.toml's, and netlify-cli applies every rule matching a path in order.
      const cli = path.dirname(path.dirname(netlify.needs?.names[0] as string));
      const parser = (await import(
        pathToFileURL(createRequire(path.join(cli, 'netlify-cli', 'package.json')).resolve('@netlify/headers-parser'))
          .href
      )) as {
        parseAllHeaders(options: {
          headersFiles: string[];
          netlifyConfigPath: string;
          minimal: boolean;
        }): Promise<{ headers: Array<{ forRegExp: RegExp; values: Record<string, string> }>; errors: Error[] }>;
      };
      const { headers, errors } = await parser.parseAllHeaders({
        headersFiles: [path.join(folder('on'), 'public', '_headers')],
        netlifyConfigPath: path.join(folder('on'), 'targets', 'netlify', 'netlify.toml'),
        minimal: false,
      });
      expect(errors).toEqual([]);
      const forPath = (requestPath: string) =>
        Object.assign({}, ...headers.filter((rule) => rule.forRegExp.test(requestPath)).map((rule) => rule.values));
      expect(forPath(REFERENCE_DOCUMENT.path)['Content-Type']).toBe(REFERENCE_DOCUMENT.contentType);
      expect(forPath('/company/')['Content-Type']).toBe('application/json');
    },
  );
});

describe("the reference page in vercel.json, through Vercel's route compiler", () => {
  interface CompiledRoute {
    src?: string;
    dest?: string;
    headers?: Record<string, string>;
    handle?: string;
    continue?: boolean;
  }
  let routes: CompiledRoute[];
  let files: Set<string>;

  beforeAll(async () => {
    const config = JSON.parse(await readFile(path.join(folder('on'), 'targets', 'vercel', 'vercel.json'), 'utf8'));
    const compiled = getTransformedRoutes(config);
    expect(compiled.error).toBeNull();
    routes = (compiled.routes ?? []) as CompiledRoute[];
    files = new Set((await readTree(path.join(folder('on'), 'public'))).keys());
  });

  /**
   * Vercel's order: the header routes (each matching one's names over the earlier ones'), then
   * a file at the path itself, then the first rewrite that matches.
   */
  function serve(target: string): { status: number; file?: string; contentType?: string } {
    const requestPath = target.split('?')[0] as string;
    const headers: Record<string, string> = {};
    let afterFilesystem = false;
    for (const route of routes) {
      if (route.handle === 'filesystem') {
        afterFilesystem = true;
        const file = requestPath.slice(1);
        if (files.has(file)) return { status: 200, file, contentType: headers['Content-Type'] };
        continue;
      }
      if (route.src === undefined || !new RegExp(route.src).test(requestPath)) continue;
      if (!afterFilesystem && route.continue) Object.assign(headers, route.headers);
      else if (afterFilesystem && route.dest !== undefined) {
        const file = route.dest.split('?')[0]?.slice(1) as string;
        return files.has(file) ? { status: 200, file, contentType: headers['Content-Type'] } : { status: 404 };
      }
    }
    return { status: 404 };
  }

  it('rewrites its path to its file, typed as HTML; the API stays JSON', () => {
    expect(serve(REFERENCE_DOCUMENT.path)).toEqual({
      status: 200,
      file: REFERENCE_DOCUMENT.file,
      contentType: REFERENCE_DOCUMENT.contentType,
    });
    expect(serve(`${REFERENCE_DOCUMENT.path}?x=1`)).toMatchObject({ status: 200, file: REFERENCE_DOCUMENT.file });
    expect(serve('/company/')).toEqual({ status: 200, file: 'company/index.json', contentType: 'application/json' });
  });

  it('answers the path without its slash with the 404 page; the file name is the file, as every file of the output is, typed as HTML', () => {
    expect(serve(REFERENCE_DOCUMENT.path.slice(0, -1))).toEqual({ status: 404 });
    // Vercel serves a file before any rewrite (targets/vercel/README.md), typed as the page.
    expect(serve(`/${REFERENCE_DOCUMENT.file}`)).toEqual({
      status: 200,
      file: REFERENCE_DOCUMENT.file,
      contentType: REFERENCE_DOCUMENT.contentType,
    });
  });
});
