// Assertions shared by the specs. Each takes the `expect` to use, so a loop over many URLs can
// pass `expect.soft` and report every failing URL of the run, not only the first.

import { expect as baseExpect } from '@playwright/test';
import { API_HEADERS } from './contract.ts';
import type { Answer } from './http.ts';

type Expect = typeof baseExpect;

/**
 * Vary's values over all its lines, Accept-Encoding left out: a server that sends an answer
 * precompressed (the client here accepts gzip and br) adds it, in the same line or another.
 */
export function varyBesidesEncoding(answer: Answer): string[] {
  return answer
    .all('vary')
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value.toLowerCase() !== 'accept-encoding');
}

/** Section 2: each header present exactly once with exactly the contract's value. */
export function expectApiHeaders(answer: Answer, expect: Expect = baseExpect): void {
  for (const [name, value] of Object.entries(API_HEADERS)) {
    const values = name === 'vary' ? varyBesidesEncoding(answer) : answer.all(name);
    expect(values, `${answer}: header ${name}`).toEqual([value]);
  }
}

/** Status, the section 2 headers and the exact body text. */
export function expectAnswer(answer: Answer, status: number, body: string, expect: Expect = baseExpect): void {
  expect(answer.status, `${answer}: status`).toBe(status);
  expectApiHeaders(answer, expect);
  expect(answer.text, `${answer}: body`).toBe(body);
}

/**
 * Headers that differ from one request to the next by nature (connection handling, clock,
 * request ids of CDNs); left out when two answers are compared. The same list for every target.
 */
const PER_REQUEST_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'age',
  'x-request-id',
  'cf-ray',
  'x-nf-request-id',
]);

export function comparableHeaders(answer: Answer): string[] {
  return answer.headers
    .filter(([name]) => !PER_REQUEST_HEADERS.has(name))
    .map(([name, value]) => `${name}: ${value}`)
    .sort();
}
