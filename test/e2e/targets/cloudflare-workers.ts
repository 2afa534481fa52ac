// Cloudflare Workers with static assets and the worker in front (run_worker_first), run by
// `wrangler dev` with the wrangler.jsonc and worker.js the build wrote to targets/cloudflare-workers/.

import path from 'node:path';
import { startWrangler } from './cloudflare-wrangler.ts';
import type { Target } from './target.ts';

export const cloudflareWorkers: Target = {
  name: 'cloudflare-workers',
  async start({ publicDir, targetsDir, port, workDir }) {
    const config = path.join(targetsDir, 'cloudflare-workers', 'wrangler.jsonc');
    // The config names ../../public; the fixture lays the build out like the defaults
    // (<tmp>/public beside <tmp>/targets), so it runs unchanged. Any other layout is given with
    // --assets, which is also what the config's comment tells users built with --out.
    const configured = path.resolve(path.dirname(config), '../../public');
    const assets = configured === path.resolve(publicDir) ? [] : ['--assets', publicDir];
    return startWrangler(['dev', '--config', config, ...assets], { port, workDir });
  },
};
