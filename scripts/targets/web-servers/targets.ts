// The three web server targets. Their hosts are the user's own machines: no limits of their own,
// the way out of a host's. Running no code, they answer the settings' filters from the build's
// files (`prerendered_filters`) and refuse the rest. Each one's generator is loaded when its
// files are asked for.

import type { Target } from '../target.ts';

export const nginx: Target = {
  name: 'nginx',
  limits: [],
  queries: 'prerendered',
  files: async (context) => (await import('./nginx.ts')).nginxFiles(context),
};

export const caddy: Target = {
  name: 'caddy',
  limits: [],
  queries: 'prerendered',
  files: async (context) => (await import('./caddy.ts')).caddyFiles(context),
};

export const apache: Target = {
  name: 'apache',
  limits: [],
  queries: 'prerendered',
  files: async (context) => (await import('./apache.ts')).apacheFiles(context),
};
