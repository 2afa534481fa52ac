// The answers that are the same for every catalogue: OPTIONS, and the error bodies the web servers
// send from files.

import { toJson } from './_lib/json.js';

const options = (name) => ({
  name,
  description: '',
  renders: ['application/json', 'text/html'],
  parses: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
});

export const data = {
  answers: [
    ['_options/company.json', options('Company List')],
    ['_options/virtualfair.json', options('Virtual Fair List')],
    ['_options/event.json', options('Event List')],
    ['_options/virtualbooth-texture.json', options('Virtual Booth Texture List')],
    ['_errors/not-found.json', { detail: 'Not found.' }],
    ['_errors/invalid-page.json', { detail: 'Invalid page.' }],
    [
      '_errors/unsupported-ordering.json',
      { detail: 'This host cannot order by several fields; use a single field, such as ordering=-start_date.' },
    ],
    ...['POST', 'PUT', 'PATCH', 'DELETE', 'TRACE'].map((method) => [
      `_errors/405/${method}.json`,
      { detail: `Method "${method}" not allowed.` },
    ]),
  ],
  pagination: { data: 'answers', size: 1, alias: 'answer' },
  permalink: ({ answer }) => answer[0],
};

export function render({ answer }) {
  return toJson(answer[1]);
}
