// Stages 1 and 2, load → validate: the source data as a checked catalogue, with the routes it
// answers. cli/run-build.ts then renders it (render.ts) and writes it (write.ts).

import { readFile, stat } from 'node:fs/promises';
import type { HeaderRule } from '../../contract/headers.ts';
import type { Resource } from '../../contract/resources/resource.ts';
import type { Route } from '../../contract/routes.ts';
import { byLocation, type DataError, DataErrors, formatDataError } from './errors.ts';
import { locateInFiles } from './json-positions.ts';
import { load } from './load.ts';
import { routesOf } from './render.ts';
import { noRecordProblem } from './source-files.ts';
import { decodeUtf8 } from './strict-json.ts';
import { type Catalogue, validate, validateHeadersFile } from './validate.ts';

export interface CatalogueOptions {
  dataDir: string;
  /** The project's `_headers`, checked here and copied into the output by render.ts. */
  headersPath: string;
  pageSize: number;
  /** The resources declared (contract/resources/). */
  resources: readonly Resource[];
  /** Build a data folder without a record (an API of empty lists) rather than stop; off when absent. */
  allowEmpty?: boolean;
}

export interface CheckedCatalogue {
  catalogue: Catalogue;
  /** Every route the catalogue answers: the texture count decides how many pages there are. */
  routes: Route[];
  headersText: string;
  headerRules: HeaderRule[];
  records: number;
  sourceFiles: number;
  sourceBytes: number;
}

/**
 * A read error that names no file (reading a folder as a file gives EISDIR without a path) names
 * the headers file when that is what is not a file: the one file read by path before the data.
 */
export async function withPath(error: unknown, headersPath: string): Promise<never> {
  const failure = error as NodeJS.ErrnoException | null;
  if (typeof failure?.code === 'string' && failure.path === undefined) {
    const isFile = await stat(headersPath).then(
      (stats) => stats.isFile(),
      () => false,
    );
    if (!isFile) failure.path = headersPath;
  }
  throw error;
}

/** The project's `_headers`: its text, its rules, and its problems (validateHeadersFile). */
export async function readHeaders(
  headersPath: string,
  resources: readonly Resource[],
): Promise<{ text: string; rules: HeaderRule[]; errors: DataError[] }> {
  const text = await readFile(headersPath, 'utf8').catch((error: unknown) => withPath(error, headersPath));
  return { text, ...validateHeadersFile(headersPath, text, resources) };
}

/**
 * The problems, each with its line and column, from a second read of the files they name: load
 * keeps no text, and reading again only when there are problems keeps a valid build as fast.
 */
function locate(problems: readonly DataError[]): Promise<DataError[]> {
  return locateInFiles(problems, async (file) => {
    try {
      const decoded = decodeUtf8(await readFile(file));
      return decoded.ok ? decoded.text : undefined;
    } catch {
      // The file went since it was loaded: its problems keep their pointers.
      return undefined;
    }
  });
}

/**
 * Every problem, in the order they are reported (by file, then record), or undefined when there
 * is none. The validation's problems are located here; the others come with their place: the
 * headers' line, the syntax error's line and column.
 */
export async function dataProblems(
  headerErrors: readonly DataError[],
  loadErrors: readonly DataError[],
  validateErrors: readonly DataError[],
): Promise<DataErrors | undefined> {
  const located = validateErrors.length > 0 ? await locate(validateErrors) : [];
  const problems = [...headerErrors, ...loadErrors, ...located];
  return problems.length > 0 ? new DataErrors(problems.sort(byLocation)) : undefined;
}

/**
 * Loads and validates; throws DataErrors holding every problem found. The parsed input is
 * garbage once this returns: only zod's output of each record is kept. `warn` gets one line per
 * file skipped with a warning (`.DS_Store`, editor backups), right after loading.
 */
export async function readCatalogue(
  options: CatalogueOptions,
  step: (line: string) => void,
  warn: (line: string) => void = () => {},
): Promise<CheckedCatalogue> {
  const resources = options.resources;
  const headers = await readHeaders(options.headersPath, resources);
  const headersText = headers.text;
  const loaded = await load(
    options.dataDir,
    resources.map((resource) => resource.name),
  );
  for (const warning of loaded.warnings) warn(formatDataError(warning));
  step(`load: ${loaded.records.length} records from ${loaded.files} files, ${loaded.bytes} bytes`);

  const { catalogue, errors } = validate(loaded.records, resources, loaded.incomplete);
  const names = resources.map((resource) => resource.name);
  const empty = noRecordProblem(options.dataDir, names, loaded.records.length, loaded.errors, options.allowEmpty);
  const problems = await dataProblems(headers.errors, [...loaded.errors, ...empty], errors);
  if (problems) throw problems;
  step('validate: no problems');
  return {
    catalogue,
    routes: routesOf(catalogue, options.pageSize, resources),
    headersText,
    headerRules: headers.rules,
    records: loaded.records.length,
    sourceFiles: loaded.files,
    sourceBytes: loaded.bytes,
  };
}
