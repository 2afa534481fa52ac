// The commands' settings: each flag wins over its environment variable, which wins over the
// settings file (static-api.config.json), which wins over the default. One table of options
// drives the parsing, the checks and each command's --help.

import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_PAGE_SIZE } from '../contract/pagination.ts';
import type { ResourceSettings } from '../contract/query.ts';
import { RESOURCES } from '../contract/resources/index.ts';
import type { Resource } from '../contract/resources/resource.ts';
import { ProjectError } from '../shared/errors.ts';
import { DEFAULT_OUTPUT_FOLDER, SETTINGS_FILE } from '../shared/folders.ts';
import { closestName } from '../shared/misspellings.ts';
import { REFUSED_TARGETS, TARGET_NAMES } from '../targets/index.ts';
import { CLOUDFLARE_PLANS, type CloudflarePlan, DEFAULT_CLOUDFLARE_PLAN, MAX_CPU_MS } from '../targets/limits.ts';
import { EXIT_STATUS } from './exit-status.ts';
import { readSettingsFile, SETTINGS_FILE_KEYS, SettingsFileError, type SettingsFileKey } from './settings-file.ts';

const DEFAULT_PORT = 3000;

export const DEFAULTS = {
  dataDir: 'data',
  outDir: DEFAULT_OUTPUT_FOLDER,
  headersPath: '_headers',
  targetsDir: 'targets',
  schemasDir: 'schemas',
  configPath: SETTINGS_FILE,
  /** Where `npm start` and `npm run dev` build, a folder per port: git ignores it, so a preview never changes committed files. */
  previewDir: '.preview',
  host: '127.0.0.1',
  port: DEFAULT_PORT,
  /** The origin `npm start` serves on by default, so the committed public/ matches it. */
  baseUrl: `http://localhost:${DEFAULT_PORT}`,
  pageSize: DEFAULT_PAGE_SIZE,
  cloudflarePlan: DEFAULT_CLOUDFLARE_PLAN,
  /** `npm run diff`'s report. */
  diffFormat: 'text',
  /** `npm run diff` and `setup-git`: the project they work on. */
  repo: '.',
} as const;

export interface Settings {
  /** The API's declarations (contract/resources/), read once here and passed down. */
  resources: readonly Resource[];
  dataDir: string;
  outDir: string;
  headersPath: string;
  targetsDir: string;
  schemasDir: string;
  /** The project settings file (settings-file.ts). */
  configPath: string;
  /** The deploy targets to write, named by the user (a flag or the settings file); every target when absent. */
  targets: string[] | undefined;
  /** Whose limits the Cloudflare targets are checked against. */
  cloudflarePlan: CloudflarePlan;
  /** The worker's CPU time per request (ms) on the paid plan, written into wrangler.jsonc; the plan's default when absent. */
  cpuMs: number | undefined;
  baseUrl: string;
  /** Whether a flag or the environment set the base URL (`npm start` and `dev` otherwise use the served origin). */
  baseUrlGiven: boolean;
  pageSize: number;
  /** Whether the build writes the API reference page at /_reference/ (builder/documents/reference.ts). */
  reference: boolean;
  /** Whether the build writes each answer's `.br` and `.gz` siblings (shared/compress.ts), for the web servers to send. */
  precompress: boolean;
  /** Whether a data folder without a record builds (an API of empty lists) rather than stops. */
  allowEmpty: boolean;
  /** The settings file's filters, search and ordering per resource (settings-file.ts); none when absent. */
  resourceSettings: Record<string, ResourceSettings> | undefined;
  host: string;
  port: number;
  check: boolean;
  /** `npm run import`: the running DRF service's base URL. */
  from: string | undefined;
  /** `npm run verify`: the running DRF service's base URL. */
  against: string | undefined;
  /** `npm run import`: replace a data folder that holds files. */
  force: boolean;
  /** `npm run diff`: the sides named, none to two. */
  sides: string[];
  /** `npm run diff`: the report's format. */
  format: DiffFormat;
  /** `npm run diff`: exit 1 when the sides differ. */
  exitCode: boolean;
  /** `npm run diff`: the project whose revisions and working tree are read, as given. */
  repo: string;
}

