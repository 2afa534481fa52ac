// `npm run diff [-- <before> [<after>]]`: how the API changed between two sides, record by
// record (docs/reviewing.md). A side is a folder of built output or a git revision; the working
// tree's side is built into a temporary folder, so public/ is not touched.

import { realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DataErrors, formatDataError } from '../build/errors.ts';
import { compareSides } from '../review/compare.ts';
import { formatJson } from '../review/format-json.ts';
import { formatMarkdown } from '../review/format-markdown.ts';
import { formatText } from '../review/format-text.ts';
import { readSide, type Side, SideError } from '../review/side.ts';
import { build } from './run-build.ts';
import { DEFAULTS, UsageError } from './settings.ts';

const FORMATS = ['text', 'markdown', 'json'] as const;
type Format = (typeof FORMATS)[number];

export const DIFF_USAGE = `Usage: npm run diff -- [options] [<before> [<after>]]

Shows how the API changed between two sides, record by record and answer by answer.
A side is a folder of built output, or a git revision (its committed public/, read
without a checkout). With no side: HEAD against a fresh build of the working tree's
data/ and _headers (built into a temporary folder; public/ is not touched). With one:
that side against the working tree's build. With two: the first against the second.

Options:
  --format <format>     text (default; coloured on a terminal unless NO_COLOR is set),
                        markdown (for a pull-request comment) or json (for scripts)
  --exit-code           exit with 1 when the sides differ, 0 when they do not
  --repo <dir>          the project whose revisions and working tree are read (default: .)
  --base-url <url>      base URL of the working tree's build (default: ${DEFAULTS.baseUrl})
  --page-size <n>       page size of the working tree's build (default: ${DEFAULTS.pageSize})
  -h, --help            show this help

Exit status: 0, or 1 with --exit-code when the sides differ; 2 for a usage or read error.

Example: npm run diff -- main --format markdown`;

/** Where the command writes, so that a test can run it in-process. */
export interface DiffIo {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  isTty: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
}

interface DiffArgs {
  sides: string[];
  format: Format;
  exitCode: boolean;
  repo: string;
  baseUrl: string;
  pageSize: number;
  help: boolean;
}

function parse(argv: string[], cwd: string): DiffArgs {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const format = values.format ?? 'text';
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(format)}`);
  }
  if (positionals.length > 2) throw new UsageError(`at most two sides, got ${positionals.length}`);
  const pageSize = Number(values['page-size'] ?? DEFAULTS.pageSize);
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new UsageError(`--page-size must be a whole number of at least 1, got ${values['page-size']}`);
  }
  return {
    sides: positionals,
    format: format as Format,
    exitCode: values['exit-code'] ?? false,
    repo: path.resolve(cwd, values.repo ?? '.'),
    baseUrl: (values['base-url'] ?? DEFAULTS.baseUrl).replace(/\/+$/, ''),
    pageSize,
    help: values.help ?? false,
  };
}

function parseOptions(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      'exit-code': { type: 'boolean' },
      repo: { type: 'string' },
      'base-url': { type: 'string' },
      'page-size': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** Builds the working tree's data/ and _headers into `folder` and reads the output back. */
async function workingTree(args: DiffArgs, folder: string): Promise<Side> {
  const outDir = path.join(folder, 'public');
  await build({
    dataDir: path.join(args.repo, 'data'),
    headersPath: path.join(args.repo, '_headers'),
    outDir,
    targetsDir: path.join(folder, 'targets'),
    targets: [],
    baseUrl: args.baseUrl,
    pageSize: args.pageSize,
    check: false,
  });
  const side = await readSide(outDir, args.repo);
  return { label: 'the working tree', files: side.files };
}

async function sides(args: DiffArgs, cwd: string): Promise<[Side, Side]> {
  const named = (spec: string) => readSide(spec, args.repo, cwd);
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
    const args = parse(argv, io.cwd);
    if (args.help) {
      io.out(`${DIFF_USAGE}\n`);
      return 0;
    }
    const [before, after] = await sides(args, io.cwd);
    const report = compareSides(before, after);
    const colour = io.isTty && !io.env.NO_COLOR;
    if (args.format === 'json') io.out(formatJson(report));
    else if (args.format === 'markdown') io.out(formatMarkdown(report));
    else io.out(formatText(report, colour));
    return args.exitCode && !report.identical ? 1 : 0;
  } catch (error) {
    if (error instanceof DataErrors) {
      for (const problem of error.errors) io.err(`${formatDataError(problem)}\n`);
      io.err(`diff: the working tree does not build: ${error.message}\n`);
      return 2;
    }
    if (error instanceof UsageError || error instanceof SideError) {
      io.err(`diff: ${error.message}${error instanceof UsageError ? ' (see --help)' : ''}\n`);
      return 2;
    }
    io.err(`diff: ${(error as Error).message.split('\n')[0]}\n`);
    return 2;
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
