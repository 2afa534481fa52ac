// "Did you mean": whether a name written is likely a misspelling of a known one, for the build's
// fields and filters and the commands' flags, settings keys and target names alike.

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
