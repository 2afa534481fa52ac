// scripts/contract/headers.ts (the `_headers` file: parsing, errors with line numbers, which headers a
// path gets) and validateHeadersFile from scripts/builder/pipeline/validate.ts (the headers every API
// path must carry), including the project's own `_headers`.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateHeadersFile } from '../../scripts/builder/pipeline/validate.ts';
import { type HeaderRule, headersFor, parseHeadersFile } from '../../scripts/contract/headers.ts';
import { API, SAMPLE_HEADERS } from '../fixtures/sample.ts';

const errorsOf = (text: string) => parseHeadersFile(text).errors.map((e) => e.message);

describe('parseHeadersFile: rules', () => {
  it.each<[string, string, HeaderRule[]]>([
    ['empty file', '', []],
    ['only comments and blank lines', '# a comment\n\n   \n  # indented comment\n', []],
    ['one rule', '/*\n  Vary: Accept\n', [{ pattern: '/*', headers: [['Vary', 'Accept']] }]],
    [
      'comments and blank lines between header lines',
      '/company/\n  # why\n\n  Allow: GET, HEAD, OPTIONS\n\tX-A:  b: c  \n',
      [
        {
          pattern: '/company/',
          headers: [
            ['Allow', 'GET, HEAD, OPTIONS'],
            ['X-A', 'b: c'],
          ],
        },
      ],
    ],
    ['CRLF line ends', '/a\r\n  X-One: 1\r\n', [{ pattern: '/a', headers: [['X-One', '1']] }]],
    [
      'several rules, a path without headers',
      '/a\n/b\n  X: 1\n/c/*\n  Y: 2\n  Y: 3\n',
      [
        { pattern: '/a', headers: [] },
        { pattern: '/b', headers: [['X', '1']] },
        {
          pattern: '/c/*',
          headers: [
            ['Y', '2'],
            ['Y', '3'],
          ],
        },
      ],
    ],
  ])('%s', (_label, text, rules) => {
    expect(parseHeadersFile(text)).toEqual({ rules, errors: [] });
  });
});

describe('parseHeadersFile: errors name the line', () => {
  it.each<[string, string, string[]]>([
    [
      'a header line before any path',
      '# top\n  Vary: Accept\n/*\n  Allow: GET\n',
      ['line 2: a header line must follow a path line'],
    ],
    ['a header line without a colon', '/*\n  Vary Accept\n', ['line 2: expected "Name: value", got "Vary Accept"']],
    ['a header line with an empty name', '/*\n  : Accept\n', ['line 2: expected "Name: value", got ": Accept"']],
    [
      'a header name with a space',
      '/*\n  Content Type: x\n',
      ['line 2: expected "Name: value", got "Content Type: x"'],
    ],
    [
      'a non-path line',
      '/*\n  Vary: Accept\ncompany/\n',
      ['line 3: expected a path starting with "/", got "company/"'],
    ],
    [
      'every malformed line, not only the first',
      '  X: 1\n/*\n  Vary Accept\n\nhttps://example.com/*\n  Allow: GET\n',
      [
        'line 1: a header line must follow a path line',
        'line 3: expected "Name: value", got "Vary Accept"',
        'line 5: expected a path starting with "/", got "https://example.com/*"',
      ],
    ],
  ])('%s', (_label, text, expected) => {
    expect(errorsOf(text)).toEqual(expected);
  });

  it('keeps the line number and reason on the error', () => {
    const [error] = parseHeadersFile('/*\n\n  bad\n').errors;
    expect(error?.line).toBe(3);
    expect(error?.reason).toBe('expected "Name: value", got "bad"');
  });
});

describe('headersFor', () => {
  const rules = parseHeadersFile(
    [
      '/*',
      '  Content-Type: application/json',
      '  Vary: Accept',
      '/event/*',
      '  Cache-Control: max-age=60',
      '  vary: Origin',
      '/company/',
      '  X-Exact: yes',
      '/virtualbooth-texture/page=*.json',
      '  X-Page: yes',
      '/a.b/',
      '  X-Dot: yes',
    ].join('\n'),
  ).rules;

  it.each<[string, Record<string, string>]>([
    ['/', { 'Content-Type': 'application/json', Vary: 'Accept' }],
    ['/company/', { 'Content-Type': 'application/json', Vary: 'Accept', 'X-Exact': 'yes' }],
    ['/company/x', { 'Content-Type': 'application/json', Vary: 'Accept' }],
    ['/event/', { 'Content-Type': 'application/json', Vary: 'Accept, Origin', 'Cache-Control': 'max-age=60' }],
    [
      '/event/ordering=-id.json',
      { 'Content-Type': 'application/json', Vary: 'Accept, Origin', 'Cache-Control': 'max-age=60' },
    ],
    ['/virtualbooth-texture/page=2.json', { 'Content-Type': 'application/json', Vary: 'Accept', 'X-Page': 'yes' }],
    ['/a.b/', { 'Content-Type': 'application/json', Vary: 'Accept', 'X-Dot': 'yes' }],
    ['/axb/', { 'Content-Type': 'application/json', Vary: 'Accept' }],
  ])('%s', (path, expected) => {
    expect(headersFor(rules, path)).toEqual(expected);
  });

  it('gives nothing when no rule matches', () => {
    expect(headersFor(parseHeadersFile('/company/\n  X: 1\n').rules, '/event/')).toEqual({});
  });

  it('joins a name set twice in one rule', () => {
    expect(headersFor(parseHeadersFile('/*\n  Link: <a>\n  Link: <b>\n').rules, '/x')).toEqual({ Link: '<a>, <b>' });
  });
});

describe('validateHeadersFile', () => {
  /** Every declared list's path: the file must set the API's headers on each. */
  const LIST_PATHS = API.map((resource) => resource.path);

  it("accepts the project's _headers", () => {
    const text = readFileSync(SAMPLE_HEADERS, 'utf8');
    expect(validateHeadersFile('_headers', text, API).errors).toEqual([]);
  });

  it.each<[string, string, string[]]>([
    [
      'a rule that covers only /company/',
      '/company/\n  Content-Type: application/json\n  Vary: Accept\n  Allow: GET, HEAD, OPTIONS\n',
      LIST_PATHS.filter((path) => path !== '/company/').flatMap((path) => [
        `h: expected the rules for ${path} to set "Content-Type: application/json", got none`,
        `h: expected the rules for ${path} to set "Vary: Accept", got none`,
        `h: expected the rules for ${path} to set "Allow: GET, HEAD, OPTIONS", got none`,
      ]),
    ],
    [
      'a wrong value and a value joined by a second rule',
      '/*\n  content-type: application/json; charset=utf-8\n  Vary: Accept\n  Allow: GET, HEAD, OPTIONS\n/event/\n  Vary: Cookie\n',
      LIST_PATHS.flatMap((path) => [
        `h: expected the rules for ${path} to set "Content-Type: application/json", got "application/json; charset=utf-8"`,
        ...(path === '/event/'
          ? ['h: expected the rules for /event/ to set "Vary: Accept", got "Accept, Cookie"']
          : []),
      ]),
    ],
    [
      'a syntax error comes first',
      '/*\n  Content-Type: application/json\n  Vary: Accept\n  Allow GET\n',
      [
        'h: line 4: expected "Name: value", got "Allow GET"',
        ...LIST_PATHS.map((path) => `h: expected the rules for ${path} to set "Allow: GET, HEAD, OPTIONS", got none`),
      ],
    ],
  ])('%s', (_label, text, expected) => {
    expect(validateHeadersFile('h', text, API).errors.map((e) => `${e.file}: ${e.message}`)).toEqual(expected);
  });
});