export const DIFF_FORMATS = ['text', 'markdown', 'json'] as const;
export type DiffFormat = (typeof DIFF_FORMATS)[number];

/** A setting given wrongly, or a flag the command does not take: the message, then exit status 2 (fail.ts). */
export class UsageError extends ProjectError {
  /** The command whose --help the message points to, once known. */
  command?: CommandName;
  /**
   * Whether the command's --help helps with it; not for a problem of the settings file (the help
   * describes the flags) or a message that already gives the line that works.
   */
  pointsToHelp = true;
}

interface Option {
  flag: string;
  /** The value's placeholder in the help; none for a switch. */
  value?: string;
  variable?: string;
  /** Its key in the settings file, when the file may hold it. */
  fileKey?: SettingsFileKey;
  description: string;
  default: string;
}

export const OPTIONS = {
  data: { flag: '--data', value: '<dir>', description: 'source data folder', default: DEFAULTS.dataDir },
  out: { flag: '--out', value: '<dir>', description: 'output folder', default: DEFAULTS.outDir },
  headers: { flag: '--headers', value: '<file>', description: 'the headers file', default: DEFAULTS.headersPath },
  'targets-dir': {
    flag: '--targets-dir',
    value: '<dir>',
    description: "where the deploy targets' files go",
    default: DEFAULTS.targetsDir,
  },
  'schemas-dir': {
    flag: '--schemas-dir',
    value: '<dir>',
    description: "where the data files' JSON Schemas and the OpenAPI document go",
    default: DEFAULTS.schemasDir,
  },
  target: {
    flag: '--target',
    value: '<names>',
    fileKey: 'targets',
    description: "deploy targets to write, comma-separated; one its host's limits refuse stops the build",
    default: 'all',
  },
  'cloudflare-plan': {
    flag: '--cloudflare-plan',
    value: '<plan>',
    fileKey: 'cloudflarePlan',
    description:
      'free or paid: the Cloudflare plan whose limits (files per deployment, CPU time per request) the build checks',
    default: DEFAULTS.cloudflarePlan,
  },
  'cpu-ms': {
    flag: '--cpu-ms',
    value: '<ms>',
    fileKey: 'cpuMs',
    description:
      "the worker's CPU time per request on the Cloudflare paid plan, up to 300000 (wrangler's limits.cpu_ms)",
    default: '30000 on paid',
  },
  config: {
    flag: '--config',
    value: '<file>',
    description: `the project settings file (${SETTINGS_FILE_KEYS.filter((key) => key !== 'resources').join(', ')}); optional`,
    default: DEFAULTS.configPath,
  },
  'base-url': {
    flag: '--base-url',
    value: '<url>',
    variable: 'BASE_URL',
    fileKey: 'baseUrl',
    description: 'public origin of the API, for the absolute page links',
    default: DEFAULTS.baseUrl,
  },
  'page-size': {
    flag: '--page-size',
    value: '<n>',
    variable: 'PAGE_SIZE',
    fileKey: 'pageSize',
    description: 'textures per page',
    default: String(DEFAULTS.pageSize),
  },
  reference: {
    flag: '--reference',
    value: '<on/off>',
    variable: 'REFERENCE',
    fileKey: 'reference',
    description: 'the API reference page at /_reference/, beside the API (true or false in the settings file)',
    default: 'off; on in npm start and npm run dev',
  },
  precompress: {
    flag: '--precompress',
    value: '<on/off>',
    variable: 'PRECOMPRESS',
    fileKey: 'precompress',
    description:
      "each answer's .br and .gz siblings, which nginx, Caddy and Apache send; off for a host that compresses by itself (true or false in the settings file)",
    default: 'on',
  },
  'allow-empty': {
    flag: '--allow-empty',
    fileKey: 'allowEmpty',
    description:
      'build a data folder without a record, as an API of empty lists (true or false in the settings file); otherwise such a folder stops the build',
    default: 'off',
  },
  host: {
    flag: '--host',
    value: '<address>',
    variable: 'HOST',
    description: 'address to listen on',
    default: DEFAULTS.host,
  },
  port: {
    flag: '--port',
    value: '<n>',
    variable: 'PORT',
    description: 'port to listen on',
    default: String(DEFAULTS.port),
  },
  check: { flag: '--check', description: 'validate only, write nothing', default: 'off' },
  from: {
    flag: '--from',
    value: '<url>',
    description: "the running DRF service's base URL, such as https://example.com/api/",
    default: 'none, required',
  },
  against: {
    flag: '--against',
    value: '<url>',
    description: "the running DRF service's base URL, such as https://example.com/api/",
    default: 'none, required',
  },
  force: { flag: '--force', description: 'replace a data folder that already holds files', default: 'off' },
  format: {
    flag: '--format',
    value: '<format>',
    description:
      'text (coloured on a terminal unless NO_COLOR is set), markdown (for a pull-request comment) or json (for scripts)',
    default: DEFAULTS.diffFormat,
  },
  'exit-code': { flag: '--exit-code', description: 'exit with 1 when the sides differ', default: 'off' },
  repo: {
    flag: '--repo',
    value: '<dir>',
    description: 'the project (a git clone) to work on: its revisions, working tree and settings file',
    default: DEFAULTS.repo,
  },
} as const satisfies Record<string, Option>;

