// The commands' settings: each flag wins over its environment variable, which wins over the
// settings file (static-api.config.json), which wins over the default, merged once, here. One
// table of options drives the parsing, the checks and each command's --help; each command names
// the options it takes and gets one value holding those alone (`Settings<'build'>`).

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
  /** Read by the launcher (scripts/command.mjs), which compiles the commands with the module it names. */
  apiModule: 'scripts/contract/resources/index.ts',
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
  /** The value's placeholder in the help; none for a switch, which the flag turns on. */
  value?: string;
  variable?: string;
  /** Its key in the settings file, when the file may hold it. */
  fileKey?: SettingsFileKey;
  description: string;
  /** The default, as the help says it. */
  default: string;
  /** Its name in the command's settings. */
  key: string;
  /** The setting from the text of a flag or variable (a switch's flag gives `on`); `source` names where, for the message. */
  read(raw: string, source: string): unknown;
  /** The settings file's value as a flag would give it, when the file holds it otherwise (a list, a switch). */
  stored?(stored: unknown, source: string): string;
  /** The setting when nothing gives one. */
  fallback: unknown;
  /** Whether a command that takes it stops without it. */
  required?: boolean;
}

export const OPTIONS = {
  data: {
    flag: '--data',
    value: '<dir>',
    description: 'source data folder',
    default: DEFAULTS.dataDir,
    key: 'dataDir',
    read: nonEmpty,
    fallback: DEFAULTS.dataDir,
  },
  out: {
    flag: '--out',
    value: '<dir>',
    description: 'output folder',
    default: DEFAULTS.outDir,
    key: 'outDir',
    read: nonEmpty,
    fallback: DEFAULTS.outDir,
  },
  headers: {
    flag: '--headers',
    value: '<file>',
    description: 'the headers file',
    default: DEFAULTS.headersPath,
    key: 'headersPath',
    read: nonEmpty,
    fallback: DEFAULTS.headersPath,
  },
  'targets-dir': {
    flag: '--targets-dir',
    value: '<dir>',
    description: "where the deploy targets' files go",
    default: DEFAULTS.targetsDir,
    key: 'targetsDir',
    read: nonEmpty,
    fallback: DEFAULTS.targetsDir,
  },
  'schemas-dir': {
    flag: '--schemas-dir',
    value: '<dir>',
    description: "where the data files' JSON Schemas and the OpenAPI document go",
    default: DEFAULTS.schemasDir,
    key: 'schemasDir',
    read: nonEmpty,
    fallback: DEFAULTS.schemasDir,
  },
  target: {
    flag: '--target',
    value: '<names>',
    fileKey: 'targets',
    description: "deploy targets to write, comma-separated; one its host's limits refuse stops the build",
    default: 'all',
    key: 'targets',
    read: targetList,
    stored: storedTargets,
    fallback: undefined,
  },
  'cloudflare-plan': {
    flag: '--cloudflare-plan',
    value: '<plan>',
    fileKey: 'cloudflarePlan',
    description:
      'free or paid: the Cloudflare plan whose limits (files per deployment, CPU time per request) the build checks',
    default: DEFAULTS.cloudflarePlan,
    key: 'cloudflarePlan',
    read: cloudflarePlan,
    fallback: DEFAULTS.cloudflarePlan,
  },
  'cpu-ms': {
    flag: '--cpu-ms',
    value: '<ms>',
    fileKey: 'cpuMs',
    description:
      "the worker's CPU time per request on the Cloudflare paid plan, up to 300000 (wrangler's limits.cpu_ms)",
    default: '30000 on paid',
    key: 'cpuMs',
    read: (raw, source) => wholeNumber(raw, source, 1, MAX_CPU_MS),
    fallback: undefined,
  },
  config: {
    flag: '--config',
    value: '<file>',
    description: `the project settings file (${SETTINGS_FILE_KEYS.filter((key) => key !== 'resources').join(', ')}); optional`,
    default: DEFAULTS.configPath,
    key: 'configPath',
    read: nonEmpty,
    fallback: DEFAULTS.configPath,
  },
  'api-module': {
    flag: '--api-module',
    value: '<file>',
    variable: 'API_MODULE',
    fileKey: 'apiModule',
    description:
      "the declarations module, which exports RESOURCES, the API's list (in the settings file, from the file's folder)",
    default: DEFAULTS.apiModule,
    key: 'apiModule',
    read: nonEmpty,
    fallback: DEFAULTS.apiModule,
  },
  'base-url': {
    flag: '--base-url',
    value: '<url>',
    variable: 'BASE_URL',
    fileKey: 'baseUrl',
    description: 'public origin of the API, for the absolute page links',
    default: DEFAULTS.baseUrl,
    key: 'baseUrl',
    read: absoluteUrl,
    fallback: DEFAULTS.baseUrl,
  },
  'page-size': {
    flag: '--page-size',
    value: '<n>',
    variable: 'PAGE_SIZE',
    fileKey: 'pageSize',
    description: 'textures per page',
    default: String(DEFAULTS.pageSize),
    key: 'pageSize',
    read: (raw, source) => wholeNumber(raw, source, 1, Number.MAX_SAFE_INTEGER),
    fallback: DEFAULTS.pageSize,
  },
  reference: {
    flag: '--reference',
    value: '<on/off>',
    variable: 'REFERENCE',
    fileKey: 'reference',
    description: 'the API reference page at /_reference/, beside the API (true or false in the settings file)',
    default: 'off; on in npm start and npm run dev',
    key: 'reference',
    read: onOff,
    stored: storedSwitch,
    fallback: false,
  },
  precompress: {
    flag: '--precompress',
    value: '<on/off>',
    variable: 'PRECOMPRESS',
    fileKey: 'precompress',
    description:
      "each answer's .br and .gz siblings, which nginx, Caddy and Apache send; off for a host that compresses by itself (true or false in the settings file)",
    default: 'on',
    key: 'precompress',
    read: onOff,
    stored: storedSwitch,
    fallback: true,
  },
  'allow-empty': {
    flag: '--allow-empty',
    fileKey: 'allowEmpty',
    description:
      'build a data folder without a record, as an API of empty lists (true or false in the settings file); otherwise such a folder stops the build',
    default: 'off',
    key: 'allowEmpty',
    read: onOff,
    stored: storedSwitch,
    fallback: false,
  },
  host: {
    flag: '--host',
    value: '<address>',
    variable: 'HOST',
    description: 'address to listen on',
    default: DEFAULTS.host,
    key: 'host',
    read: nonEmpty,
    fallback: DEFAULTS.host,
  },
  port: {
    flag: '--port',
    value: '<n>',
    variable: 'PORT',
    description: 'port to listen on',
    default: String(DEFAULTS.port),
    key: 'port',
    read: (raw, source) => wholeNumber(raw, source, 0, 65_535),
    fallback: DEFAULTS.port,
  },
  check: {
    flag: '--check',
    description: 'validate only, write nothing',
    default: 'off',
    key: 'check',
    read: onOff,
    fallback: false,
  },
  from: {
    flag: '--from',
    value: '<url>',
    description: "the running DRF service's base URL, such as https://example.com/api/",
    default: 'none, required',
    key: 'from',
    read: serviceUrl,
    fallback: undefined,
    required: true,
  },
  against: {
    flag: '--against',
    value: '<url>',
    description: "the running DRF service's base URL, such as https://example.com/api/",
    default: 'none, required',
    key: 'against',
    read: serviceUrl,
    fallback: undefined,
    required: true,
  },
  force: {
    flag: '--force',
    description: 'replace a data folder that already holds files',
    default: 'off',
    key: 'force',
    read: onOff,
    fallback: false,
  },
  format: {
    flag: '--format',
    value: '<format>',
    description:
      'text (coloured on a terminal unless NO_COLOR is set), markdown (for a pull-request comment) or json (for scripts)',
    default: DEFAULTS.diffFormat,
    key: 'format',
    read: diffFormat,
    fallback: DEFAULTS.diffFormat,
  },
  'exit-code': {
    flag: '--exit-code',
    description: 'exit with 1 when the sides differ',
    default: 'off',
    key: 'exitCode',
    read: onOff,
    fallback: false,
  },
  repo: {
    flag: '--repo',
    value: '<dir>',
    description: 'the project (a git clone) to work on: its revisions, working tree and settings file',
    default: DEFAULTS.repo,
    key: 'repo',
    read: nonEmpty,
    fallback: DEFAULTS.repo,
  },
} as const satisfies Record<string, Option>;

