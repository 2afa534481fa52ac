// The vercel target: Vercel's limits, checked by targets/limits.ts, and vercel.json (vercel.ts,
// loaded when the files are asked for), which answers the settings' filters from the build's
// files and refuses the rest.

import { ANOTHER_TARGET, type Limit, READ } from '../limits.ts';
import type { Target } from '../target.ts';

const VERCEL_LIMITS: readonly Limit[] = [
  {
    measure: { kind: 'rules', place: { in: 'target', file: 'vercel.json' }, count: 'vercel-routes' },
    max: 2_048,
    what: 'routes per deployment on Vercel',
    ways: ANOTHER_TARGET,
    source: 'https://vercel.com/docs/limits',
    read: READ,
  },
];

export const vercel: Target = {
  name: 'vercel',
  limits: VERCEL_LIMITS,
  queries: 'prerendered',
  files: async (context) => (await import('./vercel.ts')).vercelFiles(context),
};
