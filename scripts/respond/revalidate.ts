// Revalidation, shared by the local server and the Cloudflare worker so both answer a
// conditional GET the same way.

/** If-None-Match (RFC 9110 13.1.2): `*` or a list of entity tags, compared weakly. */
export function notModified(ifNoneMatch: string | null | undefined, etag: string | null): boolean {
  if (ifNoneMatch == null || etag === null) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}
