// "Did you mean": an unknown field of a record that is likely a misspelling of a field the same
// object lacks, so that the build reports one line with the fix instead of an unknown field and
// a missing one.

import type { z } from 'zod';
import { pointerOf } from './errors.ts';

/** Lower case, without `_` and `-`: how a name reads aloud, so `E-Mail` and `email` match `e_mail`. */
const spokenForm = (name: string) => name.toLowerCase().replace(/[-_]/g, '');

/** The number of edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  // Three rows of the table: a swap looks two rows back.
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (beforePrevious[j - 2] as number) + 1);
      }
      row.push(best);
    }
    beforePrevious = previous;
    previous = row;
  }
  return previous[b.length] as number;
}

/**
 * How far `written` is from the field name, when it is likely a misspelling of it: the same
 * spoken form, or at most two edits apart (one in names of three to five characters, none in
 * shorter ones), so that `min` is not taken for a misspelling of `max`.
 */
export function misspellingDistance(written: string, field: string): number | undefined {
  const [a, b] = [spokenForm(written), spokenForm(field)];
  const distance = editDistance(a, b);
  return distance <= Math.min(2, Math.floor(Math.max(a.length, b.length) / 3)) ? distance : undefined;
}

/** The one of `names` that `written` likely misspells, the closest; undefined when none is close. */
export function closestName(written: string, names: readonly string[]): string | undefined {
  let closest: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = misspellingDistance(written, name);
    if (distance !== undefined && (closest === undefined || distance < closest.distance)) closest = { name, distance };
  }
  return closest?.name;
}

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
