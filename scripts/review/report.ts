// The whole comparison of two sides: the records of each resource, then the answers. This is
// the `--format json` output, documented in docs/reviewing.md.

import { type AnswersDiff, diffAnswers } from './answers.ts';
import { diffRecords, RESOURCE_NAMES, type ResourceDiff, recordsOf } from './records.ts';
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

function sameFiles(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [file, text] of a) if (b.get(file) !== text) return false;
  return true;
}

/** Compares two sides; reading both is the caller's, so this can be timed on its own. */
export function compareSides(before: Side, after: Side): Report {
  const identical = sameFiles(before.files, after.files);
  const resources = RESOURCE_NAMES.map((resource) =>
    identical
      ? { resource, added: [], removed: [], changed: [] }
      : diffRecords(resource, recordsOf(before.files, resource), recordsOf(after.files, resource)),
  );
  const changed = new Map(resources.map((diff) => [diff.resource, new Set(diff.changed.map((record) => record.id))]));
  return {
    version: 1,
    before: before.label,
    after: after.label,
    identical,
    resources,
    answers: identical
      ? { appeared: [], vanished: [], reordered: [], pages: { shifts: [] }, bodies: [], headers: [] }
      : diffAnswers(before.files, after.files, changed),
  };
}