type OptionName = keyof typeof OPTIONS;

/** An option's setting: what its reader gives, or its fallback. */
type ValueOf<N extends OptionName> = ReturnType<(typeof OPTIONS)[N]['read']> | (typeof OPTIONS)[N]['fallback'];

export interface Command {
  /** How the user runs it. */
  name: string;
  summary: string;
  options: readonly OptionName[];
  /** Options its npm script gives it (`npm run check` is the build command with --check): taken, not the user's, not in its help. */
  given?: readonly OptionName[];
  /** Fallbacks of its own, where this command differs from the others. */
  defaults?: { readonly [N in OptionName]?: ValueOf<N> };
  /** The positional arguments it takes, as the usage line shows them; none when absent. */
  positionals?: { usage: string; most: number; noun: string };
  example: string;
}

const BUILD_OPTIONS = [
  'data',
  'out',
  'headers',
  'targets-dir',
  'schemas-dir',
  'target',
  'cloudflare-plan',
  'cpu-ms',
  'config',
  'api-module',
  'base-url',
  'page-size',
  'reference',
  'precompress',
  'allow-empty',
] as const satisfies readonly OptionName[];

const PREVIEW_OPTIONS = [
  'data',
  'headers',
  'config',
  'api-module',
  'base-url',
  'page-size',
  'reference',
  'allow-empty',
  'host',
  'port',
] as const satisfies readonly OptionName[];

