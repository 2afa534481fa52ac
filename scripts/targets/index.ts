// The one list of deploy targets the build can write files for. Each target is an object kept
// beside its files (`<folder>/target.ts` or `targets.ts`): its name, its host's limits, what it
// answers, and its generator, loaded only when its files are asked for, so that the settings read
// the names here without loading any generator (esbuild with them). Add a target here to have
// `npm run build` write it and `--target <name>` select it.

import { cloudflarePages, cloudflarePagesStatic, cloudflareWorkers } from './cloudflare/targets.ts';
import { netlify } from './netlify/target.ts';
import type { Target } from './target.ts';
import { vercel } from './vercel/target.ts';
import { apache, caddy, nginx } from './web-servers/targets.ts';

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

export const TARGET_NAMES: readonly string[] = TARGETS.map((target) => target.name);

/**
 * Hosting services that pick a file by path alone and cannot set the headers: they would answer
 * `/event/?ordering=-id` with the unsorted list. They are refused rather than half-served.
 */
export const REFUSED_TARGETS: Readonly<Record<string, string>> = {
  'github-pages': 'GitHub Pages cannot route on the query string, set Content-Type, Vary or Allow, or serve index.json',
  'gitlab-pages':
    'GitLab Pages cannot route on the query string (its _redirects has no query conditions) and sets no per-site headers',
  's3-website':
    'an S3 website endpoint cannot route on the query string (CloudFront with a CloudFront Function can: port the Cloudflare worker)',
  firebase: 'Firebase Hosting matches rewrites and headers on the path only, never on the query string',
};
