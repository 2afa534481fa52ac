// The Netlify function's code as one self-contained ES module, like the Cloudflare worker
// (scripts/targets/cloudflare/bundle.ts): the `_headers` rules and the resources the build was
// given are data of the build, inlined. Netlify reads a function's `config` from its source
// without running it, as a literal `export const config = {...}`, so that export is written
// after the bundle as literal text, not left to esbuild (which would emit `export { config }`).

import { fileURLToPath } from 'node:url';
import { bundleEntry, resourcesArgument } from '../bundle.ts';
import type { TargetContext } from '../target.ts';

const FUNCTION = fileURLToPath(new URL('../../respond/netlify-function.ts', import.meta.url));

/** Functions v2 in-source config: the paths Netlify routes to the function before any rule, every method. */
export interface FunctionConfig {
  path: string[];
}

export function bundleFunctionCode({ headerRules, resources }: TargetContext, filesPrefix: string): Promise<string> {
  return bundleEntry({
    module: FUNCTION,
    contents:
      `import { createNetlifyFunction } from './netlify-function.ts';\n` +
      `export default createNetlifyFunction(${JSON.stringify(headerRules)}, ${JSON.stringify(filesPrefix)}${resourcesArgument(resources)});\n`,
    platform: 'node',
    languageTarget: 'node20',
  });
}

/** The function's file: the note, the code, and its config. */
export function functionFile(banner: string, code: string, config: FunctionConfig): string {
  return `${banner}\n${code}\n// Read by Netlify from the source (the paths routed to this function before any rule).\nexport const config = ${JSON.stringify(config, null, 2)};\n`;
}
