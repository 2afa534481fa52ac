// The CORS preset of docs/caching.md, as a user adds it: its lines appended to the project's
// _headers, the sample built, and a browser's requests from another origin sent to nginx, Caddy,
// Apache, the local server and the Cloudflare worker under `wrangler dev`: the preflight OPTIONS
// of a list, and of a path that is none, a 301, a 405 and the lists themselves each carry every
// header of the preset. vercel.json and the Pages _headers carry it too.

import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHeadersFile } from '../../scripts/contract/headers.ts';
import { cloudflareWorkers } from '../e2e/targets/cloudflare-workers.ts';
import type { RunningTarget, Target } from '../e2e/targets/target.ts';
import { ROOT } from '../unit/helpers/cli.ts';
import {
  installedWebServers,
  localInProcess,
  type ServedSample,
  serveSampleWithHeaders,
} from '../unit/helpers/web-servers.ts';

const installed = installedWebServers('the CORS preset');
const TARGETS: Target[] = [...installed, localInProcess, cloudflareWorkers];
const ORIGIN = 'https://app.example.com';
const PREFLIGHT = {
  Origin: ORIGIN,
  'Access-Control-Request-Method': 'GET',
  'Access-Control-Request-Headers': 'if-none-match',
};

/** Requests a page on another origin makes, each with the status every target answers. */
const ASKED: Array<[method: string, target: string, headers: Record<string, string>, status: number]> = [
  ['OPTIONS', '/company/', PREFLIGHT, 200],
  ['OPTIONS', '/virtualbooth-texture/?page=2', PREFLIGHT, 200],
  ['OPTIONS', '/nope/', PREFLIGHT, 404],
  ['OPTIONS', '/company', PREFLIGHT, 301],
  ['GET', '/company/', { Origin: ORIGIN }, 200],
  ['GET', '/event/?ordering=-start_date', { Origin: ORIGIN, 'If-None-Match': '"x"' }, 200],
  ['GET', '/nope/', { Origin: ORIGIN }, 404],
  ['POST', '/company/', { Origin: ORIGIN }, 405],
  ['DELETE', '/event/', { Origin: ORIGIN }, 405],
];

/** The CORS preset of docs/caching.md: the block after `<!-- cors preset -->`. */
async function preset(): Promise<string> {
  const page = await readFile(path.join(ROOT, 'docs/caching.md'), 'utf8');
  return /<!-- cors preset -->\n```text\n([^`]*)```/.exec(page)?.[1] ?? '';
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
}

function ask(origin: string, method: string, target: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((done, fail) => {
    const request = http.request(`${origin}${target}`, { method, headers, agent: false }, (response) => {
      response.resume();
      response.once('end', () => done({ status: response.statusCode ?? 0, headers: response.headers }));
    });
    request.once('error', fail);
    request.end();
  });
}

const lines = await preset();
const expected = Object.fromEntries(
  (parseHeadersFile(lines).rules[0]?.headers ?? []).map(([name, value]) => [name.toLowerCase(), value]),
);

describe('the CORS preset of docs/caching.md', () => {
  let served: ServedSample;

  beforeAll(async () => {
    served = await serveSampleWithHeaders('cors-preset-', lines, TARGETS, ['vercel', 'cloudflare-pages-static']);
  }, 120_000);

  afterAll(async () => {
    if (served) await served.stop();
  });

  it('is one /* rule of the Access-Control headers, an origin allowed', () => {
    expect(lines.split('\n')[0]).toBe('/*');
    expect(expected['access-control-allow-origin']).toBe(ORIGIN);
    expect(expected['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expect(Object.keys(expected).every((name) => name.startsWith('access-control-'))).toBe(true);
  });

  it.each(TARGETS.map((server) => server.name))(
    '%s answers preflights, lists, a 301, 404s and 405s with every header of it',
    async (name) => {
      const { origin } = served.running.get(name) as RunningTarget;
      const wrong: string[] = [];
      for (const [method, target, headers, status] of ASKED) {
        const answer = await ask(origin, method, target, headers);
        const sent = Object.fromEntries(Object.keys(expected).map((header) => [header, answer.headers[header]]));
        if (answer.status !== status || JSON.stringify(sent) !== JSON.stringify(expected)) {
          wrong.push(`${method} ${target}: ${answer.status} ${JSON.stringify(sent)}`);
        }
      }
      expect(wrong).toEqual([]);
    },
  );

  it('vercel.json and the Pages _headers carry it', async () => {
    const vercel = JSON.parse(await readFile(path.join(served.targetsDir, 'vercel/vercel.json'), 'utf8')) as {
      headers: Array<{ headers: Array<{ key: string; value: string }> }>;
    };
    const values = vercel.headers.flatMap((rule) =>
      rule.headers.map(({ key, value }) => `${key.toLowerCase()}: ${value}`),
    );
    const pages = await readFile(path.join(served.targetsDir, 'cloudflare-pages-static/_headers'), 'utf8');
    for (const [header, value] of Object.entries(expected)) {
      expect(values).toContain(`${header}: ${value}`);
      expect(pages.toLowerCase()).toContain(`${header}: ${value}`.toLowerCase());
    }
  });
});
