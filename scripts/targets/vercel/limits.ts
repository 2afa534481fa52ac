// What Vercel accepts, for the vercel target, checked by targets/limits.ts.

import { ANOTHER_TARGET, type Limit, READ } from '../limits.ts';

export const VERCEL_LIMITS: readonly Limit[] = [
  {
    measure: { kind: 'rules', place: { in: 'target', file: 'vercel.json' }, count: 'vercel-routes' },
    max: 2_048,
    what: 'routes per deployment on Vercel',
    ways: ANOTHER_TARGET,
    source: 'https://vercel.com/docs/limits',
    read: READ,
  },
];
