// How a target's code becomes one self-contained ES module (the Cloudflare worker, the Netlify
// function): esbuild bundles an entry that imports a module of scripts/respond/ and passes it the
// build's data (the `_headers` rules, the resources), written into the entry as literals. The
// bundles are made at each build and not kept: they are compiled copies of scripts/respond/ with
// one build's data in them, so a kept copy could only ever be stale.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { routingOf } from '../contract/routes.ts';
import type { TargetContext } from './target.ts';

/** The project root: the bundle's path comments are relative to it, whatever the cwd. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Entry {
  /** The module the entry imports (as `./<its file name>`): the entry is read as if beside it. */
  module: string;
  /** The entry's TypeScript source. */
  contents: string;
  platform: 'node' | 'neutral';
  /** esbuild's language target (`es2022`, `node20`). */
  languageTarget: string;
}

let bundler: Promise<typeof import('esbuild')> | undefined;

/**
 * esbuild, loaded and its service process started on the first call: a build calls this as it
 * starts, so that both happen while it reads the data rather than when the first bundle is asked
 * for. Not at the start of every command: a preview writes no target and never needs it.
 */
export function startBundler(): Promise<typeof import('esbuild')> {
  bundler ??= import('esbuild').then(async (esbuild) => {
    // The service is unreferenced while no bundle is asked for: it never holds the process open.
    await esbuild.initialize({});
    return esbuild;
  });
  return bundler;
}

export async function bundleEntry(entry: Entry): Promise<string> {
  const { build } = await startBundler();
  const result = await build({
    stdin: {
      contents: entry.contents,
      resolveDir: path.dirname(entry.module),
      sourcefile: `${path.basename(entry.module, '.ts')}-entry.ts`,
      loader: 'ts',
    },
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    format: 'esm',
    platform: entry.platform,
    target: entry.languageTarget,
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (output === undefined || result.outputFiles.length !== 1) {
    throw new Error(`esbuild made ${result.outputFiles.length} files of ${entry.module}, expected 1`);
  }
  return output.text;
}

/** The resources as the last argument of an entry's call (`, [...]`). */
export function resourcesArgument(resources: TargetContext['resources']): string {
  return `, ${JSON.stringify(routingOf(resources))}`;
}

/** The code of `make(context)`, made once per context: one per build, whichever targets ask for it. */
export function oncePerBuild<Context extends object, Code>(
  make: (context: Context) => Promise<Code>,
): (context: Context) => Promise<Code> {
  const made = new WeakMap<Context, Promise<Code>>();
  return (context) => {
    let code = made.get(context);
    if (code === undefined) {
      code = make(context);
      made.set(context, code);
    }
    return code;
  };
}
