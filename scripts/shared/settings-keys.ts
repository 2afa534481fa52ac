// The project settings file: its default name and the keys it may hold at its top, besides
// `$schema`. Written here, below every layer, because the commands read the file
// (cli/settings-file.ts, cli/settings.ts) and the build writes its JSON Schema
// (builder/documents/json-schemas.ts), and neither layer may import the other's.

export const SETTINGS_FILE = 'static-api.config.json';

/** In the order the JSON Schema lists them and a written settings file holds them. */
export const SETTINGS_FILE_KEYS = [
  'baseUrl',
  'pageSize',
  'targets',
  'cloudflarePlan',
  'reference',
  'precompress',
  'allowEmpty',
  'resources',
] as const;

export type SettingsFileKey = (typeof SETTINGS_FILE_KEYS)[number];
