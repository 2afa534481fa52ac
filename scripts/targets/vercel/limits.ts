// What Vercel accepts, for the vercel target, checked by targets/limits.ts.

import { type Limit, READ, WEB_SERVERS } from '../limits.ts';

export const VERCEL_LIMITS: readonly Limit[] = [
  {
    measure: { kind: 'rules', place: { in: 'target', file: 'vercel.json' }, count: 'vercel-routes' },
    max: 2_048,
    what: 'routes per deployment on Vercel',
    ways: `another target (cloudflare-workers, ${WEB_SERVERS})`,
    source: 'https://vercel.com/docs/limits',
    read: READ,
  },
];
