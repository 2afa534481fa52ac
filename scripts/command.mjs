// Runs a command of scripts/cli/ (`node scripts/command.mjs build --check` runs
// scripts/cli/build-command.ts) from one esbuild compilation of all commands and their packages,
// kept in node_modules/.cache/. Compiling TypeScript at every start (tsx) cost about 0.6 s of
// each command, and loading the packages module by module most of the rest; the kept
// compilation is checked against every file it was made from at each start and made again when
// one changed, so it is never stale and an edit takes effect on the next command with no step of
// its own. This is the project's one cache, kept for that reason.

import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'static-drf-api');
const CURRENT = path.join(CACHE, 'current.json');
/** Every command, compiled together so that their shared modules are one chunk. */
const COMMANDS = readdirSync(path.join(ROOT, 'scripts', 'cli'))
  .filter((file) => file.endsWith('-command.ts'))
  .map((file) => file.slice(0, -'-command.ts'.length));
/** A compilation older than this that is not the current one is removed (a command may still be loading from it). */
const KEEP_OLD_MS = 60 * 60 * 1000;

/** `[mtime, size]` of a file, the two things an edit or a checkout changes. */
function versionOf(file) {
  const stats = statSync(file, { throwIfNoEntry: false });
  return stats ? [stats.mtimeMs, stats.size] : null;
}

/** The folder of the current compilation when every source it was made from is unchanged. */
function freshCompilation() {
  let current;
  try {
    current = JSON.parse(readFileSync(CURRENT, 'utf8'));
  } catch {
    return undefined;
  }
  if (current.root !== ROOT || current.commands.join() !== COMMANDS.join()) return undefined;
  for (const [file, version] of Object.entries(current.inputs)) {
    if (JSON.stringify(versionOf(path.join(ROOT, file))) !== JSON.stringify(version)) return undefined;
  }
  const folder = path.join(CACHE, current.folder);
  return existsSync(folder) ? folder : undefined;
}

/**
 * `import.meta.url` of each module becomes its source file's URL, so a module that finds files
 * beside itself (the worker's source, for its bundle) finds them when compiled too.
 */
const sourceUrls = {
  name: 'source-urls',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replaceAll(
        'import.meta.url',
        JSON.stringify(pathToFileURL(args.path).href),
      ),
      loader: 'ts',
    }));
  },
};

/**
 * zod's messages in the languages other than English (its `locales`, a third of the compiled
 * code every command loads at its start): nothing here sets a locale, so zod's English default is
 * the only one used. Its index module is replaced by one that exports English alone.
 */
const englishOnlyZod = {
  name: 'english-only-zod',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: path.join(path.dirname(args.importer), '..', 'locales', 'en.js'), namespace: 'zod-locales' }
        : undefined,
    );
    build.onLoad({ filter: /./, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

/** Compiles every command into a new folder, then points current.json at it in one rename. */
async function compile() {
  const { build } = await import('esbuild');
  mkdirSync(CACHE, { recursive: true });
  const folder = `build-${process.pid}-${Date.now()}`;
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: COMMANDS.map((name) => `scripts/cli/${name}-command.ts`),
    outdir: path.join(CACHE, folder),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    // The oldest line `engines` allows.
    target: 'node22',
    // Every package but esbuild, which finds its binary beside itself, is compiled in: loading a
    // few files instead of a few hundred modules is most of what a command's start costs.
    external: ['esbuild'],
    // The packages' ES module builds where they have one (jsonc-parser's CommonJS one requires
    // its parts by computed names).
    mainFields: ['module', 'main'],
    // The CommonJS packages compiled in (fast-glob) require Node's own modules.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    // Less for Node to read and parse at every start; a stack printed for a bug report names the
    // sources' lines all the same (the source map, below).
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    // Errors are named after their class (shared/errors.ts): keep the names bundling would change.
    keepNames: true,
    metafile: true,
    logLevel: 'error',
    plugins: [sourceUrls, englishOnlyZod],
  });
  // The launcher itself too: a change of how it compiles makes every compilation stale.
  const files = [...Object.keys(result.metafile.inputs), path.relative(ROOT, fileURLToPath(import.meta.url))];
  const inputs = Object.fromEntries(files.map((file) => [file, versionOf(path.join(ROOT, file))]));
  const pointer = `${CURRENT}.${process.pid}`;
  writeFileSync(pointer, JSON.stringify({ root: ROOT, commands: COMMANDS, folder, inputs }));
  renameSync(pointer, CURRENT);
  // Another command compiling at the same time may remove an old folder between the listing and its stat.
  for (const entry of readdirSync(CACHE)) {
    const old = path.join(CACHE, entry);
    const modified = statSync(old, { throwIfNoEntry: false })?.mtimeMs;
    if (entry.startsWith('build-') && entry !== folder && modified !== undefined && Date.now() - modified > KEEP_OLD_MS)
      rmSync(old, { recursive: true, force: true });
  }
  return path.join(CACHE, folder);
}

const [name] = process.argv.splice(2, 1);
if (!COMMANDS.includes(name)) {
  console.error(`usage: node scripts/command.mjs <${COMMANDS.join('|')}> [options]`);
  process.exit(2);
}
const folder = freshCompilation() ?? (await compile());
// A stack printed for a bug report (--debug, DEBUG=1) names the TypeScript sources' lines. The
// same reading of DEBUG as scripts/shared/debug.ts, which cannot be loaded before it is compiled.
if (
  process.argv.includes('--debug') ||
  !['', '0', 'false', undefined].includes(process.env.DEBUG?.trim().toLowerCase())
)
  process.setSourceMapsEnabled(true);
// The command sees the command line it would have run from source: `node scripts/cli/<name>-command.ts …`.
process.argv[1] = path.join(ROOT, 'scripts', 'cli', `${name}-command.ts`);
await import(pathToFileURL(path.join(folder, `${name}-command.mjs`)).href);
