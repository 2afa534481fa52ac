// How the tests ask a target under an emulator (test/e2e/lib/emulator.ts), over real HTTP against
// a server on 127.0.0.1 that plays the emulator's failures: a request left unanswered, wrangler's
// 503 after a restart, miniflare's 500 "Network connection lost". Each is asked again; the
// target's own answers, a 404 or a plain 500, are not; and a server that never answers is reported
// with what it printed.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EMULATOR_RETRIES, fetchFromEmulator } from '../e2e/lib/emulator.ts';

type Reply = 'hang' | { status: number; body: string };

let server: http.Server | undefined;

/** A server that gives the replies in turn (the last one from then on), and counts the requests. */
async function serve(replies: Reply[]): Promise<{ origin: string; asked: () => number }> {
  let asked = 0;
  server = http.createServer((_request, response) => {
    const reply = replies[Math.min(asked++, replies.length - 1)] as Reply;
    if (reply === 'hang') return;
    response.writeHead(reply.status, { 'content-type': 'text/plain' }).end(reply.body);
  });
  await new Promise<void>((listening) => server?.listen(0, '127.0.0.1', listening));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked: () => asked };
}

afterEach(async () => {
  vi.restoreAllMocks();
  server?.closeAllConnections();
  await new Promise((closed) => server?.close(closed));
  server = undefined;
});

const OPTIONS = { timeoutMs: 300, pauseMs: 10 };
const OK = { status: 200, body: 'the answer' };

describe('a fetch of a target under an emulator', () => {
  it.each([
    ['an unanswered request', 'hang'],
    ["wrangler's 503 after a restart", { status: 503, body: 'Your worker restarted mid-request. Please try again.' }],
    ["miniflare's 500 while its runtime is down", { status: 500, body: 'Error: Network connection lost.' }],
  ] as const)('asks again after %s, and returns the answer that follows', async (_name, failure) => {
    const { origin, asked } = await serve([failure, failure, OK]);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { response, body } = await fetchFromEmulator(`${origin}/company/`, {}, OPTIONS);
    expect({ status: response.status, body: body.toString() }).toEqual(OK);
    expect(asked()).toBe(3);
    // Each failure the retry saved is still said.
    expect(warn.mock.calls.map(([line]) => String(line).startsWith(`GET ${origin}/company/: `))).toEqual([true, true]);
  });

  it.each([
    ['404', { status: 404, body: '{"detail":"Not found."}' }],
    ['500', { status: 500, body: 'Internal Server Error' }],
    ['503', { status: 503, body: 'Service Unavailable' }],
  ] as const)("returns the target's own %s as it is, asked once", async (_name, reply) => {
    const { origin, asked } = await serve([reply, OK]);
    const { response, body } = await fetchFromEmulator(`${origin}/company/`, { method: 'POST' }, OPTIONS);
    expect({ status: response.status, body: body.toString() }).toEqual(reply);
    expect(asked()).toBe(1);
  });

  it('names the request, the last failure and what the emulator printed when no try is answered', async () => {
    const { origin, asked } = await serve(['hang']);
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    await expect(
      fetchFromEmulator(`${origin}/company/`, { method: 'HEAD' }, { ...OPTIONS, output: () => 'workerd: line 1' }),
    ).rejects.toThrow(
      new RegExp(
        `^HEAD ${origin}/company/: .*TimeoutError.* \\(asked ${EMULATOR_RETRIES + 1} times\\); the emulator printed:\\nworkerd: line 1$`,
      ),
    );
    expect(asked()).toBe(EMULATOR_RETRIES + 1);
  });
});
