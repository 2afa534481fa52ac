// `npm run import`: read the service (read-service.ts), convert its records to the source data
// (convert.ts), prove that the build answers as the service did (self-check.ts), then swap the
// new data/ in whole and record the settings the build needs. Nothing is written before the
// proof, so a failed import leaves the project as it was.

import { readdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { byLocation, type DataError } from '../builder/pipeline/errors.ts';
import { locateInFiles } from '../builder/pipeline/json-positions.ts';
import type { ResourceSettings } from '../contract/query.ts';
import { countedAs, type Resource } from '../contract/resources/resource.ts';
import { recoverOutput } from '../shared/swap.ts';
import { writeOutput } from '../shared/write.ts';
import type { ClientOptions } from './client.ts';
import { convert } from './convert.ts';
import { discoverQueries, foundLine } from './discover-queries.ts';
import { ImportError, type ReadProgress, readService } from './read-service.ts';
import { selfCheck } from './self-check.ts';

export interface ImportOptions {
  /** The service's base URL, with a trailing slash. */
  from: string;
  dataDir: string;
  configPath: string;
  /** Replace a data folder that holds files. */
  force: boolean;
  /** The text of the settings file for these settings (cli/settings-file.ts: the build reads it). */
  settingsText: (settings: ImportedSettings) => string;
  client?: ClientOptions;
  onProgress?: (progress: ReadProgress) => void;
  /** The lists to read and write. */
  resources: readonly Resource[];
  /** One line per finished step. */
  log?: (line: string) => void;
}

/** What the import learns of the service for the settings file. */
export interface ImportedSettings {
  baseUrl: string;
  pageSize: number;
  /** The lists' filters, search and orderings the service answers (discover-queries.ts); absent when none has any. */
  resources?: Record<string, ResourceSettings>;
}

export interface ImportResult {
  baseUrl: string;
  pageSize: number;
  files: number;
  /** Records that break a rule of the build: data/ holds them as the service shows them. */
  problems: DataError[];
}

/** A data folder that holds files, and no --force. */
export class DataFolderInUse extends ImportError {}

async function entriesOf(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    // A file where the folder should be: the write names it in the build's words.
    if (code === 'ENOTDIR') return [];
    throw error;
  }
}

/**
 * The problems as `npm run build` will print them: with their line and column in the file
 * written, file by file and record by record.
 */
async function asTheBuildReports(problems: readonly DataError[], files: ReadonlyMap<string, string>, dataDir: string) {
  const textOf = new Map([...files].map(([file, text]) => [path.join(dataDir, file), text]));
  const located = await locateInFiles(problems, async (file) => textOf.get(file));
  return located.sort(byLocation);
}

