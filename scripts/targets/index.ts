// Every deploy target the build can write files for, and the limits of each one's host. Add a
// target here and its name to names.ts to have `npm run build` write it and `--target <name>`
// select it.

import { CLOUDFLARE_LIMITS } from './cloudflare/limits.ts';
import { cloudflarePages } from './cloudflare/pages.ts';
import { cloudflarePagesStatic } from './cloudflare/pages-static.ts';
import { cloudflareWorkers } from './cloudflare/workers.ts';
import type { Limit } from './limits.ts';
import { TARGET_NAMES } from './names.ts';
import { NETLIFY_LIMITS } from './netlify/limits.ts';
import { netlify } from './netlify/netlify.ts';
import type { Target } from './target.ts';
import { VERCEL_LIMITS } from './vercel/limits.ts';
import { vercel } from './vercel/vercel.ts';
import { apache } from './web-servers/apache.ts';
import { caddy } from './web-servers/caddy.ts';
import { nginx } from './web-servers/nginx.ts';

export const TARGETS: readonly Target[] = [
  cloudflareWorkers,
  cloudflarePages,
  cloudflarePagesStatic,
  nginx,
  caddy,
  apache,
  netlify,
  vercel,
];

/**
 * Each target's host limits, by its name, each kept beside its target. Web servers have none of
 * their own: their lists are empty on purpose, not missing.
 */
export const LIMITS: Readonly<Record<(typeof TARGET_NAMES)[number], readonly Limit[]>> = {
  ...CLOUDFLARE_LIMITS,
  nginx: [],
  caddy: [],
  apache: [],
  netlify: NETLIFY_LIMITS,
  vercel: VERCEL_LIMITS,
};

const registered = TARGETS.map((target) => target.name).join();
if (registered !== TARGET_NAMES.join()) {
  throw new Error(`targets/index.ts (${registered}) and targets/names.ts (${TARGET_NAMES.join()}) disagree`);
}
