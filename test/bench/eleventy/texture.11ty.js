// /virtualbooth-texture/: the textures by name, pageSize to a page, with DRF's envelope. Each page
// is written for `?page=N` (and the first with no page), `?page=last`, and each again with
// `?format=api` and `?format=json`, since the links repeat the format.

import { byFields, toJson } from './_lib/json.js';

const FORMATS = ['', 'api', 'json'];

function pages(textures, { site }) {
  const sorted = textures.toSorted(byFields('name'));
  const count = Math.max(1, Math.ceil(sorted.length / site.pageSize));
  const numbers = Array.from({ length: count }, (_, i) => i + 1);
  return FORMATS.flatMap((format) =>
    [...numbers, 'last'].map((page) => {
      const number = page === 'last' ? count : page;
      const items = sorted.slice((number - 1) * site.pageSize, number * site.pageSize);
      return { format, page, number, count, total: sorted.length, items };
    }),
  );
}

function permalink({ texturePage: { format, page } }) {
  const query = [format && `format=${format}`, page !== 1 && `page=${page}`].filter(Boolean);
  return query.length === 0 ? 'virtualbooth-texture/index.json' : `virtualbooth-texture/${query.join('/')}.json`;
}

export const data = {
  pagination: { data: 'catalogue.textures', size: 1, alias: 'texturePage', before: pages },
  permalink,
};

export function render({ site, texturePage: { format, number, count, total, items } }) {
  const link = (page) => {
    const query = [format && `format=${format}`, page !== 1 && `page=${page}`].filter(Boolean);
    return `${site.baseUrl}/virtualbooth-texture/${query.length ? `?${query.join('&')}` : ''}`;
  };
  return toJson({
    count: total,
    next: number < count ? link(number + 1) : null,
    previous: number > 1 ? link(number - 1) : null,
    results: items,
  });
}
