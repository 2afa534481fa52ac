// /event/ and each of its orderings (`?ordering=-start_date`): one page per ordering.

import { byFields, toJson } from './_lib/json.js';

const FIELDS = ['id', 'name', 'slug', 'start_date', 'end_date', 'logo', 'logo_bg_color'];

export const data = {
  orderings: ['', ...FIELDS.flatMap((field) => (field === 'id' ? ['-id'] : [field, `-${field}`]))],
  pagination: { data: 'orderings', size: 1, alias: 'ordering' },
  permalink: ({ ordering }) => (ordering ? `event/ordering=${ordering}.json` : 'event/index.json'),
};

export function render({ catalogue, ordering }) {
  const events = ordering ? catalogue.events.toSorted(byFields(ordering)) : catalogue.events.toSorted(byFields());
  return toJson(events.map(({ short_code, ...event }) => event));
}
