// How a host target's code becomes one self-contained ES module (the Cloudflare worker, the
// Netlify functions): esbuild bundles an entry that imports the code and passes it the build's
// data (the `_headers` rules, the route URLs), written into the entry as literals.
//
// Bundles are kept in node_modules/.cache like the build's own worker (pipeline/bundle-cache.ts),
// keyed by the entry as well: a build whose code, rules and route table did not change (most
// edits of the data change none of them) runs no esbuild. Bundling took about 0.1 s of a large
// build's time, most of it in esbuild's own process, which shares the machine's cores with it.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { cacheFile, cachedBundle, type Bundler } from '../build/bundle-cache.ts';

/** The project root: the bundle's path comments are relative to it, whatever the cwd. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Entry {
  /** Names the kept bundle: one per kind of target. */
  name: string;
  /** The module the entry imports (as `./<its file name>`): the entry is read as if beside it. */
  module: string;
  /** The entry's TypeScript source. */
  contents: string;
  platform: 'node' | 'neutral';
  target: string;
  /** A comment put first in the bundle. */
  banner?: string;
}

// Both Cloudflare targets bundle the same worker, and both Netlify functions the same code:
// each is bundled once per build. Only the last entry of each kind is kept, so a long-running
// process that builds many catalogues holds no more than one bundle of each.
const latest = new Map<string, { key: string; code: Promise<string> }>();

export function bundleEntry(entry: Entry, bundler: Bundler = build): Promise<string> {
  const key = JSON.stringify(entry);
  const known = latest.get(entry.name);
  if (known?.key === key) return known.code;
  const code = cachedBundle(
    {
      stdin: { contents: entry.contents, resolveDir: path.dirname(entry.module), sourcefile: `${path.basename(entry.module, '.ts')}-entry.ts`, loader: 'ts' },
      absWorkingDir: ROOT,
      bundle: true,
      format: 'esm',
      platform: entry.platform,
      target: entry.target,
      charset: 'utf8',
      legalComments: 'none',
      ...(entry.banner === undefined ? {} : { banner: { js: entry.banner } }),
      logLevel: 'silent',
    },
    cacheFile(entry.name),
    bundler,
  );
  latest.set(entry.name, { key, code });
  return code;
}
