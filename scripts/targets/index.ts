// Every deploy target the build can write files for. Add a target here and its name to
// names.ts to have `npm run build` write it and `--target <name>` select it.

import { cloudflarePages } from './cloudflare/pages.ts';
import { cloudflarePagesStatic } from './cloudflare/pages-static.ts';
import { cloudflareWorkers } from './cloudflare/workers.ts';
import { TARGET_NAMES } from './names.ts';
import { netlify } from './netlify/netlify.ts';
import type { Target } from './target.ts';
import { vercel } from './vercel.ts';
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

const registered = TARGETS.map((target) => target.name).join();
if (registered !== TARGET_NAMES.join()) {
  throw new Error(`targets/index.ts (${registered}) and targets/names.ts (${TARGET_NAMES.join()}) disagree`);
}
