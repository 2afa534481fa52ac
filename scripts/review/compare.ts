// The whole comparison of two sides: the records of each resource, then the answers. This is
// the `--format json` output, documented in docs/reviewing.md.
//
// A file is decoded and parsed only when its bytes differ between the sides, and its parsed
// records are dropped once compared, so that at most one resource's lists are held at a time.

import type { PlainJson } from '../contract/json.ts';
import { RESOURCE_NAMES, TEXTURES } from '../contract/routes.ts';
import { type AnswersDiff, diffAnswers, type Known, listIds } from './answers.ts';
import {
  diffRecords,
  type Files,
  listFile,
  type Page,
  pageBytes,
  parsed,
  type ResourceDiff,
  sameBytes,
  texturePages,
} from './records.ts';
import type { Side } from './side.ts';

export interface Report {
  /** The version of this format; raised when a field changes meaning or goes. */
  version: 1;
  before: string;
  after: string;
  /** Whether every file of the two outputs is the same, byte for byte. */
  identical: boolean;
  resources: ResourceDiff[];
  answers: AnswersDiff;
}

function sameFiles(a: Files, b: Files): boolean {
  if (a.size !== b.size) return false;
  for (const [file, bytes] of a) if (!sameBytes(b.get(file), bytes)) return false;
  return true;
}

/** Compares two sides; reading both is the caller's, so this can be timed on its own. */
export function compareSides(before: Side, after: Side): Report {
  const report = { version: 1 as const, before: before.label, after: after.label };
  if (sameFiles(before.files, after.files)) {
    return {
      ...report,
      identical: true,
      resources: RESOURCE_NAMES.map((resource) => ({ resource, added: [], removed: [], changed: [] })),
      answers: { appeared: [], vanished: [], reordered: [], pages: { shifts: [] }, bodies: [], headers: [] },
    };
  }
  const known: Known = { ids: new Map(), pages: undefined };
  const resources: ResourceDiff[] = [];
  for (const resource of RESOURCE_NAMES) {
    if (resource === TEXTURES) {
      const old = pageBytes(before.files);
      const now = pageBytes(after.files);
      const same = old.length === now.length && old.every((bytes, index) => bytes.equals(now[index] as Buffer));
      if (same) {
        resources.push({ resource, added: [], removed: [], changed: [] });
        continue;
      }
      const pages: [Page[], Page[]] = [texturePages(old), texturePages(now)];
      known.pages = pages;
      const records = (side: Page[]) => side.flatMap((page) => page.results);
      resources.push(diffRecords(resource, records(pages[0]), records(pages[1])));
      continue;
    }
    const file = listFile(resource);
    if (sameBytes(before.files.get(file), after.files.get(file))) {
      resources.push({ resource, added: [], removed: [], changed: [] });
      continue;
    }
    const old = parsed<PlainJson[]>(before.files, file) ?? [];
    const now = parsed<PlainJson[]>(after.files, file) ?? [];
    known.ids.set(file, [listIds(old), listIds(now)]);
    resources.push(diffRecords(resource, old, now));
  }
  const changed = new Map(resources.map((diff) => [diff.resource, new Set(diff.changed.map((record) => record.id))]));
  return { ...report, identical: false, resources, answers: diffAnswers(before.files, after.files, changed, known) };
}
