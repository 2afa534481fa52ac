// `_headers` beyond one rule, as a user writes it: rules for some paths (a list cached apart,
// a header only on unknown paths), a name several matching rules set (joined with ", " as
// Cloudflare does), and values holding `"`, `%` and braces. The sample is built with them and
// asked on nginx, Caddy, Apache and the local server; every answer carries exactly what
// headersFor() gives its path, on 2xx, 3xx, 304, 4xx alike.
//
// Netlify answers the paths outside the lists with one static 404 file, which gets the rules of
// its own path (targets/netlify/headers.ts), so the netlify target refuses a rule that would give
// such a path other headers: the rules it takes (a list's path, `/*`) are asked of `netlify dev`
// too, beside the same servers, with the same result. On the static 404 netlify dev's file server
// sends its own Cache-Control and a charset in Content-Type, which Netlify's CDN does not
// (docs/caching.md). A rule a target cannot write is refused at build with one line naming the
// target and the rule.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { headersFor, parseHeadersFile } from '../../scripts/contract/headers.ts';
import { NOT_FOUND_FILE, REFERENCE_DOCUMENT } from '../../scripts/contract/routes.ts';
import { UserFacingError } from '../../scripts/shared/errors.ts';
import { refuseStaticOnlyRules } from '../../scripts/targets/netlify/headers.ts';
import { functionConfig } from '../../scripts/targets/netlify/netlify.ts';
import { netlify } from '../e2e/targets/netlify.ts';
import type { RunningTarget, Target } from '../e2e/targets/target.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { findProgram, reportMissing } from '../installed.ts';
import {
  installedWebServers,
  localInProcess,
  type ServedSample,
  serveSampleWithHeaders,
} from '../unit/helpers/web-servers.ts';

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

/**
 * Rules Netlify can apply as the others do: for a list's path or every path. Not for the
 * paginated list: netlify dev asks again under other names when the function answers an invalid
 * page with 404 and sends the last answer, another path's (expectations.ts, netlify-dev-404-retry).
 * Not in another case than the list's: netlify dev adds the rules it matches without case or
 * slash to the function's answers, where Netlify applies none to them (docs/caching.md).
 */
const LIST_RULES = [
  '/company/',
  '  Cache-Control: public, max-age=60',
  '/event/',
  '  Cache-Control: no-cache',
  '  X-Note: say "hello"; 100% {sure}',
  '/*',
  '  X-Everywhere: yes',
  '/virtualfair/',
  '  Cache-Control: max-age=600',
  '  Link: </company/>; rel="related"',
  '/*',
  '  Cache-Control: no-transform',
  '  X-Everywhere: again',
  '',
].join('\n');

const installed = installedWebServers('the per-path _headers rules');
const netlifyInstalled = findProgram(netlify.needs?.names ?? []) !== undefined;
if (!netlifyInstalled) reportMissing(netlify.needs?.what ?? 'netlify', 'the per-path _headers rules on netlify');
const TARGETS: Target[] = [...installed, localInProcess];
const LIST_TARGETS: Target[] = [...TARGETS, ...(netlifyInstalled ? [netlify] : [])];

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
  ['GET', '/Company'],
  ['GET', '/COMPANY/'],
  ['GET', '/nope/x'],
  ['GET', '/'],
];

/** Paths outside the lists and pages, which Netlify answers with its 404 rule's static file. */
const STATIC_ON_NETLIFY: readonly string[] = ['/company/nope', '/nope/x', '/'];

/**
 * What netlify dev's file server sends on that file in place of the rules' values: its own
 * Cache-Control (fastify-static's default), and Content-Type with a charset (expectations.ts,
 * netlify-dev-charset).
 */
const NETLIFY_DEV_STATIC = { 'cache-control': 'public, max-age=0', 'content-type': 'application/json; charset=utf-8' };

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

