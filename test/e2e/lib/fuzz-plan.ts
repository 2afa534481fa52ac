// How many requests the fuzzer (fuzz.spec.ts) sends a target and how long it may take: one
// place, read by the test and by playwright.fuzz.config.ts, so that the run's global timeout is
// the sum of its targets' budgets and never ends a target that is within its own.

/** Targets run under a local emulator (wrangler, netlify dev): up to a second a request on a loaded machine. */
export const EMULATED = new Set(['cloudflare-workers', 'cloudflare-pages', 'cloudflare-pages-static', 'netlify']);

/** FUZZ_REQUESTS, or 300 (100 under netlify dev, which runs its function for every request) for `npm test`. */
export function fuzzCount(target: string): number {
  return Number(process.env.FUZZ_REQUESTS ?? (target === 'netlify' ? 100 : 300));
}

/**
 * The test's timeout for a target. The web servers answer in milliseconds, wrangler's runtimes in
 * tens of them; netlify dev took 0.8 s a request (100 in 78 s: it runs the function for every
 * request on a list path, and five times for a 404, expectations.ts netlify-dev-404-retry) on the
 * 2-core test machine under a load of 11 to 35, six requests in flight. The budgets are a few
 * times that, and more under an emulator, whose runtime restarts now and then.
 */
export function fuzzTimeoutMs(target: string): number {
  const perRequest = target === 'netlify' ? 5_000 : EMULATED.has(target) ? 2_000 : 1_000;
  return 60_000 + fuzzCount(target) * perRequest;
}
