// Cloudflare Pages in advanced mode, run by `wrangler pages dev` on a folder assembled as the
// deploy recipe of targets/cloudflare-pages/README.md says: a copy of the build output, plus the
// `_worker.js` the build wrote, minus `_redirects` (Netlify's rules, which the worker never uses).

import { copyFile, cp, rm } from 'node:fs/promises';
import path from 'node:path';
import { COMPATIBILITY_DATE, startWrangler } from './cloudflare-wrangler.ts';
import type { Target } from './target.ts';

export const cloudflarePages: Target = {
  name: 'cloudflare-pages',
  async start({ publicDir, targetsDir, port, workDir }) {
    const site = path.join(workDir, 'site');
    await cp(publicDir, site, { recursive: true });
    await copyFile(path.join(targetsDir, 'cloudflare-pages', '_worker.js'), path.join(site, '_worker.js'));
    await rm(path.join(site, '_redirects'));
    return startWrangler(['pages', 'dev', site, `--compatibility-date=${COMPATIBILITY_DATE}`], { port, workDir });
  },
};
