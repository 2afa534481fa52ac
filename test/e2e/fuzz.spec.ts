// [fuzz] docs/contract.md sections 2 to 5, request by request: the differential request fuzzer.
// Seeded requests (lib/fuzz-requests.ts) go to the target over bare sockets, exactly as written,
// and each answer is judged against what the contract says (lib/fuzz-oracle.ts), not against
// another target. A difference is either a documented one (FUZZ_DIFFERENCES in expectations.ts,
// with its reason; its count goes into docs/targets.md's table) or a failure that prints the
// request, the answer, what the contract says and the seed.
//
// `npm test` sends 300 requests per target, 100 to netlify dev; `npm run fuzz` 3,000 to every
// target, one target at a time (playwright.fuzz.config.ts; lib/fuzz-plan.ts gives counts and
// timeouts). FUZZ_SEED replays a run.

import { writeFileSync } from 'node:fs';
import { FUZZ_TITLE, fuzzDifference } from './expectations.ts';
import { expect, test } from './fixtures.ts';
import { EMULATOR_RETRIES, emulatorFailurePage, pauseForEmulator } from './lib/emulator.ts';
import { decodedBody, expectedAnswer, judge } from './lib/fuzz-oracle.ts';
import { EMULATED, fuzzCount, fuzzTimeoutMs } from './lib/fuzz-plan.ts';
import { fuzzRequests } from './lib/fuzz-requests.ts';
import type { Answer } from './lib/http.ts';
import { describeRequest, type RawRequest, sendRaw } from './lib/raw-http.ts';

// The oracle is the route table of a build without filters, search or orderings.
test.use({ querySettings: false });

const SEED = Number(process.env.FUZZ_SEED ?? 37);
/** Requests in flight at once: enough to be quick, few enough for a 2-core machine. */
const PARALLEL = 6;

function describeAnswer(answer: Answer | string): string {
  if (typeof answer === 'string') return answer;
  const body = answer.body.toString('utf8');
  return [
    `${answer.status}`,
    ...answer.headers.map(([name, value]) => `${name}: ${value}`),
    '',
    body.length > 400 ? `${body.slice(0, 400)}… (${answer.body.length} bytes)` : body,
  ].join('\n  ');
}

/**
 * netlify dev (netlify-cli 26.2.0) exits with "TypeError: Invalid URL" on a path that starts with
 * `//` or holds an escape that does not decode (`/%g0/`, `/%ff/`): a bug of the emulator, not of
 * Netlify's CDN (docs/targets.md). Those requests are not sent to it, so the suites after this one
 * still have a server to ask.
 */
function crashesNetlifyDev(request: RawRequest): boolean {
  const path = request.target.split('?')[0] as string;
  if (path.startsWith('//')) return true;
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

/** The emulator's own failure (lib/emulator.ts), not the target's answer: no answer at all, or its failure page. */
function emulatorFailed(answer: Answer | string): boolean {
  if (typeof answer === 'string') return true;
  // miniflare compresses its own error pages too, for a client that accepts it.
  const body = decodedBody(answer)?.toString('utf8');
  return body !== undefined && emulatorFailurePage(answer.status, body);
}

test(FUZZ_TITLE, async ({ site }, testInfo) => {
  const COUNT = fuzzCount(site.target);
  test.setTimeout(fuzzTimeoutMs(site.target));
  // netlify dev asks the function again under five names when it answers 404 and runs the
  // invocations one after another (expectations.ts, netlify-dev-404-retry): with six requests in
  // flight a 404 waits for thirty invocations, a minute on a loaded machine.
  const ANSWER_TIMEOUT_MS = site.target === 'netlify' ? 180_000 : 10_000;
  const requests = fuzzRequests(SEED, COUNT).filter(
    (request) => site.target !== 'netlify' || !crashesNetlifyDev(request),
  );
  const counts = new Map<string, number>();
  const failures: string[] = [];
  let next = 0;
  let judged = 0;
  const worker = async () => {
    while (next < requests.length) {
      const index = next++;
      const request = requests[index] as RawRequest;
      let answer = await sendRaw(site.origin, request, ANSWER_TIMEOUT_MS);
      let problems = judge(request, answer, site.publicDir);
      const documented = () =>
        problems.length
          ? fuzzDifference(site.target, { request, answer, problems, publicDir: site.publicDir })
          : undefined;
      let reason = documented();
      // An undocumented answer that is the emulator's own failure is asked again, after a pause
      // for it to come back, at most three times: a failure of the target itself stays and is reported.
      for (
        let retry = 0;
        retry < EMULATOR_RETRIES && problems.length && reason === undefined && EMULATED.has(site.target);
        retry++
      ) {
        if (!emulatorFailed(answer)) break;
        await pauseForEmulator();
        answer = await sendRaw(site.origin, request, ANSWER_TIMEOUT_MS);
        problems = judge(request, answer, site.publicDir);
        reason = documented();
      }
      judged++;
      // A long run says how far it is, for whoever waits an hour on an emulator.
      if (judged % 250 === 0)
        console.log(`${site.target}: ${judged} of ${requests.length} judged, ${failures.length} undocumented so far`);
      if (problems.length === 0) continue;
      if (reason !== undefined) {
        counts.set(reason, (counts.get(reason) ?? 0) + 1);
        continue;
      }
      failures.push(
        [
          `request ${index} of seed ${SEED} (FUZZ_SEED=${SEED} FUZZ_REQUESTS=${COUNT} replays it):`,
          `  ${describeRequest(request)}`,
          `answer of ${site.target}:`,
          `  ${describeAnswer(answer)}`,
          `contract: ${JSON.stringify(expectedAnswer(request))}`,
          ...problems.map((problem) => `  - ${problem}`),
        ].join('\n'),
      );
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  // What was sent, for the long run's table (fuzz-table.ts): a target without a difference has no other note.
  testInfo.annotations.push({ type: 'fuzz-requests', description: `${COUNT} (seed ${SEED}), ${requests.length} sent` });
  for (const [reason, count] of [...counts].sort()) {
    testInfo.annotations.push({ type: 'fuzz', description: `${reason}: ${count} of ${COUNT} (seed ${SEED})` });
  }
  if (failures.length) {
    await testInfo.attach('undocumented differences', { body: failures.join('\n\n'), contentType: 'text/plain' });
    writeFileSync(testInfo.outputPath('differences.txt'), failures.join('\n\n'));
  }
  expect(failures.length, `${failures.length} undocumented differences:\n\n${failures.slice(0, 15).join('\n\n')}`).toBe(
    0,
  );
});
