// The catalogue of the tests of a file past Cloudflare's 25 MiB per asset: the benchmark's kind
// (test/bench/generate.ts), with a company list of about 27 MB and the rest kept small.

import type { Counts } from '../../bench/generate.ts';

export const LARGE_LIST_COUNTS: Counts = { companies: 62_000, events: 1_000, fairs: 100, textures: 2_000 };