type OptionName = keyof typeof OPTIONS;

export interface Command {
  /** How the user runs it. */
  name: string;
  summary: string;
  options: readonly OptionName[];
  /** The positional arguments it takes, as the usage line shows them; none when absent. */
  positionals?: { usage: string; most: number; noun: string };
  example: string;
}

const BUILD_OPTIONS: readonly OptionName[] = [
  'data',
  'out',
  'headers',
  'targets-dir',
  'schemas-dir',
  'target',
  'cloudflare-plan',
  'cpu-ms',
  'config',
  'base-url',
  'page-size',
  'reference',
  'precompress',
  'allow-empty',
];

const PREVIEW_OPTIONS: readonly OptionName[] = [
  'data',
  'headers',
  'config',
  'base-url',
  'page-size',
  'reference',
  'allow-empty',
  'host',
  'port',
];

export const COMMANDS = {
  build: {
    name: 'npm run build',
    summary: "Validates the source data and writes the API into the output folder and the deploy targets' files.",
    options: [...BUILD_OPTIONS, 'check'],
    example: 'npm run build -- --base-url https://api.example.com',
  },
  check: {
    name: 'npm run check',
    summary: 'Validates the source data and the headers file; writes nothing.',
    options: ['data', 'headers', 'cloudflare-plan', 'cpu-ms', 'config', 'base-url', 'page-size', 'allow-empty'],
    example: 'npm run check -- --data test/fixtures/good/data',
  },
  serve: {
    name: 'npm run serve',
    summary: 'Serves an output folder that is already built, answering like the DRF service.',
    options: ['out', 'host', 'port'],
    example: 'npm run serve -- --port 8080',
  },
  start: {
    name: 'npm start',
    summary: `Builds the source data into ${DEFAULTS.previewDir}/<port>/ (which git ignores) with links on the served origin, then serves it; never writes the committed folders.`,
    options: PREVIEW_OPTIONS,
    example: 'npm start -- --port 8080',
  },
  dev: {
    name: 'npm run dev',
    summary: `A live preview: builds like npm start, then rebuilds into ${DEFAULTS.previewDir}/<port>/ on every change of the data, the headers file or the settings file, and keeps serving the last good build when a change has problems.`,
    options: PREVIEW_OPTIONS,
    example: 'npm run dev -- --port 8080',
  },
  import: {
    name: 'npm run import',
    summary:
      'Reads every list of a running DRF service and writes the data folder and the settings file, so that npm run build answers as the service does.',
    options: ['from', 'data', 'config', 'force'],
    example: 'npm run import -- --from https://example.com/api/',
  },
  verify: {
    name: 'npm run verify',
    summary:
      'Asks a running DRF service and this build every request the route table knows, and prints each difference; exits 1 when anything differs.',
    options: ['against', 'data', 'headers', 'config', 'base-url', 'page-size', 'allow-empty'],
    example: 'npm run verify -- --against https://example.com/api/',
  },
  diff: {
    name: 'npm run diff',
    summary:
      "Shows how the API changed between two sides, record by record and answer by answer. A side is a folder of built output, or a git revision (its committed public/, read without a checkout). With no side: HEAD against a fresh build of the working tree's data/ and _headers, with the settings file's base URL and page size (built into a temporary folder; public/ is not touched). With one: that side against the working tree's build. With two: the first against the second. Exit status: 0, or 1 with --exit-code when the sides differ; 2 for a usage or read error.",
    options: ['format', 'exit-code', 'repo', 'config', 'base-url', 'page-size', 'allow-empty'],
    positionals: { usage: '[<before> [<after>]]', most: 2, noun: 'sides' },
    example: 'npm run diff -- main --format markdown',
  },
  'setup-git': {
    name: 'npm run setup-git',
    summary:
      'Sets up the "api-json" diff driver that .gitattributes gives public/**/*.json, in this clone\'s .git/config only, so that git diff, git log -p and git show print each answer one value per line. Undo with: git config --remove-section diff.api-json',
    options: ['repo'],
    example: 'npm run setup-git',
  },
} as const satisfies Record<string, Command>;

