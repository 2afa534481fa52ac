// `_headers` beyond one rule, as a user writes it: rules for some paths (a list cached apart,
// a header only on unknown paths), a name several matching rules set (joined with ", " as
// Netlify and Cloudflare do), and values holding `"`, `%` and braces. The sample is built with
// them and asked on nginx, Caddy, Apache, the local server and `netlify dev`; every answer
// carries exactly what headersFor() gives its path, on 2xx, 3xx, 304, 4xx alike. On Netlify the
// function answers every request on a list path and applies the rules itself; the 404 of a path
// outside the lists is the 404 rule's static file, whose headers Netlify's own rule engine picks
// (docs/caching.md): netlify-cli 26.2.0 gives it the rules of the file's path, not of the path
// asked, and its file server's Cache-Control over theirs. Those answers are held to exactly that,
// so the test turns red when netlify dev changes. A rule a target cannot write is refused at
// build with one line naming the target and the rule.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { type HeaderRule, headersFor, parseHeadersFile } from '../../scripts/contract/headers.ts';
import { NOT_FOUND_FILE } from '../../scripts/contract/routes.ts';
import { UserFacingError } from '../../scripts/shared/errors.ts';
import { netlify } from '../e2e/targets/netlify.ts';
import type { RunningTarget, Target } from '../e2e/targets/target.ts';
import { findProgram, reportMissing } from '../installed.ts';
import { ROOT } from './helpers/cli.ts';
import {
  installedWebServers,
  localInProcess,
  type ServedSample,
  serveSampleWithHeaders,
} from './helpers/web-servers.ts';

const RULES = [
  '/company/*',
  '  Cache-Control: public, max-age=60',
  '/event/',
  '  Cache-Control: no-cache',
  '  X-Note: say "hello"; 100% {sure}',
  '/*',
  '  X-Everywhere: yes',
  '/nope/*',
  '  Vary: Origin',
  '/virtualbooth-texture/*',
  '  Cache-Control: max-age=600',
  '  Link: </company/>; rel="related"',
  '/*',
  '  Cache-Control: no-transform',
  '',
].join('\n');

const installed = installedWebServers('the per-path _headers rules');
const netlifyInstalled = findProgram(netlify.needs?.names ?? []) !== undefined;
if (!netlifyInstalled) reportMissing(netlify.needs?.what ?? 'netlify', 'the per-path _headers rules on netlify');
const TARGETS: Target[] = [...installed, localInProcess, ...(netlifyInstalled ? [netlify] : [])];

/** Requests across the answers' kinds: list, query, 301, OPTIONS, 405, 400, 404s, HEAD. */
const ASKED: Array<[method: string, target: string]> = [
  ['GET', '/company/'],
  ['HEAD', '/company/'],
  ['GET', '/company/?format=json'],
  ['GET', '/company'],
  ['GET', '/company/nope'],
  ['POST', '/company/'],
  ['GET', '/event/'],
  ['GET', '/event/?ordering=-start_date'],
  ['GET', '/event/?ordering=id,-name'],
  ['OPTIONS', '/event/'],
  ['GET', '/virtualbooth-texture/?page=2'],
  ['GET', '/virtualbooth-texture/?page=99'],
  ['GET', '/virtualfair/'],
  ['GET', '/nope/x'],
  ['GET', '/'],
];

/** Paths outside the lists, which Netlify answers with its 404 rule's file (see the top of this file). */
const STATIC_ON_NETLIFY: readonly string[] = ['/company/nope', '/nope/x', '/'];

/**
 * What netlify dev sends on the 404 rule's file, whatever the path asked: the rules of the path
 * the rule rewrites to, with its file server's own Cache-Control (fastify-static's default) in
 * place of theirs, and Content-Type with a charset (expectations.ts, netlify-dev-charset).
 */
function netlifyDevStaticHeaders(rules: readonly HeaderRule[]): Record<string, string> {
  return {
    ...headersFor(rules, `/${NOT_FOUND_FILE}`),
    'Cache-Control': 'public, max-age=0',
    'Content-Type': 'application/json; charset=utf-8',
  };
}

/** nginx and Caddy send no Content-Type on a 304, which RFC 9110 does not ask for (15.4.5). */
const NO_TYPE_ON_304: Record<string, readonly string[]> = { nginx: ['content-type'], caddy: ['content-type'] };

/** Vary is a list of names: Apache joins its values with "," where the others write ", ". */
const vary = (header: string, value: string | undefined) =>
  header === 'vary'
    ? value
        ?.split(',')
        .map((name) => name.trim())
        .join(', ')
    : value;

interface Answer {
  status: number;
  /** Each header name (lower case) with all its values joined, as one field would carry them. */
  headers: Map<string, string>;
}

function ask(origin: string, method: string, target: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((done, fail) => {
    const request = http.request(`${origin}${target}`, { method, headers, agent: false }, (response) => {
      response.resume();
      response.once('end', () => {
        const joined = new Map<string, string>();
        const raw = response.rawHeaders;
        for (let index = 0; index < raw.length; index += 2) {
          const name = (raw[index] as string).toLowerCase();
          const before = joined.get(name);
          joined.set(name, before === undefined ? (raw[index + 1] as string) : `${before}, ${raw[index + 1]}`);
        }
        done({ status: response.statusCode ?? 0, headers: joined });
      });
    });
    request.once('error', fail);
    request.end();
  });
}

