// Cloudflare Pages without code, run by `wrangler pages dev` on a folder assembled as the
// deploy recipe of targets/cloudflare-pages-static/README.md says: a copy of the build output with
// the Pages `_redirects`, `_headers` and `404.html` the build wrote, less what the recipe's own
// command removes. What it cannot do is in ../expectations.ts.

import { execFile } from 'node:child_process';
import { copyFile, cp } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { PAGES_STATIC_PRUNE } from '../../../scripts/targets/cloudflare/pages-static.ts';
import { COMPATIBILITY_DATE, startWrangler } from './cloudflare-wrangler.ts';
import type { Target } from './target.ts';

export const cloudflarePagesStatic: Target = {
  name: 'cloudflare-pages-static',
  async start({ publicDir, targetsDir, port, workDir }) {
    const site = path.join(workDir, 'site');
    await cp(publicDir, site, { recursive: true });
    await promisify(execFile)('sh', ['-c', PAGES_STATIC_PRUNE], { cwd: site });
    for (const file of ['_redirects', '_headers', '404.html']) {
      await copyFile(path.join(targetsDir, 'cloudflare-pages-static', file), path.join(site, file));
    }
    return startWrangler(['pages', 'dev', site, `--compatibility-date=${COMPATIBILITY_DATE}`], { port, workDir });
  },
};
