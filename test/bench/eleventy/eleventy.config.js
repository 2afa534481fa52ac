// The bench's peer: the same API written as a user who picked Eleventy 3 would write it. The
// catalogue's JSON files are read by a global data file, each answer is a `.11ty.js` template, and
// pagination makes the event orderings and the texture pages. Run from the project's root:
//   CATALOGUE_DIR=data npx @11ty/eleventy --config=test/bench/eleventy/eleventy.config.js --output=<dir>
// BASE_URL, PAGE_SIZE and PRECOMPRESS work as for `npm run build`: the answers' `.br` and `.gz`
// siblings are written by a step of the project (siblings.js) unless PRECOMPRESS=off. The
// project's `_headers` (or HEADERS_FILE, a path from the project's root) is copied as it is.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSiblings } from './siblings.js';

const here = path.relative(process.cwd(), path.dirname(fileURLToPath(import.meta.url)));

export default function (eleventyConfig) {
  eleventyConfig.addPassthroughCopy({ [process.env.HEADERS_FILE ?? '_headers']: '_headers' });
  if (process.env.PRECOMPRESS !== 'off') eleventyConfig.on('eleventy.after', writeSiblings);
  return {
    dir: { input: here, data: '_data', includes: '_lib' },
    templateFormats: ['11ty.js'],
  };
}
