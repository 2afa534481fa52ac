// targets/vercel/vercel.json without Vercel (`vercel dev` needs a login and the network): the file
// is checked against Vercel's own JSON schemas and compiled by Vercel's own route compiler
// (@vercel/routing-utils, which `vercel build` uses), then the compiled routes are evaluated
// (helpers/vercel-routes.ts), in order, for every route of the route table and the odd queries: a
// wrong order or an unanchored regex shows as a request served from the wrong file. An empty
// value is read both ways (as absent, as Next.js does, and as present), and both must hold.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { headersSchema, redirectsSchema, rewritesSchema } from '@vercel/routing-utils';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { parseHeadersFile } from '../../scripts/contract/headers.ts';
import { planRoutes } from '../../scripts/contract/routes.ts';
import { exactly, headerSource, NOWHERE, vercelConfig } from '../../scripts/targets/vercel/vercel.ts';
import { API, declares, missingList } from '../fixtures/sample.ts';
import { canonicalUrl, compileVercel, drfOutcome, vercelRouter } from './helpers/vercel-routes.ts';

const routes = planRoutes(6, API);
const headersText = readFileSync(fileURLToPath(new URL('../../_headers', import.meta.url)), 'utf8');
const config = vercelConfig(routes, parseHeadersFile(headersText).rules, [], API);
const files = new Set(routes.map((route) => route.file));

const compiled = compileVercel(config);
const evaluate = vercelRouter(compiled, files);
const expected = (target: string) => drfOutcome(target, files);

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

  it('has as many rules for 2,000 texture pages as for 6: one rule per format serves every page number', ({ skip }) => {
    skip(!declares('virtualbooth-texture'), missingList('virtualbooth-texture'));
    const large = vercelConfig(planRoutes(2000, API), parseHeadersFile(headersText).rules, [], API);
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
    ...API.map((r) => r.path.slice(0, -1)),
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
