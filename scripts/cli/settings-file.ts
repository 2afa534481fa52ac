// The project settings file (static-api.config.json): the settings that shape the API's bytes,
// kept with the data so that `npm run build` needs no flags. `npm run import` writes it.

import { readFileSync } from 'node:fs';
import { type DataError, formatDataError, pointerOf } from '../builder/pipeline/errors.ts';
import { withPositions } from '../builder/pipeline/json-positions.ts';
import { decodeUtf8, parseStrict } from '../builder/pipeline/strict-json.ts';
import { RESERVED_PARAMS, RESOURCE_SETTING_KEYS, type ResourceSettings, settingPointer } from '../contract/query.ts';
import type { Resource } from '../contract/resources/resource.ts';
import { searchPrefix } from '../contract/search.ts';
import { ProjectError } from '../shared/errors.ts';
import { closestName } from '../shared/misspellings.ts';

/**
 * The keys the file may hold at its top, besides `$schema`, in the order its JSON Schema lists
 * them (builder/documents/json-schemas.ts, held to this list by its test) and a written file holds them.
 */
export const SETTINGS_FILE_KEYS = [
  'baseUrl',
  'pageSize',
  'targets',
  'cloudflarePlan',
  'cpuMs',
  'reference',
  'precompress',
  'allowEmpty',
  'apiModule',
  'resources',
] as const;

export type SettingsFileKey = (typeof SETTINGS_FILE_KEYS)[number];

/** What the file may hold; each value is checked like its flag (settings.ts). */
export interface FileSettings {
  baseUrl?: string;
  pageSize?: number;
  /** The deploy targets `npm run build` writes, as `--target` names them. */
  targets?: string[];
  cloudflarePlan?: string;
  /** The worker's CPU time per request on the Cloudflare paid plan, in ms. */
  cpuMs?: number;
  /** Whether `npm run build` writes the API reference page at /_reference/. */
  reference?: boolean;
  /** Whether `npm run build` writes the answers' `.br` and `.gz` siblings. */
  precompress?: boolean;
  /** The declarations module, from the file's folder; read by the launcher, scripts/command.mjs. */
  apiModule?: string;
  /** Filters, search and ordering per resource, in DRF's terms (checkResourceSettings). */
  resources?: Record<string, ResourceSettings>;
}

/** A settings file that cannot be used, said in one line naming the file. */
export class SettingsFileError extends ProjectError {}

/**
 * The file's settings; none when it does not exist. Each value keeps its JSON type for the
 * caller's checks. Messages name the file as `shown`.
 */