const plural = (n: number, word: string, words = `${word}s`) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? word : words}`;

/** A resource's records counted in a line: `1 fair`, `10 fairs`. */
const counted = (resource: Resource, n: number) => plural(n, ...countedAs(resource));

/**
 * Reads the service, converts its records and proves the conversion: everything but the writes.
 * Only what the writes need is returned, so that the answers' bytes, the parsed pages and the
 * build's checked records are garbage before the files' texts are made.
 */
async function readAndProve(options: ImportOptions, log: (line: string) => void) {
  const resources = options.resources;
  const service = await readService(options.from, {
    client: options.client,
    onProgress: options.onProgress,
    resources,
  });
  const records = new Map<string, unknown[]>();
  for (const resource of resources) {
    records.set(
      resource.name,
      resource.paginated
        ? (service.paged.get(resource.name)?.pages ?? []).flatMap((page) => page.results)
        : (service.lists.get(resource.name)?.records ?? []),
    );
  }
  const counts = resources.map((resource) => counted(resource, records.get(resource.name)?.length ?? 0));
  const pages = [...service.paged.values()].reduce((sum, read) => sum + read.pages.length, 0);
  log(`import: read ${counts.join(', ')} (${plural(pages, 'page')}) from ${options.from}`);
  const onOnePage = resources.filter((resource) => resource.paginated && (records.get(resource.name)?.length ?? 0) > 0);
  if (service.onePage && onOnePage.length > 0) {
    const longest = Math.max(...onOnePage.map((resource) => records.get(resource.name)?.length ?? 0));
    const every = onOnePage.map((resource) => `every ${countedAs(resource)[0]}`).join(' and ');
    log(
      `import: ${every} fits on page 1, so the service's page size is at least ${longest}; ` +
        `pageSize ${service.pageSize} is recorded, which gives the same page${onOnePage.length > 1 ? 's' : ''}`,
    );
  }
  const resourceSettings = await queriesOf(options, resources, records, service.pageSize, log);
  const baseUrl = options.from.replace(/\/+$/, '');
  const data = convert(records, options.dataDir, resources);
  const check = selfCheck(data, service, baseUrl, resources);
  const skipped =
    check.unchecked.length > 0 ? ` (not compared, for the problems below: ${check.unchecked.join(', ')})` : '';
  log(`import: npm run build answers ${plural(check.compared, 'request')} with the service's bytes${skipped}`);
  const settings: ImportedSettings = { baseUrl, pageSize: service.pageSize };
  if (Object.keys(resourceSettings).length > 0) settings.resources = resourceSettings;
  return { texts: data.texts, settings, problems: check.problems };
}

/** The filters, search and orderings each list answers, found by asking the service; one line per list. */
async function queriesOf(
  options: ImportOptions,
  resources: readonly Resource[],
  records: ReadonlyMap<string, unknown[]>,
  pageSize: number,
  log: (line: string) => void,
): Promise<Record<string, ResourceSettings>> {
  const lists = resources.map((resource) => ({
    resource,
    list: {
      name: resource.name,
      path: resource.path,
      paginated: resource.paginated,
      pageSize,
      // What is not a record is the self-check's to report; the probes ask with the others.
      records: (records.get(resource.name) ?? []).filter(
        (record): record is Record<string, unknown> =>
          record !== null && typeof record === 'object' && !Array.isArray(record),
      ),
    },
  }));
  const found = await discoverQueries(options.from, lists, options.client);
  const settings: Record<string, ResourceSettings> = {};
  for (const resource of resources) {
    const queries = found.get(resource.name);
    if (queries === undefined) continue;
    log(`import: ${foundLine(resource.path, queries)}`);
    if (Object.keys(queries.settings).length > 0) settings[resource.name] = queries.settings;
  }
  return settings;
}

export async function importService(options: ImportOptions): Promise<ImportResult> {
  const log = options.log ?? (() => {});
  const dataDir = path.resolve(options.dataDir);
  // A data/ that a killed import or build left mid-swap is put back first, so that it is judged whole.
  await recoverOutput(dataDir);
  const entries = await entriesOf(dataDir);
  if (entries.length > 0 && !options.force) {
    throw new DataFolderInUse(
      `${options.dataDir}/ already holds ${plural(entries.length, 'entry', 'entries')} (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', ...' : ''}): ` +
        'pass --force to replace it with the import, or --data to import into another folder',
    );
  }

  const { texts, settings, problems } = await readAndProve(options, log);
  const files = texts();
  await writeOutput(dataDir, files);
  // Beside the file, then renamed over it: a reader never sees half a settings file.
  const staging = `${options.configPath}.tmp-${process.pid}`;
  await writeFile(staging, options.settingsText(settings));
  await rename(staging, options.configPath);
  log(
    `import: wrote ${options.dataDir}/ (${plural(files.size, 'file')}) and ${options.configPath} ` +
      `(baseUrl ${settings.baseUrl}, pageSize ${settings.pageSize})`,
  );
  return { ...settings, files: files.size, problems: await asTheBuildReports(problems, files, options.dataDir) };
}