// On where people look at the API by hand; off for a deploy, whose paths stay DRF's alone.
const PREVIEW_DEFAULTS = { reference: true };

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
    options: [
      'data',
      'headers',
      'cloudflare-plan',
      'cpu-ms',
      'config',
      'api-module',
      'base-url',
      'page-size',
      'allow-empty',
    ],
    given: ['check'],
    defaults: { check: true },
    example: 'npm run check -- --data test/fixtures/good/data',
  },
  serve: {
    name: 'npm run serve',
    summary: 'Serves an output folder that is already built, answering like the DRF service.',
    options: ['out', 'api-module', 'host', 'port'],
    example: 'npm run serve -- --port 8080',
  },
  start: {
    name: 'npm start',
    summary: `Builds the source data into ${DEFAULTS.previewDir}/<port>/ (which git ignores) with links on the served origin, then serves it; never writes the committed folders.`,
    options: PREVIEW_OPTIONS,
    defaults: PREVIEW_DEFAULTS,
    example: 'npm start -- --port 8080',
  },
  dev: {
    name: 'npm run dev',
    summary: `A live preview: builds like npm start, then rebuilds into ${DEFAULTS.previewDir}/<port>/ on every change of the data, the headers file or the settings file, and keeps serving the last good build when a change has problems.`,
    options: PREVIEW_OPTIONS,
    defaults: PREVIEW_DEFAULTS,
    example: 'npm run dev -- --port 8080',
  },
  import: {
    name: 'npm run import',
    summary:
      'Reads every list of a running DRF service and writes the data folder and the settings file, so that npm run build answers as the service does.',
    options: ['from', 'data', 'config', 'api-module', 'force'],
    example: 'npm run import -- --from https://example.com/api/',
  },
  verify: {
    name: 'npm run verify',
    summary:
      'Asks a running DRF service and this build every request the route table knows, and prints each difference; exits 1 when anything differs.',
    options: ['against', 'data', 'headers', 'config', 'api-module', 'base-url', 'page-size', 'allow-empty'],
    example: 'npm run verify -- --against https://example.com/api/',
  },
  diff: {
    name: 'npm run diff',
    summary:
      "Shows how the API changed between two sides, record by record and answer by answer. A side is a folder of built output, or a git revision (its committed public/, read without a checkout). With no side: HEAD against a fresh build of the working tree's data/ and _headers, with the settings file's base URL and page size (built into a temporary folder; public/ is not touched). With one: that side against the working tree's build. With two: the first against the second. Exit status: 0, or 1 with --exit-code when the sides differ; 2 for a usage or read error.",
    options: ['format', 'exit-code', 'repo', 'config', 'api-module', 'base-url', 'page-size', 'allow-empty'],
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

type OptionOf<C extends CommandName> =
  | (typeof COMMANDS)[C]['options'][number]
  | ((typeof COMMANDS)[C] extends { given: readonly (infer N extends OptionName)[] } ? N : never);

/**
 * What command `C` is run with: one field per option it takes (`--page-size` → `pageSize`), the
 * declared API, and what comes with some options: the settings file's lists' settings with
 * `--config`, whether the user gave the base URL with `--base-url`, the words with positionals.
 */
export type Settings<C extends CommandName> = C extends CommandName ? SettingsOf<C> : never;

type SettingsOf<C extends CommandName> = {
  /** The API's declarations (contract/resources/), read once here and passed down. */
  resources: readonly Resource[];
  help: boolean;
} & { -readonly [N in OptionOf<C> as (typeof OPTIONS)[N]['key']]: ValueOf<N> } & ('config' extends OptionOf<C>
    ? {
        /** The settings file's filters, search and ordering per resource (settings-file.ts); none when absent. */
        resourceSettings: Record<string, ResourceSettings> | undefined;
      }
    : unknown) &
  ('base-url' extends OptionOf<C>
    ? {
        /** Whether a flag or the environment set the base URL (`npm start` and `dev` otherwise use the served origin). */
        baseUrlGiven: boolean;
      }
    : unknown) &
  ((typeof COMMANDS)[C] extends { positionals: object }
    ? {
        /** The words after the flags, none to `positionals.most`. */
        sides: string[];
      }
    : unknown);

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

function diffFormat(raw: string, source: string): DiffFormat {
  if (!(DIFF_FORMATS as readonly string[]).includes(raw))
    throw new UsageError(`${source} must be one of ${DIFF_FORMATS.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw as DiffFormat;
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

/** Where a setting's text comes from, in the order one wins over the next: the flags, the environment, the settings file. */
interface Givers {
  flags: Readonly<Record<string, string | boolean | undefined>>;
  env: NodeJS.ProcessEnv;
  file: Readonly<Record<string, unknown>>;
  /** The settings file, as the messages name it. */
  configPath: string;
}

/**
 * The option's setting: the flag's, else its variable's, else the settings file's, else the
 * command's default, else the option's fallback. The one merge, for every option of every command.
 */
function settingOf<N extends OptionName>(
  name: N,
  givers: Givers,
  defaults: Command['defaults'] & object,
  help: boolean,
): ValueOf<N> {
  const option: Option = OPTIONS[name];
  const read = (raw: string, source: string) => option.read(raw, source) as ValueOf<N>;
  const flag = givers.flags[name];
  if (flag !== undefined) return read(flag === true ? 'on' : (flag as string), option.flag);
  const variable = option.variable === undefined ? undefined : givers.env[option.variable];
  if (variable !== undefined) return read(variable, option.variable as string);
  const stored = option.fileKey === undefined ? undefined : givers.file[option.fileKey];
  if (stored !== undefined) {
    const source = `${option.fileKey} in ${givers.configPath}`;
    if (option.stored) return read(option.stored(stored, source), source);
    return read(typeof stored === 'string' ? stored : JSON.stringify(stored), source);
  }
  if (option.required && !help) throw new UsageError(`${option.flag} is required`);
  return (name in defaults ? defaults[name] : option.fallback) as ValueOf<N>;
}

/**
 * The settings of `commandName` from its arguments, the environment and the settings file: each
 * option it takes, merged once. Throws UsageError for a wrong value or a flag the command does not
 * take; `help` is true for -h/--help. Relative paths are taken from `cwd`.
 */
export function readSettings<C extends CommandName = 'build'>(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  commandName: C = 'build' as C,
  cwd = '.',
): Settings<C> {
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
  const taken: readonly OptionName[] = [...command.options, ...(command.given ?? [])];
  for (const name of Object.keys(OPTIONS) as OptionName[]) {
    if (values[name] !== undefined && !taken.includes(name))
      throw new UsageError(`${OPTIONS[name].flag} does not apply to ${command.name}`);
  }
  const most = command.positionals?.most ?? 0;
  if (positionals.length > most)
    throw new UsageError(`at most ${most} ${command.positionals?.noun}, got ${positionals.length}`);
  // The repository and the settings file first, from the flags alone: the other settings may come from that file.
  const flagsOnly: Givers = { flags: values, env: {}, file: {}, configPath: DEFAULTS.configPath };
  const repo = taken.includes('repo') ? settingOf('repo', flagsOnly, {}, help) : undefined;
  // diff and setup-git work on the project of --repo, wherever they are run from: its settings file is theirs.
  const defaults = {
    ...command.defaults,
    ...(repo === undefined ? {} : { config: path.join(repo, DEFAULTS.configPath) }),
  };
  const configPath = settingOf('config', flagsOnly, defaults, help);
  // The one place a command reads the declared API; everything below is given it. The launcher
  // (scripts/command.mjs) compiles its import as the module --api-module names.
  const resources = RESOURCES;
  // Read only by the commands that take it: `npm run serve` has nothing in it to use.
  const file =
    taken.includes('config') && !help ? fileSettings(path.resolve(cwd, configPath), configPath, resources) : {};
  const givers: Givers = { flags: values, env, file, configPath };
  const settings: Record<string, unknown> = Object.fromEntries(
    taken.map((name) => [OPTIONS[name].key, settingOf(name, givers, defaults, help)]),
  );
  if (taken.includes('config')) settings.resourceSettings = file.resources;
  if (taken.includes('base-url'))
    settings.baseUrlGiven = values['base-url'] !== undefined || env[OPTIONS['base-url'].variable] !== undefined;
  if (command.positionals !== undefined) settings.sides = positionals;
  return { ...settings, resources, help } as Settings<C>;
}

/**
 * The settings of this process's command line; prints the help (exit 0). A usage error is thrown
 * with the command named, for runCommand (fail.ts) to say.
 */
export function settingsOrExit<C extends CommandName>(commandName: C): Settings<C> {
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
