// /company/: every company, by name whatever its case, then by id.

import { toJson } from './_lib/json.js';

export const data = { permalink: 'company/index.json' };

export function render({ catalogue }) {
  const byName = (a, b) => {
    const [x, y] = [a.name.toLowerCase(), b.name.toLowerCase()];
    return x < y ? -1 : x > y ? 1 : a.id - b.id;
  };
  return toJson(catalogue.companies.toSorted(byName));
}