export function readSettingsFile(path: string, resources: readonly Resource[], shown = path): Record<string, unknown> {
  const file = shown;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new SettingsFileError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`, {
      cause: error,
    });
  }
  // Read as strictly as a data file, and its problems placed as theirs are: `file:line:column`.
  const read = parseStrict(bytes);
  if (!read.ok)
    throw new SettingsFileError(read.problems.map((problem) => formatDataError({ file, ...problem })).join('\n'));
  const parsed = read.value;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new SettingsFileError(`${file}: expected an object such as {"baseUrl": "https://api.example.com"}`);
  }
  const known: readonly string[] = SETTINGS_FILE_KEYS;
  for (const key of Object.keys(parsed)) {
    if (!known.includes(key) && key !== '$schema') {
      const meant = closestName(key, known);
      const message = `unexpected setting "${key}"${meant ? `; did you mean "${meant}"?` : ''} (expected ${orList(known)})`;
      const text = (decodeUtf8(bytes) as { text: string }).text;
      const [problem] = withPositions(text, [{ file, pointer: pointerOf([key]), message, subject: 'key' }]);
      throw new SettingsFileError(formatDataError(problem as DataError));
    }
  }
  const settings = parsed as Record<string, unknown>;
  if ('resources' in settings) settings.resources = checkResourceSettings(settings.resources, file, resources);
  return settings;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const orList = (words: readonly string[]) =>
  words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;

/**
 * The `resources` section as written: each key a resource of the API, each value DRF's lists of
 * field names, each name once, search fields with the prefixes this project answers. Whether
 * each field is one the list shows, of a kind a filter can read, is for the build to check
 * (builder/pipeline/query-fields.ts), which knows the record schemas.
 */
export function checkResourceSettings(
  section: unknown,
  file: string,
  resources: readonly Resource[],
): Record<string, ResourceSettings> {
  const fail = (pointer: string, message: string): never => {
    throw new SettingsFileError(`${file}: ${pointer}: ${message}`);
  };
  if (!isObject(section))
    fail(settingPointer(), 'expected an object of resources, such as {"company": {"search_fields": ["name"]}}');
  const names = resources.map((resource) => resource.name);
  const checked: Record<string, ResourceSettings> = {};
  for (const [name, settings] of Object.entries(section as Record<string, unknown>)) {
    if (!names.includes(name)) fail(settingPointer(name), `unknown resource "${name}" (expected ${orList(names)})`);
    if (!isObject(settings))
      fail(settingPointer(name), 'expected an object such as {"filterset_fields": ["id"], "search_fields": ["name"]}');
    const lists: Record<string, readonly string[]> = {};
    for (const [key, list] of Object.entries(settings as Record<string, unknown>)) {
      if (!(RESOURCE_SETTING_KEYS as readonly string[]).includes(key))
        fail(settingPointer(name, key), `unexpected setting (expected ${orList(RESOURCE_SETTING_KEYS)})`);
      if (!Array.isArray(list)) fail(settingPointer(name, key), 'expected an array of field names, such as ["name"]');
      const seen = new Set<string>();
      for (const [index, entry] of (list as unknown[]).entries()) {
        if (typeof entry !== 'string' || entry === '')
          fail(settingPointer(name, key, index), `expected a field name, got ${JSON.stringify(entry)}`);
        const text = entry as string;
        if (seen.has(text)) fail(settingPointer(name, key, index), `"${text}" is listed twice`);
        seen.add(text);
        const prefix = searchPrefix(text);
        if (key === 'search_fields' && (prefix === '@' || prefix === '$'))
          fail(
            settingPointer(name, key, index),
            `"${text}": the ${prefix} prefix (${prefix === '@' ? 'full-text search' : 'regular expression'}) is not supported; use ^ (istartswith), = (iexact) or none (icontains)`,
          );
        if (key === 'filterset_fields' && (RESERVED_PARAMS as readonly string[]).includes(text))
          fail(
            settingPointer(name, key, index),
            `"${text}" is a parameter DRF reads itself; a filter cannot take its name`,
          );
      }
      lists[key] = list as string[];
    }
    for (const [index, field] of (lists.prerendered_filters ?? []).entries()) {
      if (!(lists.filterset_fields ?? []).includes(field))
        fail(settingPointer(name, 'prerendered_filters', index), `"${field}" is not one of filterset_fields`);
    }
    checked[name] = lists as ResourceSettings;
  }
  return checked;
}

/**
 * The file's text for `settings`, keeping the other settings of the file it replaces (`kept`, as
 * readSettingsFile() read it): keys in a fixed order, so that a re-import diffs cleanly. A
 * `resources` section is written only when `settings` has one; `prerendered_filters` the user
 * chose are kept where the section still names them as filters.
 */
export function settingsFileText(
  settings: Required<Pick<FileSettings, 'baseUrl' | 'pageSize'>> & Pick<FileSettings, 'resources'>,
  kept: Readonly<Record<string, unknown>> = {},
): string {
  const resources = settings.resources && withPrerendered(settings.resources, kept.resources);
  const values: Record<string, unknown> = {
    ...kept,
    baseUrl: settings.baseUrl,
    pageSize: settings.pageSize,
    resources,
  };
  const ordered: Record<string, unknown> = {};
  for (const key of ['$schema', ...SETTINGS_FILE_KEYS]) if (values[key] !== undefined) ordered[key] = values[key];
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

function withPrerendered(found: Record<string, ResourceSettings>, previous: unknown): Record<string, ResourceSettings> {
  const before = (isObject(previous) ? previous : {}) as Record<string, ResourceSettings>;
  return Object.fromEntries(
    Object.entries(found).map(([name, section]) => {
      const filters = section.filterset_fields ?? [];
      const prerendered = (before[name]?.prerendered_filters ?? []).filter((field) => filters.includes(field));
      return [name, prerendered.length > 0 ? { ...section, prerendered_filters: prerendered } : section];
    }),
  );
}
