// `npm run diff [-- <before> [<after>]]`: how the API changed between two sides, record by
// record (docs/reviewing.md). A side is a folder of built output or a git revision; the working
// tree's side is built into a temporary folder, so public/ is not touched.

import { realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from '../builder/build.ts';
import { compareSides } from '../review/compare.ts';
import { formatJson } from '../review/format-json.ts';
import { formatMarkdown } from '../review/format-markdown.ts';
import { formatText } from '../review/format-text.ts';
import { readSide, type Side, settingsOf, WORKING_TREE } from '../review/side.ts';
import { EXIT_STATUS } from './exit-status.ts';
import { failureOf, failureText } from './fail.ts';
import { DEFAULTS, readSettings, type Settings, usage } from './settings.ts';

/** Where the command writes, so that a test can run it in-process. */
export interface DiffIo {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  isTty: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** The settings of `npm run diff`, its repository and settings file made absolute. */
type DiffArgs = Settings<'diff'>;

/** The settings as every command reads them: flags, then variables, then the repo's settings file. */
function parse(argv: string[], io: DiffIo): DiffArgs {
  const settings = readSettings(argv, io.env, 'diff', io.cwd);
  return {
    ...settings,
    repo: path.resolve(io.cwd, settings.repo),
    configPath: path.resolve(io.cwd, settings.configPath),
  };
}

/** Builds the working tree's data/ and _headers into `folder` and reads the output back. */
async function workingTree(args: DiffArgs, folder: string): Promise<Side> {
  const outDir = path.join(folder, 'public');
  await build({
    resources: args.resources,
    dataDir: path.join(args.repo, DEFAULTS.dataDir),
    headersPath: path.join(args.repo, DEFAULTS.headersPath),
    outDir,
    targetsDir: path.join(folder, 'targets'),
    targets: [],
    baseUrl: args.baseUrl,
    pageSize: args.pageSize,
    resourceSettings: args.resourceSettings,
    configPath: args.configPath,
    allowEmpty: args.allowEmpty,
    check: false,
    // The review reads the answers only.
    precompress: false,
  });
  const side = await readSide(outDir, args.repo);
  const text = await readFile(args.configPath, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  return { label: WORKING_TREE, files: side.files, settings: settingsOf(text, args.configPath) };
}

async function sides(args: DiffArgs, cwd: string): Promise<[Side, Side]> {
  // The settings file as the revisions hold it: its path in the repository, if it is in it.
  const inRepo = path.relative(args.repo, args.configPath).split(path.sep).join('/');
  const settingsFile = inRepo.startsWith('../') || path.isAbsolute(inRepo) ? undefined : inRepo;
  const named = (spec: string) => readSide(spec, args.repo, cwd, DEFAULTS.outDir, settingsFile);
  if (args.sides.length === 2) return Promise.all([named(args.sides[0] as string), named(args.sides[1] as string)]);
  const before = await named(args.sides[0] ?? 'HEAD');
  const folder = await mkdtemp(path.join(os.tmpdir(), 'api-diff-'));
  try {
    return [before, await workingTree(args, folder)];
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** Runs the command; returns the exit status. */
export async function runDiff(argv: string[], io: DiffIo): Promise<number> {
  try {
    const args = parse(argv, io);
    if (args.help) {
      io.out(`${usage('diff')}\n`);
      return EXIT_STATUS.done;
    }
    const [before, after] = await sides(args, io.cwd);
    const report = compareSides(before, after, args.resources);
    const colour = io.isTty && !io.env.NO_COLOR;
    if (args.format === 'json') io.out(formatJson(report));
    else if (args.format === 'markdown') io.out(formatMarkdown(report, args.resources));
    else io.out(formatText(report, colour, args.resources));
    return args.exitCode && !report.identical ? EXIT_STATUS.differs : EXIT_STATUS.done;
  } catch (error) {
    const failure = failureOf(error, { command: 'diff', left: 'nothing was compared' });
    io.err(`${failureText(error, failure)}\n`);
    return failure.status;
  }
}

/** Whether this module is the command being run (not imported by a test); through symlinks too. */
function isMain(): boolean {
  const started = process.argv[1];
  return started !== undefined && realpathSync(path.resolve(started)) === realpathSync(fileURLToPath(import.meta.url));
}

if (isMain()) {
  process.exitCode = await runDiff(process.argv.slice(2), {
    cwd: process.cwd(),
    env: process.env,
    isTty: process.stdout.isTTY === true,
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
}
