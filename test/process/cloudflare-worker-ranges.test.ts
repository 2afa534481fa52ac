// The Cloudflare worker under workerd (`wrangler dev`, as the end-to-end suite runs it) answers a
// Range as the local server does (docs/contract.md, section 2): one valid byte range of a GET is
// 206 with the slice, one that starts past the end 416, anything else the whole 200. Asked
// without Accept-Encoding: miniflare's stand-in for Cloudflare's edge gzips a 206 too, which the
// edge does not (it compresses only a 200, 403 or 404), and the fuzzer documents it.

import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WorkerBesideLocal, workerBesideLocal } from '../unit/helpers/worker-sample.ts';

const REQUESTS: Array<[method: string, target: string, range: string]> = [
  ['GET', '/event/', 'bytes=0-9'],
  ['GET', '/company/', 'bytes=100-'],
  ['GET', '/event/?ordering=-start_date', 'bytes=-12'],
  ['GET', '/virtualbooth-texture/?page=2', 'bytes=5-99999999'],
  ['GET', '/event/', 'bytes=99999999-'],
  ['GET', '/event/', 'bytes=0-1,5-6'],
  ['GET', '/event/', 'bytes=abc'],
  ['HEAD', '/event/', 'bytes=0-9'],
  ['GET', '/nope/', 'bytes=0-9'],
];

const SHOWN = ['content-type', 'content-range', 'etag', 'vary'];

interface Seen {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

/** One request on its own connection, with no Accept-Encoding. */
function ask(origin: string, method: string, target: string, range: string): Promise<Seen> {
  return new Promise((done, fail) => {
    const request = http.request(
      `${origin}${target}`,
      { method, headers: { Range: range }, agent: false },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () =>
          done({
            status: answer.statusCode ?? 0,
            headers: Object.fromEntries(SHOWN.map((name) => [name, answer.headers[name] as string | undefined])),
            body: Buffer.concat(chunks).toString('latin1'),
          }),
        );
      },
    );
    request.once('error', fail);
    request.end();
  });
}

describe('the Cloudflare worker under workerd, asked a Range', () => {
  let served: WorkerBesideLocal;

  beforeAll(async () => {
    served = await workerBesideLocal('worker-ranges-', (port) => ({ baseUrl: `http://127.0.0.1:${port}` }));
  }, 120_000);

  afterAll(() => served?.stop());

  it.each(REQUESTS)('%s %s Range: %s', async (method, target, range) => {
    const [worker, server] = await Promise.all([
      ask(served.worker.origin, method, target, range),
      ask(served.localOrigin, method, target, range),
    ]);
    // The ETags differ (the worker's is the asset server's); their presence is compared.
    const withoutTag = ({ headers, ...rest }: Seen) => ({
      ...rest,
      headers: { ...headers, etag: headers.etag !== undefined },
    });
    expect(withoutTag(worker)).toEqual(withoutTag(server));
  });

  it('sends 206 and 416 where the contract says so', async () => {
    const answers = await Promise.all(
      REQUESTS.map(([method, target, range]) => ask(served.worker.origin, method, target, range)),
    );
    expect(answers.map((answer) => answer.status)).toEqual([206, 206, 206, 206, 416, 200, 200, 200, 404]);
  });
});
