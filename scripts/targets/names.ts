// The deploy targets' names, apart from their generators, so that reading the settings does not
// load every generator (and esbuild with them). targets/index.ts checks that the two agree.

export const TARGET_NAMES = [
  'cloudflare-workers',
  'cloudflare-pages',
  'cloudflare-pages-static',
  'nginx',
  'caddy',
  'apache',
  'netlify',
  'vercel',
] as const;

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
