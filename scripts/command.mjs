// Runs a command of scripts/cli/ (`node scripts/command.mjs build --check` runs
// scripts/cli/build-command.ts) from one esbuild compilation of all commands and their packages,
// kept in node_modules/.cache/. Compiling TypeScript at every start (tsx) cost about 0.6 s of
// each command, and loading the packages module by module most of the rest; the kept
// compilation is checked against every file it was made from at each start and made again when
// one changed, so it is never stale and an edit takes effect on the next command with no step of
// its own. This is the project's one cache, kept for that reason.
//
// The declared API is compiled in too: the module the api-module setting names (apiModule(),
// below), else the project's scripts/contract/resources/index.ts, with a compilation of its own.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'static-drf-api');
/** The project's declarations, the api-module setting's default. */
const PROJECT_API = 'scripts/contract/resources/index.ts';
const PROJECT_API_FILE = path.join(ROOT, PROJECT_API);
/** The settings file's default name (shared/folders.ts), which this module cannot import before it compiles. */
const SETTINGS_FILE = 'static-api.config.json';
/** Every command, compiled together so that their shared modules are one chunk. */
const COMMANDS = readdirSync(path.join(ROOT, 'scripts', 'cli'))
  .filter((file) => file.endsWith('-command.ts'))
  .map((file) => file.slice(0, -'-command.ts'.length));
/** A compilation older than this that no pointer names is removed (a command may still be loading from it). */
const KEEP_OLD_MS = 60 * 60 * 1000;

/** `[mtime, size]` of a file, the two things an edit or a checkout changes. */
function versionOf(file) {
  const stats = statSync(file, { throwIfNoEntry: false });
  return stats ? [stats.mtimeMs, stats.size] : null;
}

/** What a declarations module is, for the messages that refuse one. */
const MODULE_CONTRACT =
  'the declarations module must be a TypeScript or JavaScript module that exports RESOURCES, the list of the API\'s declarations (docs/architecture.md, "The declared API")';

/** A setting the launcher cannot use: the message, then exit status 2, as the commands end on a usage error. */
function refuse(message) {
  console.error(message);
  process.exit(2);
}

/**
 * The declarations module the commands run against: `file`, absolute; `given`, as the setting
 * `source` named it (none for the project's). The flag --api-module, else the variable API_MODULE
 * (each from the working directory), else apiModule in the settings file (from the file's
 * folder), else the project's. Read here, before anything is compiled, because the module is
 * compiled in; settings.ts lists the setting for the parsing and the help. The settings file is
 * found as settings.ts finds it (--config, else in --repo, else here); one that does not parse is
 * left for the command to say.
 */
function apiModule(argv, env) {
  const { values } = parseArgs({
    args: argv,
    options: { 'api-module': { type: 'string' }, config: { type: 'string' }, repo: { type: 'string' } },
    strict: false,
    allowPositionals: true,
  });
  const named = (raw, source, from) => {
    if (typeof raw !== 'string' || raw === '')
      refuse(`${source} must name the declarations module, such as ${PROJECT_API}, got ${JSON.stringify(raw ?? null)}`);
    const file = path.resolve(from, raw);
    if (!statSync(file, { throwIfNoEntry: false })?.isFile())
      refuse(`${source} names ${raw}, which is not a file: ${MODULE_CONTRACT}`);
    return { file, given: raw, source };
  };
  if (values['api-module'] !== undefined) return named(values['api-module'], '--api-module', process.cwd());
  if (env.API_MODULE !== undefined) return named(env.API_MODULE, 'API_MODULE', process.cwd());
  const config =
    typeof values.config === 'string'
      ? values.config
      : path.join(typeof values.repo === 'string' ? values.repo : '.', SETTINGS_FILE);
  let stored;
  try {
    stored = JSON.parse(readFileSync(config, 'utf8'));
  } catch {
    stored = undefined;
  }
  if (stored !== null && typeof stored === 'object' && 'apiModule' in stored)
    return named(stored.apiModule, `apiModule in ${config}`, path.dirname(path.resolve(config)));
  return { file: PROJECT_API_FILE, source: undefined };
}

/**
 * The pointer to the current compilation with `module` as the declared API: one per module, and
 * per copy of the project (a test's copy may share this node_modules/).
 */
const pointerFor = (module) =>
  path.join(CACHE, `current-${createHash('sha256').update(`${ROOT}\n${module}`).digest('hex').slice(0, 16)}.json`);

