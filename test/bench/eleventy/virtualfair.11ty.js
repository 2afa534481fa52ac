// /virtualfair/: the fairs in the data's order, each event shown from its record (or as the fair
// gives it).

import { float, toJson } from './_lib/json.js';

export const data = { permalink: 'virtualfair/index.json' };

export function render({ catalogue }) {
  const events = new Map(catalogue.events.map((event) => [event.id, event]));
  const shown = (item) => {
    const given = typeof item === 'number' ? { id: item } : item;
    const event = events.get(given.id) ?? {};
    return {
      id: given.id,
      slug: given.slug ?? event.slug,
      name: given.name ?? event.name,
      short_code: given.short_code !== undefined ? given.short_code : event.short_code,
      start_date: given.start_date ?? event.start_date,
      event_logo: given.event_logo ?? event.logo,
    };
  };
  const fairs = catalogue.fairs.map((fair) => ({
    ...fair,
    events: fair.events.map(shown),
    zoom: { ...fair.zoom, translation_factor_7: float(fair.zoom.translation_factor_7) },
  }));
  return toJson(fairs);
}
