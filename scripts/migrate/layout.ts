// Which file of data/ each imported record goes in, from the resource's declaration alone. The
// files are what a user reviews and edits, and what `npm run dev` reads again on a save, so none
// holds more than FILE_RECORDS records, and a record's file follows from its own id wherever the
// API's order allows: an edit, an added or a removed record then changes one file, and another
// import of the same records writes the same files.
//
// - At most FILE_RECORDS records: one file, `company/companies.json`, as in the sample.
// - More, of a list the API sorts: split by id.
//   Integer ids by decimal ranges: the ids 0 to 9,999,999,999,999,999 are split in ten ranges,
//   and each range holding more than FILE_RECORDS records in ten again, so that a file holds
//   one range (`company/companies-40000-49999.json`). Text ids (UUIDs) the same way by their
//   first characters (`virtualbooth-texture/textures-3a.json`: the ids starting with 3a). An id
//   of neither kind, which the build will refuse, goes into `<name>-other-ids.json`.
// - More, in the data's order (order: 'source'): that order is the files' path order, so the
//   records are cut into files of FILE_RECORDS in the list's order (`virtualfair/fairs-0001.json`).

import { idOf } from '../builder/pipeline/validate.ts';
import { countedAs, type Resource } from '../contract/resources/resource.ts';

/** The most records a file of data/ holds (unless more share one id, which the build refuses). */
export const FILE_RECORDS = 1000;

/** One file of data/: its path inside the data folder and its records, in the data's order. */
export interface DataFileRecords {
  file: string;
  records: unknown[];
}

/** Every safe integer id is below it: the widest range. */
const ALL_INTEGERS = 1e16;
/** A text id is split by at most this many first characters. */
const MAX_PREFIX = 8;

const isRangeId = (id: unknown): id is number => Number.isSafeInteger(id) && (id as number) >= 0;

/**
 * A text id's characters as a file name has them: lower-case letters and digits, any other
 * character `_`. Two ids that differ only there share their files, which is all a file name needs.
 */
const prefixKey = (id: string) => id.toLowerCase().replace(/[^0-9a-z]/g, '_');

/** Groups `records` by `keyOf`, keeping their order within each group; the groups in order of their keys' first records. */
function groupBy<K>(records: readonly unknown[], keyOf: (record: unknown) => K): Map<K, unknown[]> {
  const groups = new Map<K, unknown[]>();
  for (const record of records) {
    const key = keyOf(record);
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  }
  return groups;
}

/** The records of integer ids in [from, from + width), split until each range holds at most FILE_RECORDS. */
function byRange(stem: string, records: readonly unknown[], from: number, width: number): DataFileRecords[] {
  if (records.length <= FILE_RECORDS || width === 1) {
    return [{ file: `${stem}-${from}-${from + width - 1}.json`, records: [...records] }];
  }
  const part = width / 10;
  const parts = groupBy(records, (record) => {
    const offset = (idOf(record) as number) - from;
    // A quotient just under a whole number can round up to it near 2^53: put it back.
    const index = Math.floor(offset / part);
    return index * part > offset ? index - 1 : index;
  });
  return [...parts.keys()]
    .sort((a, b) => a - b)
    .flatMap((index) => byRange(stem, parts.get(index) as unknown[], from + index * part, part));
}

/** The records of text ids starting with `prefix`, split by one more character until each group holds at most FILE_RECORDS. */
function byPrefix(stem: string, records: readonly unknown[], prefix: string): DataFileRecords[] {
  if ((records.length <= FILE_RECORDS || prefix.length === MAX_PREFIX) && prefix !== '') {
    return [{ file: `${stem}-${prefix}.json`, records: [...records] }];
  }
  const parts = groupBy(records, (record) => prefixKey(idOf(record) as string)[prefix.length] ?? '_');
  return [...parts.keys()].sort().flatMap((char) => byPrefix(stem, parts.get(char) as unknown[], prefix + char));
}

/**
 * The files of data/ for the records of `resource`, given in the data's order (by id, or the
 * service's order for a list kept in the data's order); each file's records keep that order.
 */
export function layoutOf(resource: Resource, records: readonly unknown[]): DataFileRecords[] {
  const stem = `${resource.name}/${countedAs(resource)[1]}`;
  if (records.length <= FILE_RECORDS) return [{ file: `${stem}.json`, records: [...records] }];
  if (resource.order === 'source') {
    const files = Math.ceil(records.length / FILE_RECORDS);
    // Wide enough that the path order is the list's order.
    const digits = Math.max(4, String(files).length);
    return Array.from({ length: files }, (_, i) => ({
      file: `${stem}-${String(i + 1).padStart(digits, '0')}.json`,
      records: records.slice(i * FILE_RECORDS, (i + 1) * FILE_RECORDS),
    }));
  }
  const kinds = groupBy(records, (record) => {
    const id = idOf(record);
    return isRangeId(id) ? 'range' : typeof id === 'string' ? 'prefix' : 'other';
  });
  return [
    ...byRange(stem, kinds.get('range') ?? [], 0, ALL_INTEGERS).filter((file) => file.records.length > 0),
    ...(kinds.has('prefix') ? byPrefix(stem, kinds.get('prefix') as unknown[], '') : []),
    ...(kinds.has('other') ? [{ file: `${stem}-other-ids.json`, records: kinds.get('other') as unknown[] }] : []),
  ];
}
