// The answers of `prerendered_filters` for the targets without code: each value a pre-rendered
// filter's field takes in the records, and the list filtered on it (with its pages), made from
// the records' parts by the very functions the request handler answers with
// (contract/query.ts's answerPage()), so a file holds the bytes the local server sends for that request.

import { UNSUPPORTED_QUERY_BODY } from '../../contract/bodies.ts';
import { filterValueCounts, requestText } from '../../contract/filters.ts';
import { compareStrings } from '../../contract/ordering.ts';
import { answerPage, readListQuery } from '../../contract/query.ts';
import type { Resource } from '../../contract/resources/resource.ts';
import {
  type FilterRoute,
  type FilterValue,
  filterFile,
  planFilterRoutes,
  type Routed,
  routingOf,
  UNSUPPORTED_QUERY_FILE,
} from '../../contract/routes.ts';
import { partRecords, type RecordsManifest, recordsManifestFile, recordsPartFile } from '../../store/format.ts';
import { type Catalogue, recordsOf } from './validate.ts';

/** Each value of each pre-rendered filter, in code-point order, with how many records hold it. */
export function filterValuesOf(
  catalogue: Catalogue,
  resources: readonly Resource[],
): Record<string, Record<string, FilterValue[]>> {
  const values: Record<string, Record<string, FilterValue[]>> = {};
  for (const resource of resources) {
    const fields = resource.query?.prerendered ?? [];
    if (fields.length === 0) continue;
    const records = recordsOf(catalogue, resource.name) as Array<Record<string, unknown>>;
    values[resource.name] = Object.fromEntries(
      fields.map((field) => {
        const filter = resource.query?.filters.find((each) => each.field === field);
        const counts = filter === undefined ? new Map<string, number>() : filterValueCounts(records, filter);
        const sorted = [...counts].sort(([a], [b]) => compareStrings(a, b));
        return [field, sorted.map(([value, count]) => ({ value, count }))];
      }),
    );
  }
  return values;
}

/** The pre-rendered filters' routes of a catalogue, for the targets and for filterFiles(). */
export function filterRoutesOf(catalogue: Catalogue, pageSize: number, resources: readonly Resource[]): FilterRoute[] {
  if (!resources.some((resource) => (resource.query?.prerendered.length ?? 0) > 0)) return [];
  return planFilterRoutes(filterValuesOf(catalogue, resources), pageSize, routingOf(resources));
}

/** Whether the settings file gives a list filters, search or ordering. */
const isQueried = (resource: Routed) =>
  resource.query !== undefined &&
  resource.query.filters.length + resource.query.search.length + resource.query.ordering.length > 0;

/**
 * The files of `routes`, read from the records' parts in `output` (store/format.ts),
 * and the error body of the queries the targets without code have no file for, written only when a
 * list has settings: without them the output is what it was.
 */
export function filterFiles(
  routes: readonly FilterRoute[],
  output: ReadonlyMap<string, string>,
  resources: readonly Resource[],
): Map<string, string> {
  const files = new Map<string, string>();
  if (resources.some(isQueried)) files.set(UNSUPPORTED_QUERY_FILE, UNSUPPORTED_QUERY_BODY);
  for (const resource of resources) {
    const own = routes.filter((route) => route.resource === resource.name);
    if (own.length === 0) continue;
    const manifestText = output.get(recordsManifestFile(resource.name));
    if (manifestText === undefined) throw new Error(`${resource.path}: no records for its pre-rendered filters`);
    const manifest = JSON.parse(manifestText) as RecordsManifest;
    const fields = [...new Set(own.map((route) => route.field))];
    // The records' texts holding each value of each field, in the parts' order (the list's).
    const groups = new Map(fields.map((field) => [field, new Map<string, string[]>()]));
    for (let part = 1; part <= manifest.parts; part++) {
      for (const text of partRecords(output.get(recordsPartFile(resource.name, part)) ?? '')) {
        const record = JSON.parse(text) as Record<string, unknown>;
        for (const [field, byValue] of groups) {
          const value = requestText(record[field]);
          if (value === undefined) continue;
          const texts = byValue.get(value);
          if (texts === undefined) byValue.set(value, [text]);
          else texts.push(text);
        }
      }
    }
    for (const route of own) {
      const texts = groups.get(route.field)?.get(route.value) ?? [];
      for (const page of [undefined, ...route.pages]) {
        const pairs: Array<[string, string]> = [[route.field, route.value]];
        if (page !== undefined) pairs.push(['page', page]);
        const query = readListQuery(resource, new Map(pairs), new URLSearchParams(pairs).toString());
        if (query === undefined || query.errors !== null) throw new Error(`${route.dir}: not a filter's request`);
        const answer = answerPage(query, texts.length, resource, manifest);
        if (answer === null) throw new Error(`${route.dir}: page ${page} is not one of its pages`);
        files.set(filterFile(route.dir, page), answer.body(texts.slice(answer.start, answer.end)));
      }
    }
  }
  return files;
}
