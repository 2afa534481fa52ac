// The company list: every company, by name whatever its case.

import { declare, UNIQUE_IDS, URL_PARSES } from './resource.ts';

export const company = declare({
  name: 'company',
  path: '/company/',
  title: 'Company List',
  one: 'a company',
  many: 'companies',
  // The API writes a company as zod outputs it: with the keys in this order.
  record: (field) =>
    field.z.strictObject({
      id: field.id(),
      name: field.nonEmpty(),
      street: field.text(),
      zip_code: field.text(),
      city: field.text(),
      country_name: field.nonEmpty(),
      phone: field.text().nullable(),
      fax: field.text().nullable(),
      e_mail: field.text().nullable(),
      platform_plus_status: field.z.boolean(),
      website: field.text().nullable(),
      logo: field.absoluteUrl().nullable(),
      tags: field.tags().nullable(),
      vf_plus_status: field.z.boolean(),
    }),
  order: [{ field: 'name', descending: false, ignoreCase: true }],
  orderingFields: [],
  paginated: false,
  buildOnlyRules: [URL_PARSES, UNIQUE_IDS],
  component: 'Company',
  componentDescription: 'A company, as /company/ lists it.',
});
