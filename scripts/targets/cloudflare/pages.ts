// Deploy target `cloudflare-pages`: Pages in advanced mode, the same worker as cloudflare-workers
// bundled as `_worker.js`. Pages takes the worker only from inside the deployed folder, so the
// recipe deploys a copy of public/ with it (public/ stays the committed, target-neutral build).

import { generatedMarkdownNote, generatedNote } from '../generated-note.ts';
import type { TargetContext } from '../target.ts';
import { bundleWorker } from './bundle.ts';
import { COMPATIBILITY_DATE } from './runtime.ts';
import { cloudflarePages } from './targets.ts';

const NAME = cloudflarePages.name;
/** Where the recipe assembles the deployed folder; any folder outside public/ will do. */
const DEPLOY_DIR = `.deploy/${NAME}`;

/**
 * Run in the deployed folder: removes what public/.assetsignore lists (assets.ts), which
 * `wrangler pages deploy` does not read, as `wrangler deploy` does for Workers. Its lines are
 * exact paths from the folder's root (`/company/index.json`) and the `*.br` and `*.gz` patterns.
 */
export const PAGES_PRUNE =
  "sed -n 's|^/||p' .assetsignore | xargs rm -f && find . \\( -name '*.br' -o -name '*.gz' \\) -delete && rm .assetsignore";

function readme(): string {
  return `${generatedMarkdownNote(NAME)}
# Cloudflare Pages with \`_worker.js\` (advanced mode)

\`_worker.js\` is the project's worker: its request handler (\`scripts/respond/handler.ts\`), the
route table and the \`_headers\` rules, bundled into one file. It receives every request and
answers exactly like \`npm run serve\`: orderings, pages, \`format\`, OPTIONS, 405, the slash
redirect and JSON 404s. It reads the built files through \`env.ASSETS\`; no file is reachable
by its own path. \`npm run build\` writes \`_worker.js\` with the build's \`_headers\` rules; it
is not kept in git.

Deploy, from the project folder:

\`\`\`sh
npm run build -- --base-url https://api.example.com
rm -rf ${DEPLOY_DIR} && mkdir -p .deploy && cp -R public ${DEPLOY_DIR}
cp targets/${NAME}/_worker.js ${DEPLOY_DIR}/
# Leave out what public/.assetsignore lists: the files over Pages' 25 MiB per file (the worker
# sends them from their parts in _parts/) and precompressed copies.
(cd ${DEPLOY_DIR} && ${PAGES_PRUNE})
npx wrangler pages deploy ${DEPLOY_DIR} --project-name <your-project>
\`\`\`

Set the project's compatibility date (Settings → Runtime) to ${COMPATIBILITY_DATE}, the date
the worker is tested with (\`wrangler pages dev ${DEPLOY_DIR} --compatibility-date=${COMPATIBILITY_DATE}\`).
Do not copy \`_worker.js\` into \`public/\` itself: \`public/\` is the committed, target-neutral
build (the staleness test would fail), and \`wrangler deploy\` of the cloudflare-workers target
refuses an assets folder that holds a \`_worker.js\`.
`;
}

/** The files of targets/cloudflare-pages/: the worker bundled with the build's rules and resources. */
export async function pagesFiles(context: TargetContext): Promise<Map<string, string>> {
  return new Map([
    ['_worker.js', `${generatedNote(NAME, '//')}\n\n${await bundleWorker(context)}`],
    ['README.md', readme()],
  ]);
}
