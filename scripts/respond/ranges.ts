// A request's Range read as RFC 9110 section 14.2 says, for the adapters that answer one from a
// list's file (docs/contract.md, section 2): one satisfiable byte range of a GET is sent as 206,
// one that starts past the end is 416, anything else is ignored (the whole 200): another method,
// another unit, a range the grammar does not allow, several ranges (which a server may ignore).

export type RangeReading =
  | { kind: 'none' }
  | { kind: 'ignore' }
  | { kind: 'unsatisfiable' }
  /** Bytes `first` to `last` of the file, both included. */
  | { kind: 'send'; first: number; last: number };

/** The one byte range `range` asks of a `method` request (its two ends as written), or why none applies. */
export function askedRange(
  method: string,
  range: string | null | undefined,
): { kind: 'none' } | { kind: 'ignore' } | { kind: 'asked'; from: string; to: string } {
  if (range == null) return { kind: 'none' };
  if (method !== 'GET') return { kind: 'ignore' };
  const spec = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i.exec(range);
  if (!spec) return { kind: 'ignore' };
  const [, from = '', to = ''] = spec;
  if ((from === '' && to === '') || (from !== '' && to !== '' && Number(to) < Number(from))) return { kind: 'ignore' };
  return { kind: 'asked', from, to };
}

/** What to do with `range` on a `method` request for a file of `size` bytes. */
export function readRange(method: string, range: string | null | undefined, size: number): RangeReading {
  const asked = askedRange(method, range);
  if (asked.kind !== 'asked') return asked;
  const { from, to } = asked;
  if (from === '') {
    const suffix = Number(to);
    return suffix > 0 && size > 0 ? { kind: 'send', first: Math.max(0, size - suffix), last: size - 1 } : UNSATISFIABLE;
  }
  const first = Number(from);
  if (first >= size) return UNSATISFIABLE;
  return { kind: 'send', first, last: to === '' ? size - 1 : Math.min(Number(to), size - 1) };
}

const UNSATISFIABLE: RangeReading = { kind: 'unsatisfiable' };

/** The Content-Range of a 206 of bytes `first` to `last`, or of a 416 (`bytes *\/size`). */
export function contentRange(size: number, sent?: { first: number; last: number }): string {
  return sent === undefined ? `bytes */${size}` : `bytes ${sent.first}-${sent.last}/${size}`;
}
