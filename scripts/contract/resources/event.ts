// The event list: by id, or by any one of its fields with `?ordering=`.

import { isCalendarDate } from './fields.ts';
import { declare, UNIQUE_IDS } from './resource.ts';

export const event = declare({
  name: 'event',
  path: '/event/',
  title: 'Event List',
  one: 'an event',
  many: 'events',
  record: (field) =>
    field.z
      .strictObject({
        id: field.id(),
        name: field.nonEmpty(),
        slug: field.nonEmpty(),
        // Shown in the fairs' event lists only; /event/ does not list it.
        short_code: field.text().nullable(),
        start_date: field.isoDate(),
        end_date: field.isoDate(),
        logo: field.mediaPath().nullable(),
        logo_bg_color: field.hexColour().nullable(),
      })
      .superRefine((event, ctx) => {
        // zod runs this even when a date failed its own check; compare only two real dates.
        if (isCalendarDate(event.start_date) && isCalendarDate(event.end_date) && event.end_date < event.start_date) {
          ctx.addIssue({
            code: 'custom',
            path: ['end_date'],
            message: `expected a date on or after start_date (${event.start_date})`,
            input: event.end_date,
          });
        }
      }),
  listed: ['id', 'name', 'slug', 'start_date', 'end_date', 'logo', 'logo_bg_color'],
  order: [],
  orderingFields: ['id', 'name', 'slug', 'start_date', 'end_date', 'logo', 'logo_bg_color'],
  orderingExample: ['-start_date', 'name'],
  paginated: false,
  buildOnlyRules: ['end_date is on or after start_date', UNIQUE_IDS],
  component: 'Event',
  componentDescription: 'An event, as /event/ lists it (without short_code).',
});