/** Serves the sample with `rules` on `targets` and checks every answer against headersFor(). */
function everyAnswerOf(title: string, extraLines: string, targets: readonly Target[]) {
  describe(title, () => {
    let served: ServedSample;

    beforeAll(async () => {
      served = await serveSampleWithHeaders('headers-per-path-', extraLines, targets);
    }, 120_000);

    afterAll(async () => {
      if (served) await served.stop();
    });

    it.each(targets.map((server) => server.name))(
      '%s sends what headersFor gives each path',
      async (name) => {
        const { origin } = served.running.get(name) as RunningTarget;
        const { rules } = parseHeadersFile(served.headersText);
        const names = [...new Set(rules.flatMap((rule) => rule.headers.map(([header]) => header.toLowerCase())))];
        const differences: string[] = [];
        const check = (label: string, target: string, answer: Answer, skipped: readonly string[] = []) => {
          const path = target.split('?')[0] as string;
          const expected: Record<string, string> = Object.fromEntries(
            Object.entries(headersFor(rules, path)).map(([header, value]) => [header.toLowerCase(), value]),
          );
          if (name === 'netlify' && STATIC_ON_NETLIFY.includes(path)) Object.assign(expected, NETLIFY_DEV_STATIC);
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
      // netlify dev runs the function for each request on a list path: seconds each on a loaded machine.
      180_000,
    );
  });
}

everyAnswerOf('per-path _headers rules on nginx, Caddy, Apache and the local server', RULES, TARGETS);
everyAnswerOf("rules for the lists' paths and every path, on those and netlify dev", LIST_RULES, LIST_TARGETS);

describe('the rules', () => {
  /** The rules as the build reads them: the project's `_headers` and the lines after it. */
  const withProject = async (lines: string) =>
    parseHeadersFile(`${await readFile(SAMPLE_HEADERS, 'utf8')}${lines}`).rules;

  it('give the paths different headers (the test tells them apart)', async () => {
    const rules = await withProject(RULES);
    expect(headersFor(rules, '/company/')['Cache-Control']).toBe('public, max-age=60, no-transform');
    expect(headersFor(rules, '/event/')['Cache-Control']).toBe('no-cache, no-transform');
    expect(headersFor(rules, '/virtualfair/')['Cache-Control']).toBe('no-transform');
    expect(headersFor(rules, '/nope/x').Vary).toBe('Accept, Origin');
    expect(headersFor(rules, '/event/')['X-Note']).toBe('say "hello"; 100% {sure}');
    const lists = await withProject(LIST_RULES);
    expect(headersFor(lists, '/company/')['Cache-Control']).toBe('public, max-age=60, no-transform');
    expect(headersFor(lists, '/virtualfair/').Link).toBe('</company/>; rel="related"');
    // Two rules for every path set one name: joined, where Netlify alone would keep the last.
    expect(headersFor(lists, '/nope/x')).toMatchObject({
      'Cache-Control': 'no-transform',
      'X-Everywhere': 'yes, again',
    });
  });
});

describe('a rule a target cannot write', () => {
  it("netlify takes rules for every path and for a list's or a page's path, in any case, with or without the slash", () => {
    const lines = [
      LIST_RULES,
      '/Company\n  X-A: 1\n/EVENT\n  X-A: 1\n/_reference/\n  X-B: 1\n/**\n  X-C: 1\n/nope/*\n/nope/\n',
    ].join('');
    const { rules } = parseHeadersFile(lines);
    expect(() => refuseStaticOnlyRules(rules, functionConfig(API, [REFERENCE_DOCUMENT]).path)).not.toThrow();
    // Without the page, its path is one of the 404 file's.
    expect(() => refuseStaticOnlyRules(rules, functionConfig(API, []).path)).toThrow(/rule \/_reference\/ /);
  });

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
    ...['/event/*', '/nope/', '/company/x', '/*.json', `/${NOT_FOUND_FILE}`].map(
      (pattern) =>
        [
          'netlify',
          `${pattern}\n  X-A: 1\n`,
          `target netlify: the _headers rule ${pattern} matches paths outside the lists, whose 404 Netlify sends as one static file with the headers of /${NOT_FOUND_FILE}: write it for a list's path (/company/) or every path (/*) (leave the target out with --target)`,
        ] as [string, string, string],
    ),
  ])('%s refuses %j in one line', async (target, rules, message) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'headers-refused-'));
    try {
      const headersPath = path.join(dir, '_headers');
      // Content-Type for /company/ must stay the contract's: the odd value goes on a path below it.
      const text = `${await readFile(SAMPLE_HEADERS, 'utf8')}${rules.replace('/company/*', '/company/*/x')}`;
      await writeFile(headersPath, text);
      const built = build({
        resources: API,
        dataDir: SAMPLE_DATA,
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
