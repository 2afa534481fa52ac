// The test's own comparators (deliberately not the project's sort code): code-point string
// order as Python and a binary database collation compare, nulls after every value.

export type Value = string | number | boolean | null;

/** Code-point order. JavaScript's `<` compares UTF-16 units, which misplaces astral characters. */
export function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0) as number);
  const y = Array.from(b, (c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  }
  return x.length - y.length;
}

/** Ascending order with null last (so a descending key puts null first, as PostgreSQL does). */
export function compareValues(a: Value, b: Value): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  return a < b ? -1 : 1;
}

export interface SortKey<T> {
  value: (record: T) => Value;
  descending?: boolean;
}

/** A sorted copy; the caller ends the keys with a unique one (id) so the order is total. */
export function sortBy<T>(records: readonly T[], keys: ReadonlyArray<SortKey<T>>): T[] {
  return [...records].sort((a, b) => {
    for (const key of keys) {
      const order = compareValues(key.value(a), key.value(b));
      if (order !== 0) return key.descending ? -order : order;
    }
    return 0;
  });
}

/** `-start_date,name` → keys for those fields, then id ascending (the contract's tie-break). */
export function eventKeys(terms: readonly string[]): Array<SortKey<Record<string, Value>>> {
  return [
    ...terms.map((term) => {
      const descending = term.startsWith('-');
      const field = descending ? term.slice(1) : term;
      return { value: (r: Record<string, Value>) => r[field] ?? null, descending };
    }),
    { value: (r: Record<string, Value>) => r.id ?? null },
  ];
}

export const ids = <I>(records: ReadonlyArray<{ id: I }>): I[] => records.map((r) => r.id);
