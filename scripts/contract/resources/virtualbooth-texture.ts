// The texture list: by name, a page at a time.

import { HTTP_URL_START } from './fields.ts';
import { declare, UNIQUE_IDS, URL_PARSES } from './resource.ts';

export const virtualboothTexture = declare({
  name: 'virtualbooth-texture',
  path: '/virtualbooth-texture/',
  title: 'Virtual Booth Texture List',
  one: 'a virtual booth texture',
  many: 'textures',
  // Key order is the API's field order.
  record: (field) =>
    field.z.strictObject({
      id: field.uuid(),
      name: field.nonEmpty(),
      texture: field
        .absoluteUrl()
        .refine((s) => /\.(jpe?g|png)$/i.test(new URL(s).pathname), 'expected the URL of a jpg or png image')
        .meta({
          pattern: `${HTTP_URL_START}[^/?#\\s]*/[^?#\\s]*\\.(?:[jJ][pP][eE]?[gG]|[pP][nN][gG])(?:[?#]\\S*)?$`,
          description:
            'The absolute http(s) URL of a jpg or png image. JSON Schema checks its form only; that it parses as a URL (WHATWG URL), and the path it parses to, are checked by the build.',
        }),
      categories: field.z
        .array(field.uuid())
        .min(1, 'expected at least one category UUID')
        .refine((ids) => new Set(ids).size === ids.length, 'expected each category once')
        .meta({ uniqueItems: true }),
    }),
  order: [{ field: 'name', descending: false }],
  orderingFields: [],
  paginated: true,
  buildOnlyRules: [URL_PARSES, UNIQUE_IDS],
  component: 'Texture',
  componentDescription: 'A virtual booth texture.',
});
