// A problem in the source data, located well enough to fix it without searching:
// the file, the record, the field as a JSON pointer into the file, and what was expected.

export interface DataError {
  file: string;
  /** RFC 6901 pointer into the file's JSON (`/3/end_date`); "" for the whole file. */
  pointer: string;
  /** Which record: `record 3 (id 117)`; absent when the problem is not in one record. */
  record?: string;
  message: string;
}

/** Thrown by the build when the data has problems; holds every one of them. */
export class DataErrors extends Error {
  constructor(readonly errors: readonly DataError[]) {
    super(`${errors.length} problem${errors.length === 1 ? '' : 's'} in the source data`);
  }
}

export function pointerOf(segments: ReadonlyArray<PropertyKey>): string {
  return segments.map((s) => `/${String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

export function formatDataError(error: DataError): string {
  const where = error.record ? ` (${error.record})` : '';
  const pointer = error.pointer === '' ? '' : `#${error.pointer}`;
  return `${error.file}${pointer}${where}: ${error.message}`;
}
