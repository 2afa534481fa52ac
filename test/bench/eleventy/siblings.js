// The step an Eleventy user adds for the `.br` and `.gz` siblings their web server sends: once
// the site is written (`eleventy.after`), each JSON answer of 4 KiB or more, as `npm run build`
// chooses them, compressed with Node's zlib at the build's levels (brotli quality 6, gzip level
// 6) and written beside it. As many compressions at once as the machine has cores, the largest
// answers first, so that the longest one does not start last.

import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const MIN_BYTES = 4096;
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

const ENCODERS = [
  ['.br', (bytes) => brotli(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 6 } })],
  ['.gz', (bytes) => gzip(bytes, { level: 6 })],
];

/** The `eleventy.after` handler: `results` holds each written file's path and content. */
export async function writeSiblings({ results }) {
  const answers = results
    .filter(({ outputPath }) => typeof outputPath === 'string' && outputPath.endsWith('.json'))
    .map(({ outputPath, content }) => ({ outputPath, bytes: Buffer.from(content) }))
    .filter(({ bytes }) => bytes.length >= MIN_BYTES)
    .sort((a, b) => b.bytes.length - a.bytes.length);
  const jobs = answers.flatMap(({ outputPath, bytes }) =>
    ENCODERS.map(
      ([extension, encode]) =>
        async () =>
          writeFile(`${outputPath}${extension}`, await encode(bytes)),
    ),
  );
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++]();
  };
  await Promise.all(Array.from({ length: os.availableParallelism() }, worker));
}