describe('per-path _headers rules on every server', () => {
  let served: ServedSample;

  beforeAll(async () => {
    served = await serveSampleWithHeaders('headers-per-path-', RULES, TARGETS);
  }, 120_000);

  afterAll(async () => {
    if (served) await served.stop();
  });

  it.each(TARGETS.map((server) => server.name))(
    '%s sends what headersFor gives each path',
    async (name) => {
      const { origin } = served.running.get(name) as RunningTarget;
      const { rules } = parseHeadersFile(served.headersText);
      const names = [...new Set(rules.flatMap((rule) => rule.headers.map(([header]) => header.toLowerCase())))];
      const differences: string[] = [];
      const check = (label: string, target: string, answer: Answer, skipped: readonly string[] = []) => {
        const path = target.split('?')[0] as string;
        const given =
          name === 'netlify' && STATIC_ON_NETLIFY.includes(path)
            ? netlifyDevStaticHeaders(rules)
            : headersFor(rules, path);
        const expected = Object.fromEntries(
          Object.entries(given).map(([header, value]) => [header.toLowerCase(), value]),
        );
        for (const header of names) {
          if (skipped.includes(header)) continue;
          const actual = vary(header, answer.headers.get(header));
          if (actual !== vary(header, expected[header])) {
            differences.push(`${label} (${answer.status}) ${header}: ${actual} instead of ${expected[header]}`);
          }
        }
      };
      for (const [method, target] of ASKED) {
        check(`${method} ${target}`, target, await ask(origin, method, target));
      }
      // A 304 carries them too.
      for (const target of ['/company/', '/event/', '/virtualbooth-texture/?page=2']) {
        const etag = (await ask(origin, 'GET', target)).headers.get('etag');
        expect(etag).toBeDefined();
        const revalidated = await ask(origin, 'GET', target, { 'If-None-Match': etag as string });
        expect(revalidated.status).toBe(304);
        check(`304 ${target}`, target, revalidated, NO_TYPE_ON_304[name] ?? []);
      }
      expect(differences).toEqual([]);
    },
    60_000,
  );

  it('the rules give the paths different headers (the test tells them apart)', () => {
    const { rules } = parseHeadersFile(served.headersText);
    expect(headersFor(rules, '/company/')['Cache-Control']).toBe('public, max-age=60, no-transform');
    expect(headersFor(rules, '/event/')['Cache-Control']).toBe('no-cache, no-transform');
    expect(headersFor(rules, '/virtualfair/')['Cache-Control']).toBe('no-transform');
    expect(headersFor(rules, '/nope/x').Vary).toBe('Accept, Origin');
    expect(headersFor(rules, '/event/')['X-Note']).toBe('say "hello"; 100% {sure}');
    // What netlify dev sends there differs from what the paths' rules give.
    const netlifyDev = netlifyDevStaticHeaders(rules);
    for (const path of STATIC_ON_NETLIFY) expect(netlifyDev).not.toEqual(headersFor(rules, path));
  });
});

describe('a rule a target cannot write', () => {
  it.each<[target: string, rules: string, message: string]>([
    [
      'nginx',
      '/company/*\n  Content-Type: application/json; charset=utf-8\n',
      'target nginx: the _headers rule /company/* sets Content-Type, which nginx can only set for every path (/*) (leave the target out with --target)',
    ],
    [
      'apache',
      '/company/*\n  Content-Type: application/json; charset=utf-8\n',
      'target apache: the _headers rule /company/* sets Content-Type, which apache can only set for every path (/*) (leave the target out with --target)',
    ],
    [
      'nginx',
      '/event/\n  X-Price: $5\n',
      'target nginx: the _headers rule /event/ sets X-Price to a value with "$", which nginx cannot write (leave the target out with --target)',
    ],
    [
      'caddy',
      '/company/[a]\n  X-A: 1\n',
      'target caddy: the _headers rule /company/[a] has "[", which is not in a path (leave the target out with --target)',
    ],
  ])('%s refuses %j in one line', async (target, rules, message) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'headers-refused-'));
    try {
      const headersPath = path.join(dir, '_headers');
      // Content-Type for /company/ must stay the contract's: the odd value goes on a path below it.
      const text = `${await readFile(path.join(ROOT, '_headers'), 'utf8')}${rules.replace('/company/*', '/company/*/x')}`;
      await writeFile(headersPath, text);
      const built = build({
        dataDir: path.join(ROOT, 'data'),
        headersPath,
        outDir: path.join(dir, 'public'),
        targetsDir: path.join(dir, 'targets'),
        targets: [target],
        baseUrl: 'http://127.0.0.1:8000',
        pageSize: 10,
      });
      const error = await built.then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(UserFacingError);
      expect((error as Error).message).toBe(message.replace('/company/*', '/company/*/x'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
