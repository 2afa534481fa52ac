// How the generated READMEs name the lists a build serves: counted from the resources declared,
// so that a declaration added or removed changes the sentence with it.

import type { Routed } from '../contract/routes.ts';

const WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

/** `the four lists` for the API's resources; digits past twelve, as prose writes them. */
export function theLists(resources: readonly Routed[]): string {
  const count = resources.length;
  if (count === 1) return 'the one list';
  return `the ${WORDS[count] ?? String(count)} lists`;
}
