// The committed schemas/openapi.json against real answers: every request of the end-to-end
// corpus (test/e2e/lib/corpus.ts, from the route table) sent to the local server and to nginx,
// Caddy and Apache (each skipped with one line when it is missing, failing under CI=true), once
// without Accept-Encoding and once with the one Node's fetch and the browsers send, and each
// answer judged against the document for its status: headers, media type and body. The sample
// is built with another origin in its page links than the document's server (localhost:3000),
// as a preview or a deploy has. The local server must also give each request the status
// resolve() gives it. A web server's answer that fails is excused only when it is one of that
// server's differences that expectations.ts documents (nginx's own TRACE, Apache's OPTIONS).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzDifference } from '../e2e/expectations.ts';
import { e2eCorpus } from '../e2e/lib/corpus.ts';
import { describeRequest, type RawRequest, sendRaw } from '../e2e/lib/raw-http.ts';
import { API } from '../fixtures/sample.ts';
import { answerJudge } from '../unit/helpers/openapi-answers.ts';
import { sampleDocument } from '../unit/helpers/sample-output.ts';
import {
  installedWebServers,
  localInProcess,
  type ServedSample,
  serveSampleWithHeaders,
} from '../unit/helpers/web-servers.ts';

const DOCUMENT = JSON.parse(sampleDocument());
const SERVERS = [localInProcess, ...installedWebServers('the OpenAPI document against real answers')];
/** What Node's fetch (undici) sends; the browsers send gzip and br too. */
const FETCH_ENCODINGS = 'gzip, deflate, br';
const ENCODINGS: ReadonlyArray<[label: string, headers: RawRequest['headers']]> = [
  ['without Accept-Encoding', []],
  [`with Accept-Encoding: ${FETCH_ENCODINGS}`, [['Accept-Encoding', FETCH_ENCODINGS]]],
];

let sample: ServedSample;

beforeAll(async () => {
  sample = await serveSampleWithHeaders('openapi-answers-', '', SERVERS);
}, 60_000);

afterAll(() => sample?.stop());

describe.each(SERVERS.map((server) => server.name))('schemas/openapi.json on %s', (name) => {
  it.each(ENCODINGS)('declares every answer of the e2e corpus, %s', async (_, headers) => {
    const judge = answerJudge(DOCUMENT);
    const corpus = e2eCorpus(sample.routes, API);
    expect(corpus.length).toBeGreaterThan(100);
    const origin = sample.running.get(name)?.origin as string;
    const failures: string[] = [];
    let compressed = 0;
    for (const { method, target, status } of corpus) {
      const request: RawRequest = { method, target, headers };
      const answer = await sendRaw(origin, request);
      if (typeof answer === 'string') {
        failures.push(`${describeRequest(request)}: ${answer}`);
        continue;
      }
      if (answer.header('content-encoding') !== undefined) compressed++;
      const problems = judge(answer);
      if (name === 'local' && answer.status !== status) problems.push(`status ${answer.status}, not ${status}`);
      if (problems.length === 0) continue;
      const documented = fuzzDifference(name, { request, answer, problems, publicDir: sample.publicDir });
      if (documented === undefined)
        failures.push(`${describeRequest(request)} → ${answer.status}: ${problems.join('; ')}`);
    }
    expect(failures).toEqual([]);
    // With Accept-Encoding, the lists of 4 KiB or more come compressed: the case under test happened.
    expect(compressed > 0).toBe(headers.length > 0);
  });
});
