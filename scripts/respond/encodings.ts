// Which precompressed sibling (shared/compress.ts) the local server sends, from the request's
// Accept-Encoding (RFC 9110 12.5.3): the coding of the highest weight, br before gzip before
// identity on equal weights. No header, or one that prefers identity, gets the file as it is.

import { ENCODINGS, type Encoding } from '../shared/compress.ts';

/** Each coding the header names, lower-cased, with its weight (1 when it gives none). */
function weights(header: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    if (!name) continue;
    const q = parameters.find((parameter) => /^q\s*=/.test(parameter));
    const weight = q === undefined ? 1 : Number(q.slice(q.indexOf('=') + 1).trim());
    found.set(name, Number.isFinite(weight) && weight >= 0 && weight <= 1 ? weight : 0);
  }
  return found;
}

/** The coding to send, or undefined for the file as it is. */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const weightOf = weights(acceptEncoding);
  const named = (coding: string) => weightOf.get(coding) ?? weightOf.get('*');
  // identity ranks only where the client names it (or `*`): it is acceptable anyway, and a
  // client naming gzip alone wants gzip.
  let best: Encoding | undefined;
  let bestWeight = named('identity') ?? 0;
  for (const { encoding } of ENCODINGS) {
    const weight = named(encoding) ?? 0;
    if (weight > 0 && (best === undefined ? weight >= bestWeight : weight > bestWeight)) {
      best = encoding;
      bestWeight = weight;
    }
  }
  return best;
}
