// The project settings file (static-api.config.json): the settings that shape the API's bytes,
// kept with the data so that `npm run build` needs no flags. `npm run import` writes it.

import { readFileSync } from 'node:fs';
import { ProjectError } from '../shared/errors.ts';

/** What the file may hold; each value is checked like its flag (settings.ts). */
export interface FileSettings {
  baseUrl?: string;
  pageSize?: number;
  /** The deploy targets `npm run build` writes, as `--target` names them. */
  targets?: string[];
  cloudflarePlan?: string;
  /** Whether `npm run build` writes the API reference page at /_reference/. */
  reference?: boolean;
}

const KEYS = ['baseUrl', 'pageSize', 'targets', 'cloudflarePlan', 'reference'] as const;

/** A settings file that cannot be used, said in one line naming the file. */
export class SettingsFileError extends ProjectError {}

/**
 * The file's settings; none when it does not exist. Each value keeps its JSON type for the
 * caller's checks. Messages name the file as `shown`.
 */
export function readSettingsFile(path: string, shown = path): Record<string, unknown> {
  const file = shown;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new SettingsFileError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`, {
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SettingsFileError(`${file}: is not JSON (${(error as Error).message})`, { cause: error });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new SettingsFileError(`${file}: expected an object such as {"baseUrl": "https://api.example.com"}`);
  }
  for (const key of Object.keys(parsed)) {
    if (!(KEYS as readonly string[]).includes(key) && key !== '$schema') {
      throw new SettingsFileError(
        `${file}: unexpected setting "${key}" (expected ${KEYS.slice(0, -1).join(', ')} or ${KEYS.at(-1)})`,
      );
    }
  }
  return parsed as Record<string, unknown>;
}

/** The file's text for `settings`: keys in a fixed order, so that a re-import diffs cleanly. */
export function settingsFileText(settings: Required<Pick<FileSettings, 'baseUrl' | 'pageSize'>>): string {
  return `${JSON.stringify({ baseUrl: settings.baseUrl, pageSize: settings.pageSize }, null, 2)}\n`;
}
