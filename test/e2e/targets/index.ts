// The registry of targets: every way of serving the build that the suite runs against.
// playwright.config.ts makes one project per entry (select with E2E_TARGETS=name,name).
// To add a target: write targets/<name>.ts exporting a Target, list it here, and record what the
// target cannot do in ../expectations.ts (KNOWN_DIFFERENCES), never in the tests themselves.

import { apache } from './apache.ts';
import { caddy } from './caddy.ts';
import { cloudflarePages } from './cloudflare-pages.ts';
import { cloudflarePagesStatic } from './cloudflare-pages-static.ts';
import { cloudflareWorkers } from './cloudflare-workers.ts';
import { local } from './local.ts';
import { netlify } from './netlify.ts';
import { nginx } from './nginx.ts';
import type { Target } from './target.ts';

export const TARGETS: readonly Target[] = [
  local,
  nginx,
  caddy,
  apache,
  cloudflareWorkers,
  cloudflarePages,
  cloudflarePagesStatic,
  netlify,
];

export function targetByName(name: string): Target {
  const target = TARGETS.find((t) => t.name === name);
  if (!target) throw new Error(`unknown e2e target "${name}"; registered: ${TARGETS.map((t) => t.name).join(', ')}`);
  return target;
}