export type CommandName = keyof typeof COMMANDS;

/** The command's --help: what it does, its options with their variables and defaults, an example. */
export function usage(commandName: CommandName): string {
  const command: Command = COMMANDS[commandName];
  const lefts = command.options.map((name) => {
    const option: Option = OPTIONS[name];
    return option.value ? `${option.flag} ${option.value}` : option.flag;
  });
  // The meanings in one column, two spaces past the longest flag.
  const width = Math.max(20, ...lefts.map((left) => left.length)) + 2;
  const rows = command.options.map((name, index) => {
    const option: Option = OPTIONS[name];
    const variable = option.variable ? `variable ${option.variable}, ` : '';
    return `  ${(lefts[index] as string).padEnd(width)}${option.description} (${variable}default: ${option.default})`;
  });
  const positionals = command.positionals ? ` ${command.positionals.usage}` : '';
  return [
    `Usage: ${command.name} -- [options]${positionals}`,
    '',
    command.summary,
    '',
    'Options (a flag wins over its variable, which wins over the settings file, which wins over the default):',
    ...rows,
    `  ${'-h, --help'.padEnd(width)}show this help`,
    '',
    `Example: ${command.example}`,
  ].join('\n');
}

function wholeNumber(raw: string, source: string, min: number, max: number): number {
  const value = Number(raw);
  if (/^\s*$/.test(raw) || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    throw new UsageError(`${source} must be a whole number ${range}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function absoluteUrl(raw: string, source: string): string {
  let valid = false;
  try {
    const url = new URL(raw);
    valid = ['http:', 'https:'].includes(url.protocol) && !url.search && !url.hash && !url.username;
  } catch {
    valid = false;
  }
  if (!valid) {
    throw new UsageError(
      `${source} must be an absolute http(s) URL without query or fragment, such as https://api.example.com, got ${JSON.stringify(raw)}`,
    );
  }
  return raw.replace(/\/+$/, '');
}

function targetList(raw: string, source: string): string[] | undefined {
  if (raw === 'all') return undefined;
  const names = raw.split(',').map((name) => name.trim());
  for (const name of names) {
    if ((TARGET_NAMES as readonly string[]).includes(name)) continue;
    const refused = REFUSED_TARGETS[name];
    const meant = closestName(name, TARGET_NAMES);
    throw new UsageError(
      refused
        ? `${source} ${name} is refused: ${refused}. Use some of: ${TARGET_NAMES.join(', ')}`
        : `${source} must name deploy targets among ${TARGET_NAMES.join(', ')}, or "all", got ${JSON.stringify(name)}${meant ? `; did you mean ${meant}?` : ''}`,
    );
  }
  return names;
}

/** The settings file holds the targets as an array of names, the flag as one comma-separated text. */
function storedTargets(stored: unknown, source: string): string {
  const names = Array.isArray(stored) && stored.every((name) => typeof name === 'string') ? stored : undefined;
  if (names === undefined || names.length === 0 || names.some((name) => name.includes(','))) {
    throw new UsageError(
      `${source} must be an array of deploy target names, such as ["cloudflare-workers"], got ${JSON.stringify(stored)}`,
    );
  }
  return names.join(',');
}

