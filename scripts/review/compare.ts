// The whole comparison of two sides: the records of each resource, then the answers. This is
// the `--format json` output, documented in docs/reviewing.md.
//
// A file is decoded and parsed only when its bytes differ between the sides, and its parsed
// records are dropped once compared, so that at most one resource's lists are held at a time.

import type { PlainJson } from '../contract/json.ts';
import type { Routed } from '../contract/routes.ts';
import { type AnswersDiff, diffAnswers, type Known, listIds } from './answers.ts';
import {
  diffRecords,
  type Files,
  listFile,
  type Page,
  pageBytes,
  parsed,
  parsePages,
  type ResourceDiff,
  sameBytes,
} from './records.ts';
import type { Side } from './side.ts';
import { diffValues, type FieldChange } from './values.ts';

export interface Report {
  /** The version of this format; raised when a field changes meaning or goes. */
  version: 1;
  before: string;
  after: string;
  /** Whether every file of the two outputs is the same, byte for byte. */
  identical: boolean;
  resources: ResourceDiff[];
  answers: AnswersDiff;
  /**
   * How the settings file changed (`pageSize`, `resources.company.filterset_fields[]`), where both
   * sides' settings are known (a revision, the working tree); a setting shapes the API.
   */
  settings: FieldChange[];
}

function sameFiles(a: Files, b: Files): boolean {
  if (a.size !== b.size) return false;
  for (const [file, bytes] of a) if (!sameBytes(b.get(file), bytes)) return false;
  return true;
}

/**
 * Compares two builds of `resources`; reading both sides is the caller's, so this can be timed on
 * its own.
 */
export function compareSides(before: Side, after: Side, resources: readonly Routed[]): Report {
  const settings: FieldChange[] = [];
  if (before.settings !== undefined && after.settings !== undefined)
    diffValues('', before.settings, after.settings, settings);
  const report = { version: 1 as const, before: before.label, after: after.label };
  if (sameFiles(before.files, after.files) && settings.length === 0) {
    return {
      ...report,
      identical: true,
      resources: resources.map(({ name }) => ({ resource: name, added: [], removed: [], changed: [] })),
      answers: {
        appeared: [],
        vanished: [],
        reordered: [],
        pages: { shifts: [] },
        paginated: [],
        bodies: [],
        headers: [],
      },
      settings,
    };
  }
  const known: Known = { ids: new Map(), pages: new Map() };
  const diffs: ResourceDiff[] = [];
  for (const resource of resources) {
    const { name } = resource;
    if (resource.paginated) {
      const old = pageBytes(before.files, resource);
      const now = pageBytes(after.files, resource);
      const same = old.length === now.length && old.every((bytes, index) => bytes.equals(now[index] as Buffer));
      if (same) {
        diffs.push({ resource: name, added: [], removed: [], changed: [] });
        continue;
      }
      const pages: [Page[], Page[]] = [parsePages(old), parsePages(now)];
      known.pages.set(resource, pages);
      const records = (side: Page[]) => side.flatMap((page) => page.results);
      diffs.push(diffRecords(name, records(pages[0]), records(pages[1])));
      continue;
    }
    const file = listFile(resource);
    if (sameBytes(before.files.get(file), after.files.get(file))) {
      diffs.push({ resource: name, added: [], removed: [], changed: [] });
      continue;
    }
    const old = parsed<PlainJson[]>(before.files, file) ?? [];
    const now = parsed<PlainJson[]>(after.files, file) ?? [];
    known.ids.set(file, [listIds(old), listIds(now)]);
    diffs.push(diffRecords(name, old, now));
  }
  const changed = new Map(diffs.map((diff) => [diff.resource, new Set(diff.changed.map((record) => record.id))]));
  const answers = diffAnswers(before.files, after.files, changed, known, resources);
  return { ...report, identical: false, resources: diffs, answers, settings };
}
