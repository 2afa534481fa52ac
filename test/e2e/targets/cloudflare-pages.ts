// Cloudflare Pages in advanced mode, run by `wrangler pages dev` on a folder assembled as the
// deploy recipe of targets/cloudflare-pages/README.md says: a copy of the build output, plus the
// `_worker.js` the build wrote, minus what `.assetsignore` lists (`_redirects`, Netlify's rules,
// which the worker never uses; the files over 25 MiB, which the worker sends from their parts),
// by the recipe's own command.

import { execFile } from 'node:child_process';
import { copyFile, cp } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { PAGES_PRUNE } from '../../../scripts/targets/cloudflare/pages.ts';
import { COMPATIBILITY_DATE, startWrangler } from './cloudflare-wrangler.ts';
import type { Target } from './target.ts';

export const cloudflarePages: Target = {
  name: 'cloudflare-pages',
  async start({ publicDir, targetsDir, port, workDir }) {
    const site = path.join(workDir, 'site');
    await cp(publicDir, site, { recursive: true });
    await copyFile(path.join(targetsDir, 'cloudflare-pages', '_worker.js'), path.join(site, '_worker.js'));
    await promisify(execFile)('sh', ['-c', PAGES_PRUNE], { cwd: site });
    return startWrangler(['pages', 'dev', site, `--compatibility-date=${COMPATIBILITY_DATE}`], { port, workDir });
  },
};
