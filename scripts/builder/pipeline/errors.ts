// A problem in the source data, located well enough to fix it without searching:
// the file, the record, the field as a JSON pointer into the file, and what was expected.

import { compareStrings } from '../../contract/ordering.ts';
import { ProjectError } from '../../shared/errors.ts';

/** A place in a text file: both from 1, the column in code points (see LineIndex in strict-json.ts). */
export interface TextPosition {
  line: number;
  column: number;
}

/** Another place in the source files, which a problem names. */
export interface SourcePlace {
  file: string;
  /** RFC 6901 pointer into the file's JSON. */
  pointer: string;
  /** Found with the problem's own position. */
  position?: TextPosition;
}

export interface DataError {
  file: string;
  /** RFC 6901 pointer into the file's JSON (`/3/end_date`); "" for the whole file. */
  pointer: string;
  /** Which record: `record 3 (id 117)`; absent when the problem is not in one record. */
  record?: string;
  message: string;
  /**
   * Where the pointer is in the file: its value, or its key when `subject` is "key", or for a
   * field that is missing the object that lacks it. Found only once the build has failed
   * (catalogue.ts), so that valid data is read once.
   */
  position?: TextPosition;
  /** "key" when the problem is the field's name (an unknown field), not its value. */
  subject?: 'key';
  /** The other place the message ends with (the record that used an id first), written after it. */
  seeAlso?: SourcePlace;
}

/** Thrown by the build when the data has problems; holds every one of them. */
export class DataErrors extends ProjectError {
  constructor(readonly errors: readonly DataError[]) {
    super(`${errors.length} problem${errors.length === 1 ? '' : 's'} in the source data`);
  }
}

export function pointerOf(segments: ReadonlyArray<PropertyKey>): string {
  return segments.map((s) => `/${String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** File, then record: the order a reader fixes them in. The sort is stable within a record. */
export function byLocation(a: DataError, b: DataError): number {
  const record = (error: DataError) => Number(/^\/(\d+)/.exec(error.pointer)?.[1] ?? -1);
  return compareStrings(a.file, b.file) || record(a) - record(b);
}

/**
 * `file:line:column #pointer (record): message` when the place is known: terminals and editors
 * open the file at `file:line:column` when it is clicked. Else `file#pointer (record): message`.
 * A place the message names (seeAlso) follows it as `file:line:column`, else `file#pointer`.
 */
export function formatDataError(error: DataError): string {
  const where = error.record ? ` (${error.record})` : '';
  const message = error.seeAlso ? `${error.message} ${placeText(error.seeAlso)}` : error.message;
  const place = error.position && error.pointer !== '' ? `${placeText(error)} #${error.pointer}` : placeText(error);
  return `${place}${where}: ${message}`;
}

/** `file:line:column` when the place is known, else `file#pointer`. */
function placeText(place: SourcePlace): string {
  if (place.position) return `${place.file}:${place.position.line}:${place.position.column}`;
  return place.pointer === '' ? place.file : `${place.file}#${place.pointer}`;
}
