// targets/vercel/vercel.json without Vercel (`vercel dev` needs a login and the network): the file
// is checked against Vercel's own JSON schemas and compiled by Vercel's own route compiler
// (@vercel/routing-utils, which `vercel build` uses), then the compiled routes are evaluated
// here, in order, for every route of the route table and the odd queries: a wrong order or an
// unanchored regex shows as a request served from the wrong file. How Vercel reads `has` is not
// documented for every case; the evaluator reads the decoded last value of a key, and an empty
// value both ways (as absent, as Next.js does, and as present), and both must hold.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getTransformedRoutes, headersSchema, redirectsSchema, rewritesSchema } from '@vercel/routing-utils';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { parseHeadersFile } from '../../scripts/contract/headers.ts';
import { buildUrl } from '../../scripts/contract/pagination.ts';
import { planRoutes, RESOURCES, type Route, resolve } from '../../scripts/contract/routes.ts';
import { exactly, headerSource, NOWHERE, vercelConfig } from '../../scripts/targets/vercel/vercel.ts';

/** A route's canonical request: its path and query, keys sorted, values form-encoded. */
const canonicalUrl = (route: Route) => buildUrl('', route.path, route.query);

const routes = planRoutes(6);
const headersText = readFileSync(fileURLToPath(new URL('../../_headers', import.meta.url)), 'utf8');
const config = vercelConfig(routes, parseHeadersFile(headersText).rules, []);
const files = new Set(routes.map((route) => route.file));

interface CompiledRoute {
  src?: string;
  dest?: string;
  status?: number;
  headers?: Record<string, string>;
  has?: Array<{ type: string; key?: string; value?: string }>;
  missing?: Array<{ type: string; key?: string; value?: string }>;
  handle?: string;
  continue?: boolean;
  check?: boolean;
}

const compiled = getTransformedRoutes({
  rewrites: config.rewrites,
  redirects: config.redirects,
  headers: config.headers,
  cleanUrls: config.cleanUrls,
});

type Outcome = { status: 301; location: string } | { status: 200; file: string } | { status: 404 };

/** Vercel's order: redirects and headers, then the file system, then the rewrites (first match). */
function evaluate(target: string, emptyIsAbsent: boolean): Outcome {
  const [path = '', search = ''] = target.split(/\?(.*)/s);
  const params = new URLSearchParams(search);
  // Named groups of a `has` value's regular expression, which a destination's `$name` takes.
  let captured: Record<string, string> = {};
  const holds = (condition: { type: string; key?: string; value?: string }) => {
    if (condition.type !== 'query' || condition.key === undefined)
      throw new Error(`unexpected condition ${JSON.stringify(condition)}`);
    const values = params.getAll(condition.key);
    const value = values.at(-1);
    if (value === undefined || (emptyIsAbsent && value === '')) return false;
    if (condition.value === undefined) return true;
    const match = new RegExp(condition.value).exec(value);
    if (match?.groups) captured = { ...captured, ...match.groups };
    return match !== null;
  };
  const routesList = (compiled.routes ?? []) as CompiledRoute[];
  let afterFilesystem = false;
  for (const route of routesList) {
    if (route.handle === 'filesystem') {
      afterFilesystem = true;
      // A file is served at its own path before any rewrite.
      if (files.has(decodeURIComponent(path).slice(1))) return { status: 200, file: decodeURIComponent(path).slice(1) };
      continue;
    }
    if (route.src === undefined || !new RegExp(route.src).test(path)) continue;
    captured = {};
    if (!(route.has ?? []).every(holds) || (route.missing ?? []).some(holds)) continue;
    if (route.continue) continue;
    if (!afterFilesystem && route.status === 301) return { status: 301, location: route.headers?.Location as string };
    if (route.dest !== undefined) {
      // The compiler passes a condition without a value on as the destination's query (`?format=$format`): a file ignores it.
      const [destinationPath = ''] = route.dest.split('?');
      const file = destinationPath.slice(1).replace(/\$([A-Za-z]\w*)/g, (name, key: string) => {
        const value = captured[key];
        if (value === undefined) throw new Error(`${route.dest}: no capture named ${name}`);
        return value;
      });
      return files.has(file) ? { status: 200, file } : { status: 404 };
    }
  }
  return { status: 404 };
}

/** What DRF answers, as far as Vercel can: the file resolve() names, or a 404 for everything else. */
function expected(target: string): Outcome {
  const answer = resolve('GET', target);
  if (answer.kind === 'redirect') return { status: 301, location: answer.location };
  if (answer.kind === 'file' && answer.status === 200 && files.has(answer.file))
    return { status: 200, file: answer.file };
  return { status: 404 };
}

