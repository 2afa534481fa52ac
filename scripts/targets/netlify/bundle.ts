// The Netlify functions' code as one self-contained ES module, like the Cloudflare worker
// (scripts/targets/cloudflare/bundle.ts): the `_headers` rules and the route table's file → URL
// list are data of the build, inlined. Both functions run the same code; only their `config`
// differs. Netlify reads a function's `config` from its source without running it, as a
// literal `export const config = {...}`, so that export is written after the bundle as literal
// text, not left to esbuild (which would emit `export { config }`).

import { fileURLToPath } from 'node:url';
import type { HeaderRule } from '../../contract/headers.ts';
import type { RouteUrls } from '../../respond/netlify-function.ts';
import { bundleEntry } from '../bundle.ts';

const FUNCTION = fileURLToPath(new URL('../../respond/netlify-function.ts', import.meta.url));

/** Functions v2 in-source config: the paths and methods Netlify routes to the function before any rule. */
export interface FunctionConfig {
  path: string[];
  method?: string[];
}

export function bundleFunctionCode(rules: readonly HeaderRule[], urls: RouteUrls, prefix: string): Promise<string> {
  return bundleEntry({
    module: FUNCTION,
    contents:
      `import { createNetlifyFunction } from './netlify-function.ts';\n` +
      `export default createNetlifyFunction(${JSON.stringify(rules)}, ${JSON.stringify(urls)}, ${JSON.stringify(prefix)});\n`,
    platform: 'node',
    languageTarget: 'node20',
  });
}

/** One function's file: the note, the shared code, and the function's own config. */
export function functionFile(banner: string, code: string, config: FunctionConfig): string {
  return `${banner}\n${code}\n// Read by Netlify from the source (paths and methods routed to this function before any rule).\nexport const config = ${JSON.stringify(config, null, 2)};\n`;
}