/** The folder of the current compilation with `module` when every source it was made from is unchanged. */
function freshCompilation(module) {
  let current;
  try {
    current = JSON.parse(readFileSync(pointerFor(module), 'utf8'));
  } catch {
    return undefined;
  }
  if (current.root !== ROOT || current.module !== module || current.commands.join() !== COMMANDS.join())
    return undefined;
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

/**
 * The declared API: the project's declarations, imported by the commands' settings
 * (scripts/cli/), become `module`, compiled in with the commands so that its declarations share
 * their zod and contract modules. `seen.redirected` says whether the import was seen, so that a
 * move of that import cannot leave the setting without effect.
 */
function declaredApi(module) {
  const seen = { redirected: false };
  const plugin = {
    name: 'declared-api',
    setup(build) {
      build.onResolve({ filter: /[\\/]resources[\\/]index\.ts$/ }, (args) => {
        const cli = path.join(ROOT, 'scripts', 'cli') + path.sep;
        if (path.resolve(args.resolveDir, args.path) !== PROJECT_API_FILE || !args.importer.startsWith(cli))
          return undefined;
        seen.redirected = true;
        return { path: module };
      });
    },
  };
  return { plugin, seen };
}

/** The module's problems (a syntax error, no RESOURCES), each where it is in the module, then the setting that named it. */
function refuseModule({ file, given, source }, errors) {
  const lines = errors.map(({ text, location }) => {
    const where = location && path.resolve(ROOT, location.file);
    if (!where?.startsWith(path.dirname(file))) return text;
    const shown = path.relative(process.cwd(), where);
    return `${shown.startsWith('..') ? where : shown}:${location.line}:${location.column + 1}: ${text}`;
  });
  refuse([...lines, `${source} names ${given}, which cannot be compiled: ${MODULE_CONTRACT}`].join('\n'));
}

/** Compiles every command with `module` into a new folder, then points its pointer at it in one rename. */
async function compile(module) {
  const own = module.file === PROJECT_API_FILE;
  const { build } = await import('esbuild');
  mkdirSync(CACHE, { recursive: true });
  const folder = `build-${process.pid}-${Date.now()}`;
  const declared = declaredApi(module.file);
  const options = {
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
    // The project's own modules' errors are esbuild's to print; the named module's, refuseModule's.
    logLevel: own ? 'error' : 'silent',
    plugins: [sourceUrls, englishOnlyZod, declared.plugin],
  };
  let result;
  try {
    result = await build(options);
  } catch (error) {
    if (own || !Array.isArray(error.errors)) throw error;
    refuseModule(module, error.errors);
  }
  if (!declared.seen.redirected)
    throw new Error(`no command imports ${PROJECT_API}, the declared API, from scripts/cli/`);
  // The launcher itself too: a change of how it compiles makes every compilation stale.
  const files = [...Object.keys(result.metafile.inputs), path.relative(ROOT, fileURLToPath(import.meta.url))];
  const inputs = Object.fromEntries(files.map((file) => [file, versionOf(path.join(ROOT, file))]));
  const pointer = `${pointerFor(module.file)}.${process.pid}`;
  writeFileSync(pointer, JSON.stringify({ root: ROOT, module: module.file, commands: COMMANDS, folder, inputs }));
  renameSync(pointer, pointerFor(module.file));
  removeOld();
  return path.join(CACHE, folder);
}

/**
 * The pointers of declarations modules that are gone (a test's temporary one), and the
 * compilations no pointer names once they are old enough that no command still loads from them.
 */
function removeOld() {
  const kept = new Set();
  for (const entry of readdirSync(CACHE).filter((name) => /^current-\w+\.json$/.test(name))) {
    let current;
    try {
      current = JSON.parse(readFileSync(path.join(CACHE, entry), 'utf8'));
    } catch {
      continue;
    }
    if (existsSync(current.module)) kept.add(current.folder);
    else rmSync(path.join(CACHE, entry), { force: true });
  }
  // Another command compiling at the same time may remove an old folder between the listing and its stat.
  for (const entry of readdirSync(CACHE)) {
    const old = path.join(CACHE, entry);
    const modified = statSync(old, { throwIfNoEntry: false })?.mtimeMs;
    if (entry.startsWith('build-') && !kept.has(entry) && modified !== undefined && Date.now() - modified > KEEP_OLD_MS)
      rmSync(old, { recursive: true, force: true });
  }
}

const [name] = process.argv.splice(2, 1);
if (!COMMANDS.includes(name)) {
  console.error(`usage: node scripts/command.mjs <${COMMANDS.join('|')}> [options]`);
  process.exit(2);
}
const module = apiModule(process.argv.slice(2), process.env);
const folder = freshCompilation(module.file) ?? (await compile(module));
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