describe("vercel.json against Vercel's schemas and route compiler", () => {
  const ajv = new Ajv();
  it.each([
    ['rewrites', rewritesSchema, config.rewrites],
    ['redirects', redirectsSchema, config.redirects],
    ['headers', headersSchema, config.headers],
  ] as const)('%s match the schema (has conditions included)', (_name, schema, value) => {
    const validate = ajv.compile(schema);
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
  });

  it('the schema check is real: a misspelt condition type is rejected', () => {
    const validate = ajv.compile(rewritesSchema);
    expect(validate([{ source: '/event/', destination: '/x', has: [{ type: 'qery', key: 'ordering' }] }])).toBe(false);
  });

  it('compiles without an error, within the limit of 2,048 rules', () => {
    expect(compiled.error).toBeNull();
    expect(config.rewrites.length + config.redirects.length).toBeLessThan(2048);
  });

  it('has as many rules for 2,000 texture pages as for 6: one rule per format serves every page number', () => {
    const large = vercelConfig(planRoutes(2000), parseHeadersFile(headersText).rules, []);
    expect(large.rewrites.length).toBe(config.rewrites.length);
    expect(large.rewrites).toContainEqual({
      source: '/virtualbooth-texture/',
      destination: '/virtualbooth-texture/format=api/page=:page.json',
      has: [
        { type: 'query', key: 'format', value: '^api$' },
        { type: 'query', key: 'page', value: '^(?<page>[2-9]|[1-9][0-9]+)$' },
      ],
    });
  });

  it('leaves trailingSlash unset and cleanUrls off', () => {
    expect(config).not.toHaveProperty('trailingSlash');
    expect(config.cleanUrls).toBe(false);
  });

  it('anchors and escapes every exact value', () => {
    expect(exactly('-start_date')).toBe('^-start_date$');
    expect(exactly('a.b+c')).toBe('^a\\.b\\+c$');
    expect(new RegExp(exactly('-id')).test('--id')).toBe(false);
    expect(headerSource('/*')).toBe('/(.*)');
  });
});

describe.each([true, false])('the compiled routes, an empty value read as absent: %s', (emptyIsAbsent) => {
  it('send the canonical URL of every route, and its format variants, to its file', () => {
    for (const route of routes) {
      for (const format of [undefined, 'api', 'json']) {
        const target = canonicalUrl(format ? { ...route, query: { ...route.query, format } } : route);
        expect(evaluate(target, emptyIsAbsent), target).toEqual(expected(target));
      }
    }
  });

  const odd = [
    '/event/?x=1&ordering=-id',
    '/event/?ordering=%2Did',
    '/event/?ordering=name&ordering=-id',
    '/event/?ordering=-id&ordering=name',
    '/event/?ordering=id',
    '/event/?ORDERING=-id',
    '/event/?ordering=bogus',
    '/event/?ordering=-ID',
    '/event/?format=api&ordering=bogus',
    '/event/?format=xml&ordering=-id',
    '/event/?format=xml&format=json',
    '/company/?x=1&y=%FF',
    '/company/?format=xml',
    '/company/?format=api&format=xml',
    '/virtualfair/?format=API',
    '/virtualbooth-texture/?page=1',
    '/virtualbooth-texture/?zzz=1&page=2&format=api',
    '/virtualbooth-texture/?page=2&page=3',
    '/virtualbooth-texture/?page=abc',
    '/virtualbooth-texture/?page=9999',
    '/virtualbooth-texture/?page=7',
    '/virtualbooth-texture/?page=10',
    '/virtualbooth-texture/?format=json&page=6',
    '/virtualbooth-texture/?format=api&page=60',
    '/virtualbooth-texture/?page=0',
    '/virtualbooth-texture/?format=xml&page=2',
    '/nope/',
    '/',
    '/Company/',
    '/company/extra/',
    ...RESOURCES.map((r) => r.path.slice(0, -1)),
  ];
  it.each(odd)("%s: the file DRF's answer is in, the 301, or the 404", (target) => {
    expect(evaluate(target, emptyIsAbsent)).toEqual(expected(target));
  });

  // Answers DRF gives that a rewrite cannot: never another file, always the 404.
  it.each([
    '/event/?ordering=-start_date,name',
    '/event/?ordering=-start_date%2Cname',
    '/event/?ordering=%20-id',
    '/event/?ordering=+-id',
    '/event/?format=api&ordering=-start_date,name',
    '/virtualbooth-texture/?page=02',
    '/virtualbooth-texture/?page=%202',
  ])('%s: the 404, not a list', (target) => {
    expect(evaluate(target, emptyIsAbsent)).toEqual({ status: 404 });
  });

  it("an empty format or ordering: DRF's answer when read as absent, the 404 otherwise", () => {
    for (const target of ['/company/?format=', '/event/?ordering=', '/virtualbooth-texture/?format=&page=2']) {
      expect(evaluate(target, emptyIsAbsent), target).toEqual(emptyIsAbsent ? expected(target) : { status: 404 });
    }
  });
});

it("serves the output's own files at their paths (a known limit: files come before rewrites)", () => {
  expect(evaluate('/company/index.json', true)).toEqual({ status: 200, file: 'company/index.json' });
  expect(NOWHERE.startsWith('/_')).toBe(true);
});
