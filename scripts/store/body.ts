// The body of an answer made of a list's records, made in blocks as it is sent from the records'
// bytes as the parts hold them: never held whole beside them, never decoded and encoded again.

/**
 * Bytes made in chunks as they are sent, and their length: an answer made of a list's records,
 * which is never held whole beside them. `chunks()` makes them anew at each call.
 */
export interface ChunkedBody {
  length: number;
  chunks(): Iterable<Uint8Array>;
}

/**
 * The records of an answer, in its order, where their bytes are held: record `at` is
 * `held[part[at]]` from `from[at]` to before `to[at]`.
 */
export interface HeldRecords {
  held: Uint8Array[];
  part: Int32Array;
  from: Int32Array;
  to: Int32Array;
}

/** The size of the blocks an answer made of records is sent in. */
const BLOCK_BYTES = 256 * 1024;

/**
 * `before`, the records joined by commas, `after`, made in blocks as they are sent: the answer is
 * never held whole besides its records, and a block is a few hundred records' bytes, not one
 * object per record.
 */
export function answerBody(before: Uint8Array, records: HeldRecords, after: Uint8Array): ChunkedBody {
  const { held, part, from, to } = records;
  let length = before.length + after.length + Math.max(0, part.length - 1);
  for (let at = 0; at < part.length; at++) length += (to[at] as number) - (from[at] as number);
  function* chunks(): Generator<Uint8Array> {
    const count = part.length;
    let made = 0;
    let block = new Uint8Array(0);
    let offset = 0;
    const full = () => {
      made += offset;
      return block.subarray(0, offset);
    };
    for (let at = -1; at <= count; at++) {
      const piece =
        at === -1
          ? before
          : at === count
            ? after
            : (held[part[at] as number] as Uint8Array).subarray(from[at] as number, to[at] as number);
      const comma = at > 0 && at < count ? 1 : 0;
      if (offset + comma + piece.length > block.length) {
        if (offset > 0) yield full();
        block = new Uint8Array(Math.min(BLOCK_BYTES, length - made));
        offset = 0;
      }
      if (comma) block[offset++] = 44; // ,
      if (offset + piece.length > block.length) {
        // A record longer than a block is sent as it is held.
        if (offset > 0) yield full();
        made += piece.length;
        yield piece;
        block = new Uint8Array(0);
        offset = 0;
        continue;
      }
      block.set(piece, offset);
      offset += piece.length;
    }
    if (offset > 0) yield full();
  }
  return { length, chunks };
}