/** A switch given as a value, so that a preview's default (on) can be turned off: on or off. */
function onOff(raw: string, source: string): boolean {
  if (raw !== 'on' && raw !== 'off') throw new UsageError(`${source} must be on or off, got ${JSON.stringify(raw)}`);
  return raw === 'on';
}

/** The settings file holds a switch as true or false, the flag and variable as on or off. */
function storedSwitch(stored: unknown, source: string): string {
  if (typeof stored !== 'boolean')
    throw new UsageError(`${source} must be true or false, got ${JSON.stringify(stored)}`);
  return stored ? 'on' : 'off';
}

function cloudflarePlan(raw: string, source: string): CloudflarePlan {
  if (!(CLOUDFLARE_PLANS as readonly string[]).includes(raw))
    throw new UsageError(`${source} must be one of ${CLOUDFLARE_PLANS.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw as CloudflarePlan;
}

/** A service's base URL: absolute http(s), kept with its trailing slash (DRF's paths end in one). */
function serviceUrl(raw: string, source: string): string {
  const valid = URL.canParse(raw) && ['http:', 'https:'].includes(new URL(raw).protocol);
  if (!valid || new URL(raw).search || new URL(raw).hash) {
    throw new UsageError(
      `${source} must be an absolute http(s) URL without query or fragment, such as https://example.com/api/, got ${JSON.stringify(raw)}`,
    );
  }
  return raw.endsWith('/') ? raw : `${raw}/`;
}

function required(
  raw: string | undefined,
  source: string,
  needed: boolean,
  check: (raw: string, source: string) => string,
): string | undefined {
  if (raw === undefined) {
    if (needed) throw new UsageError(`${source} is required`);
    return undefined;
  }
  return check(raw, source);
}

function fileSettings(file: string, shown: string, resources: readonly Resource[]): Record<string, unknown> {
  try {
    return readSettingsFile(file, resources, shown);
  } catch (error) {
    if (error instanceof SettingsFileError)
      throw Object.assign(new UsageError(error.message, { cause: error }), { pointsToHelp: false });
    throw error;
  }
}

function nonEmpty(raw: string, source: string): string {
  if (raw === '') throw new UsageError(`${source} must not be empty`);
  return raw;
}

/** The variable npm keeps a flag it took as its own config in: `--page-size` → `npm_config_page_size`. */
const npmConfigVariable = (name: string) => `npm_config_${name.replaceAll('-', '_')}`;

/** A word as a POSIX shell reads it back: as it is when it is plain, else in single quotes. */
const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

/**
 * Why the command stops when npm took some of its flags as npm's own config (`npm run build
 * --page-size=5`, without `--` before the flags), and the command line that works; undefined when
 * it took none. npm hands such a flag to the command only as a variable, `npm_config_page_size=5`,
 * or `=true` when its value came apart (`--page-size 5`), the value then passed on as an argument.
 */
function npmTookFlags(argv: readonly string[], env: NodeJS.ProcessEnv, command: Command): string | undefined {
  const taken = command.options.filter((name) => env[npmConfigVariable(name)] !== undefined);
  if (taken.length === 0) return undefined;
  const alone = taken.filter((name) => 'value' in OPTIONS[name] && env[npmConfigVariable(name)] === 'true');
  const rest = [...argv];
  // One flag without its value, and a command that takes no words of its own: the first word is its value.
  const first = rest[0];
  const valueOfAlone =
    alone.length === 1 && command.positionals === undefined && first !== undefined && !first.startsWith('-')
      ? rest.shift()
      : undefined;
  const words = taken.flatMap((name) => {
    const option: Option = OPTIONS[name];
    if (!option.value) return [option.flag];
    const value = env[npmConfigVariable(name)] as string;
    if (value !== 'true') return [option.flag, shellWord(value)];
    return [option.flag, valueOfAlone === undefined ? option.value : shellWord(valueOfAlone)];
  });
  // Which word was which flag's value is unknown once a flag's value is not: the words are left out.
  const known = alone.length === 0 || valueOfAlone !== undefined;
  // The script npm ran, as the user typed it (`npm run build -- --check` runs the check command).
  const script = (COMMANDS as Record<string, Command>)[env.npm_lifecycle_event ?? '']?.name ?? command.name;
  const line = [script, '--', ...words, ...(known ? rest.map(shellWord) : [])].join(' ');
  const flags = taken.map((name) => OPTIONS[name].flag);
  const named = flags.length === 1 ? flags[0] : `${flags.slice(0, -1).join(', ')} and ${flags.at(-1)}`;
  const [settings, them] = flags.length === 1 ? ['setting', 'it'] : ['settings', 'them'];
  return `npm took ${named} as its own ${settings}, so the command never got ${them}: put the command's flags after --, as in: ${line}`;
}

