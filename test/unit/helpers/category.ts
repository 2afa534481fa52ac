// A resource the API does not have, declared only for the tests (docs/architecture.md, "Adding a
// resource"): the texture categories, a UUID id and a name, by name, a page at a time. This
// declaration is all that is written for it; the tests that take it prove that everything else
// follows from the list of declarations.

import { declare, UNIQUE_IDS } from '../../../scripts/contract/resources/resource.ts';

export const category = declare({
  name: 'category',
  path: '/category/',
  title: 'Category List',
  one: 'a category',
  many: 'categories',
  record: (field) => field.z.strictObject({ id: field.uuid(), name: field.nonEmpty() }),
  order: [{ field: 'name', descending: false }],
  orderingFields: [],
  paginated: true,
  buildOnlyRules: [UNIQUE_IDS],
  component: 'Category',
  componentDescription: 'A texture category.',
});
