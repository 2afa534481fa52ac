// "Did you mean": an unknown field of a record that is likely a misspelling of a field the same
// object lacks, so that the build reports one line with the fix instead of an unknown field and
// a missing one.

import type { z } from 'zod';
import { misspellingDistance } from '../../shared/misspellings.ts';
import { pointerOf } from './errors.ts';

interface Misspellings {
  /** The pointer (in the record) of each unknown field that likely misspells a missing one → that field. */
  meant: Map<string, string>;
  /** The pointers of those missing fields. */
  misspelt: Set<string>;
}

/**
 * Pairs unknown fields with the missing fields of the same object they likely misspell, the
 * closest pairs first, each field at most once.
 */
export function likelyMisspellings(issues: readonly z.core.$ZodIssue[]): Misspellings {
  const missingIn = new Map<string, string[]>();
  for (const issue of issues) {
    const field = issue.path.at(-1);
    if (issue.code !== 'invalid_type' || issue.input !== undefined || typeof field !== 'string') continue;
    const object = pointerOf(issue.path.slice(0, -1));
    missingIn.set(object, [...(missingIn.get(object) ?? []), field]);
  }
  const pairs: { unknown: string; field: string; object: string; distance: number }[] = [];
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const object = pointerOf(issue.path);
    for (const unknown of issue.keys) {
      for (const field of missingIn.get(object) ?? []) {
        const distance = misspellingDistance(unknown, field);
        if (distance !== undefined) pairs.push({ unknown, field, object, distance });
      }
    }
  }
  const meant = new Map<string, string>();
  const misspelt = new Set<string>();
  for (const { unknown, field, object } of pairs.sort((a, b) => a.distance - b.distance)) {
    const [unknownPointer, fieldPointer] = [`${object}${pointerOf([unknown])}`, `${object}${pointerOf([field])}`];
    if (meant.has(unknownPointer) || misspelt.has(fieldPointer)) continue;
    meant.set(unknownPointer, field);
    misspelt.add(fieldPointer);
  }
  return { meant, misspelt };
}