/**
 * The settings of `commandName` from its arguments, the environment and the settings file, for
 * every command alike. Throws UsageError for a wrong value or a flag the command does not take;
 * `help` is true for -h/--help. Relative paths are taken from `cwd`.
 */
export function readSettings(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  commandName: CommandName = 'build',
  cwd = '.',
): Settings & { help: boolean } {
  const command: Command = COMMANDS[commandName];
  // Before the arguments are read: a value npm passed on alone is an argument the command refuses.
  const tookFlags = npmTookFlags(argv, env, command);
  if (tookFlags !== undefined) throw Object.assign(new UsageError(tookFlags), { pointsToHelp: false });
  const parseOptions: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, option] of Object.entries(OPTIONS))
    parseOptions[name] = { type: 'value' in option ? 'string' : 'boolean' };
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: [...argv],
      options: parseOptions,
      strict: true,
      allowPositionals: command.positionals !== undefined,
    });
    ({ values, positionals } = parsed);
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /Unknown option '([^']+)'/.exec(message)?.[1];
    if (unknown) {
      const flags = ['--help', ...command.options.map((name) => OPTIONS[name].flag)];
      const meant = unknown.startsWith('--')
        ? closestName(
            unknown.slice(2),
            flags.map((flag) => flag.slice(2)),
          )
        : undefined;
      throw new UsageError(`${command.name} has no option ${unknown}${meant ? `; did you mean --${meant}?` : ''}`);
    }
    // Node's "argument missing" and "argument is ambiguous" (the next word starts with a dash).
    const flag = /^Option '(--[\w-]+)/.exec(message)?.[1];
    const option = Object.values(OPTIONS as Record<string, Option>).find((known) => known.flag === flag);
    if (option?.value) throw new UsageError(`${option.flag} needs a value: ${option.flag} ${option.value}`);
    throw new UsageError(message.replace(/\.? To specify a positional.*$/s, ''));
  }
  const help = values.help === true;
  for (const name of Object.keys(OPTIONS) as OptionName[]) {
    // `npm run check` is the build command with --check, which is not the user's to give again.
    const implied = name === 'check' && commandName === 'check';
    if (values[name] !== undefined && !command.options.includes(name) && !implied) {
      throw new UsageError(`${OPTIONS[name].flag} does not apply to ${command.name}`);
    }
  }
  const most = command.positionals?.most ?? 0;
  if (positionals.length > most)
    throw new UsageError(`at most ${most} ${command.positionals?.noun}, got ${positionals.length}`);
  const text = (name: OptionName) => values[name] as string | undefined;
  const repo = nonEmpty(text('repo') ?? DEFAULTS.repo, '--repo');
  // diff reads the settings of the project it compares, wherever it is run from.
  const configPath = nonEmpty(
    text('config') ?? (command.options.includes('repo') ? path.join(repo, DEFAULTS.configPath) : DEFAULTS.configPath),
    '--config',
  );
  // Read only by the commands that take it: `npm run serve` has nothing in it to use.
  // The one place a command reads the declared API; everything below is given it.
  const resources = RESOURCES;
  const file =
    command.options.includes('config') && !help
      ? fileSettings(path.resolve(cwd, configPath), configPath, resources)
      : {};
  const format = text('format') ?? DEFAULTS.diffFormat;
  if (!(DIFF_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--format must be one of ${DIFF_FORMATS.join(', ')}, got ${JSON.stringify(format)}`);
  /** The flag's value, else its variable's, else the settings file's, with where it came from for messages. */
  const given = (name: OptionName): [string, string] | undefined => {
    const option: Option = OPTIONS[name];
    const flag = text(name);
    if (flag !== undefined) return [flag, option.flag];
    const variable = option.variable ? env[option.variable] : undefined;
    if (variable !== undefined) return [variable, option.variable as string];
    // Read by the commands that write what they decide: `npm run check` writes nothing, and the
    // previews write no targets and always the siblings, which their local server sends.
    const skipped =
      option.fileKey === undefined ||
      ((name === 'target' || name === 'reference' || name === 'precompress') && !command.options.includes(name));
    const stored = skipped ? undefined : file[option.fileKey as string];
    if (stored === undefined) return undefined;
    const source = `${option.fileKey} in ${configPath}`;
    if (name === 'target') return [storedTargets(stored, source), source];
    if (name === 'reference' || name === 'precompress') return [storedSwitch(stored, source), source];
    return [typeof stored === 'string' ? stored : JSON.stringify(stored), source];
  };
  const targets = given('target');
  const plan = given('cloudflare-plan');
  const cpuMs = given('cpu-ms');
  const baseUrl = given('base-url');
  const pageSize = given('page-size');
  const reference = given('reference');
  const precompress = given('precompress');
  const storedAllowEmpty = command.options.includes('allow-empty') ? file.allowEmpty : undefined;
  const port = given('port');
  const host = given('host');
  return {
    resources,
    dataDir: nonEmpty(text('data') ?? DEFAULTS.dataDir, '--data'),
    outDir: nonEmpty(text('out') ?? DEFAULTS.outDir, '--out'),
    headersPath: nonEmpty(text('headers') ?? DEFAULTS.headersPath, '--headers'),
    targetsDir: nonEmpty(text('targets-dir') ?? DEFAULTS.targetsDir, '--targets-dir'),
    schemasDir: nonEmpty(text('schemas-dir') ?? DEFAULTS.schemasDir, '--schemas-dir'),
    configPath,
    targets: targets ? targetList(...targets) : undefined,
    cloudflarePlan: plan ? cloudflarePlan(...plan) : DEFAULTS.cloudflarePlan,
    cpuMs: cpuMs ? wholeNumber(...cpuMs, 1, MAX_CPU_MS) : undefined,
    baseUrl: baseUrl ? absoluteUrl(...baseUrl) : DEFAULTS.baseUrl,
    baseUrlGiven: text('base-url') !== undefined || env[OPTIONS['base-url'].variable] !== undefined,
    pageSize: pageSize ? wholeNumber(...pageSize, 1, Number.MAX_SAFE_INTEGER) : DEFAULTS.pageSize,
    // On where people look at the API by hand; off for a deploy, whose paths stay DRF's alone.
    reference: reference ? onOff(...reference) : commandName === 'start' || commandName === 'dev',
    precompress: precompress ? onOff(...precompress) : true,
    allowEmpty:
      values['allow-empty'] === true ||
      (storedAllowEmpty !== undefined && storedSwitch(storedAllowEmpty, `allowEmpty in ${configPath}`) === 'on'),
    resourceSettings: file.resources as Record<string, ResourceSettings> | undefined,
    host: host ? nonEmpty(...host) : DEFAULTS.host,
    port: port ? wholeNumber(...port, 0, 65_535) : DEFAULTS.port,
    check: commandName === 'check' || values.check === true,
    from: required(text('from'), '--from', commandName === 'import' && !help, serviceUrl),
    against: required(text('against'), '--against', commandName === 'verify' && !help, serviceUrl),
    force: values.force === true,
    sides: positionals,
    format: format as DiffFormat,
    exitCode: values['exit-code'] === true,
    repo,
    help,
  };
}

/**
 * The settings of this process's command line; prints the help (exit 0). A usage error is thrown
 * with the command named, for runCommand (fail.ts) to say.
 */
export function settingsOrExit(commandName: CommandName): Settings {
  try {
    const settings = readSettings(process.argv.slice(2), process.env, commandName);
    if (settings.help) {
      console.log(usage(commandName));
      process.exit(EXIT_STATUS.done);
    }
    return settings;
  } catch (error) {
    if (error instanceof UsageError) error.command ??= commandName;
    throw error;
  }
}
