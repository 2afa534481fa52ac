// What `npm run verify` asks both sides of the filters, search and orderings of the settings file,
// for each list the build wrote them for: every filter with a value from the list's records, a
// value each filter of a number, a date or a UUID cannot read (django-filter's 400), every
// filter a value refuses at once (the 400 names them in the order of `filterset_fields`), a
// search for each search field with a term from its records, each ordering both ways, and all
// the filters together with an ordering and a page. The records and the settings are the build's own
// (`_records/`), so the requests need no flag and no extra request to the service.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ORDERING_PARAM, PAGE_PARAM } from '../contract/query.ts';
import type { Resource } from '../contract/resources/resource.ts';
import { SEARCH_PARAM } from '../contract/search.ts';
import { partRecords, type RecordsManifest, recordsManifestFile, recordsPartFile } from '../store/format.ts';
import {
  filterProbe,
  listUrl,
  type ProbedList,
  type Row,
  SearchProbes,
  UNREADABLE,
  unreadableParams,
} from './query-probes.ts';
import type { VerifyRequest } from './verify-requests.ts';

/** The list's records and settings as the build wrote them into `outDir`; undefined for a list without settings. */
async function builtList(
  outDir: string,
  resource: Resource,
): Promise<{ list: ProbedList; manifest: RecordsManifest } | undefined> {
  let manifest: RecordsManifest;
  try {
    manifest = JSON.parse(await readFile(path.join(outDir, recordsManifestFile(resource.name)), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const records: Row[] = [];
  for (let part = 1; part <= manifest.parts; part++) {
    const text = await readFile(path.join(outDir, recordsPartFile(resource.name, part)), 'utf8');
    for (const line of partRecords(text)) records.push(JSON.parse(line) as Row);
  }
  const list = { ...resource, pageSize: manifest.pageSize, records };
  return { list, manifest };
}

/** The requests of one list with settings. */
function listRequests(
  list: ProbedList,
  manifest: RecordsManifest,
  declaredOrdering: readonly string[],
): VerifyRequest[] {
  const { query } = manifest;
  const get = (...params: Array<readonly [string, string]>): VerifyRequest => ({
    method: 'GET',
    url: listUrl(list, params),
  });
  const probes = query.filters.flatMap(({ field, kind }) => filterProbe(list.records, field, kind) ?? []);
  const search = new SearchProbes(list, []);
  const terms = query.search.flatMap(({ field, lookup }) => search.matching(field, lookup) ?? []);
  const orderings = query.ordering.length > 0 ? query.ordering : declaredOrdering;
  const byOrdering = query.ordering.flatMap((field) => [
    get([ORDERING_PARAM, field]),
    get([ORDERING_PARAM, `-${field}`]),
  ]);
  const refused = unreadableParams(query.filters);
  const together: Array<readonly [string, string]> = probes.map((probe) => [probe.field, probe.value]);
  const firstOrdering = orderings[0];
  if (firstOrdering !== undefined) together.push([ORDERING_PARAM, `-${firstOrdering}`]);
  if (list.paginated) together.push([PAGE_PARAM, 'last']);
  return [
    ...probes.map((probe) => get([probe.field, probe.value])),
    ...query.filters.flatMap(({ field, kind }) => {
      const unreadable = UNREADABLE[kind];
      return unreadable === undefined ? [] : [get([field, unreadable])];
    }),
    ...(refused.length > 1 ? [get(...refused)] : []),
    ...terms.map((term) => get([SEARCH_PARAM, term])),
    ...byOrdering,
    ...(together.length > 1 ? [get(...together)] : []),
    // A page after the first of a list ordered at request time.
    ...(list.paginated && firstOrdering !== undefined && list.records.length > list.pageSize
      ? [get([ORDERING_PARAM, `-${firstOrdering}`], [PAGE_PARAM, '2'])]
      : []),
  ];
}

/** The requests of every list the build in `outDir` wrote settings for, in the declarations' order. */
export async function queryRequests(outDir: string, resources: readonly Resource[]): Promise<VerifyRequest[]> {
  const requests: VerifyRequest[] = [];
  for (const resource of resources) {
    const built = await builtList(outDir, resource);
    if (built) requests.push(...listRequests(built.list, built.manifest, resource.orderingFields));
  }
  return requests;
}
