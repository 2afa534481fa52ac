// `_redirects` (Netlify format): the route table as rewrite rules with query conditions.
// Netlify takes the first rule that matches, so rules with more query conditions come first.

import { NOT_FOUND_FILE, RESOURCES, type Route } from '../api/routes.ts';

export function renderRedirects(routes: readonly Route[]): string {
  const byConditions = [...routes].sort((a, b) => Object.keys(b.query).length - Object.keys(a.query).length);
  const lines = [
    '# Generated from the route table by `npm run build`. Netlify reads it; Cloudflare Pages cannot',
    '# match query strings and drops the rules that have conditions (see README, "Hosts").',
    ...RESOURCES.map((r) => `${r.path.slice(0, -1)} ${r.path} 301`),
    ...byConditions.map((route) => {
      const conditions = Object.keys(route.query)
        .sort()
        .map((key) => `${key}=${route.query[key]} `)
        .join('');
      return `${route.path} ${conditions}/${route.file} 200`;
    }),
    `/* /${NOT_FOUND_FILE} 404`,
  ];
  return `${lines.join('\n')}\n`;
}
