// Every host target the build can emit configuration for. Add a target here to have
// `npm run build` write it and `--target <name>` select it.

import { cloudflarePagesStatic } from './cloudflare-pages-static.ts';
import { cloudflarePages } from './cloudflare-pages.ts';
import { cloudflareWorkers } from './cloudflare-workers.ts';
import type { Host } from './host.ts';
import { nginx } from './nginx.ts';
import { caddy } from './caddy.ts';
import { apache } from './apache.ts';
import { netlify } from './netlify.ts';
import { vercel } from './vercel.ts';

export const HOSTS: readonly Host[] = [
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
 * Hosts that pick a file by path alone and cannot set the headers: they would answer
 * `/event/?ordering=-id` with the unsorted list. They are refused rather than half-served.
 */
export const REFUSED_HOSTS: Readonly<Record<string, string>> = {
  'github-pages': 'GitHub Pages cannot route on the query string, set Content-Type, Vary or Allow, or serve index.json',
  'gitlab-pages': 'GitLab Pages cannot route on the query string (its _redirects has no query conditions) and sets no per-site headers',
  's3-website': 'an S3 website endpoint cannot route on the query string (CloudFront with a CloudFront Function can: port the Cloudflare worker)',
  firebase: 'Firebase Hosting matches rewrites and headers on the path only, never on the query string',
};

