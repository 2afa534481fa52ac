// The netlify target: Netlify's limits, checked by targets/limits.ts, and the request handler as
// a function (netlify.ts, loaded when the files are asked for), which answers every query.

import { ANOTHER_TARGET, type Limit, READ, sortedListFile } from '../limits.ts';
import type { Target } from '../target.ts';

const NETLIFY_LIMITS: readonly Limit[] = [
  {
    // Netlify names no hard count: it advises wildcards from 10,000 rules, as a deploy with
    // rules too large to serialize fails. The target writes two, whatever the catalogue.
    measure: { kind: 'rules', place: { in: 'target', file: '_redirects' }, count: 'redirects-all' },
    max: 10_000,
    what: '_redirects rules Netlify advises against',
    ways: ANOTHER_TARGET,
    source: 'https://docs.netlify.com/routing/redirects/',
    read: READ,
  },
  {
    // The function passes every list file through as a stream.
    measure: { kind: 'file-size', files: /^[^_/][^/]*\/[^/]+\.json$/ },
    max: 20_000_000,
    what: 'streamed per Netlify function answer',
    ways: ANOTHER_TARGET,
    source: 'https://docs.netlify.com/build/functions/overview/',
    read: READ,
  },
  {
    // An ordering by several fields is sorted and sent whole, buffered.
    measure: { kind: 'file-size', files: sortedListFile },
    max: 6_000_000,
    what: 'buffered per Netlify function answer',
    ways: ANOTHER_TARGET,
    source: 'https://docs.netlify.com/build/functions/overview/',
    read: READ,
  },
];

export const netlify: Target = {
  name: 'netlify',
  limits: NETLIFY_LIMITS,
  queries: 'handler',
  files: async (context) => (await import('./netlify.ts')).netlifyFiles(context),
};
