// Deploy target `cloudflare-workers`: Workers with static assets and the worker in front of every
// request (run_worker_first). The worker answers exactly like the local server; the assets are
// only its storage, so no file is reachable by its own path.

import { generatedNote } from '../generated-note.ts';
import type { TargetContext } from '../target.ts';
import { bundleWorker } from './bundle.ts';
import { COMPATIBILITY_DATE, WORKER_NAME } from './runtime.ts';
import { cloudflareWorkers } from './targets.ts';

const NAME = cloudflareWorkers.name;

/**
 * The assets folder, relative to this config (targets/cloudflare-workers/ → public/): the
 * defaults of --targets-dir and --out. Any other output folder is named with `--assets`, which
 * wrangler resolves from the current folder and which keeps the rest of `assets` as it is.
 */
const ASSETS_DIRECTORY = '../../public';

export function wranglerConfig(cpuMs: number | undefined): string {
  return `${generatedNote(NAME, '//')}
// Cloudflare Workers with static assets: worker.js (the request handler of
// scripts/respond/handler.ts and the _headers rules, bundled) answers every request first and
// reads the built files through the ASSETS binding, so it answers exactly like \`npm run serve\`.
//
// worker.js is written by \`npm run build\` (it is not kept in git).
// Deploy from the project folder, after \`npm run build\` with your production --base-url:
//   npx wrangler deploy -c targets/${NAME}/wrangler.jsonc
// Built into another folder (--out dist)? Name it; it is resolved from the current folder:
//   npx wrangler deploy -c targets/${NAME}/wrangler.jsonc --assets dist
// Try it locally: npx wrangler dev -c targets/${NAME}/wrangler.jsonc
// A file over 25 MiB, the largest asset, is left out by public/.assetsignore (written by the
// build, and read by wrangler): the worker sends it from its parts in public/_parts/.
{
  "name": ${JSON.stringify(WORKER_NAME)},
  "main": "worker.js",
  "compatibility_date": ${JSON.stringify(COMPATIBILITY_DATE)},
  "assets": {
    // Relative to this file: public/ of a build with the default folders.
    "directory": ${JSON.stringify(ASSETS_DIRECTORY)},
    "binding": "ASSETS",
    // Every request goes to the worker; assets are served only as the route table names them.
    "run_worker_first": true,
    // The worker asks for exact file names: no index or .html guessing, no fallback page.
    "html_handling": "none",
    "not_found_handling": "none"
  }${
    cpuMs === undefined
      ? ''
      : `,
  // The CPU time per request the build checked the lists' filters, search and orderings against
  // (cpuMs in the settings file; the paid plan's default is 30,000).
  "limits": { "cpu_ms": ${cpuMs} }`
  }
}
`;
}

/** The files of targets/cloudflare-workers/: the worker bundled with the build's rules and resources. */
export async function workersFiles(context: TargetContext): Promise<Map<string, string>> {
  return new Map([
    ['wrangler.jsonc', wranglerConfig(context.cpuMs)],
    ['worker.js', `${generatedNote(NAME, '//')}\n\n${await bundleWorker(context)}`],
  ]);
}
