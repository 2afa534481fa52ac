// DRF's content negotiation (DefaultContentNegotiation) for a service with the JSON and the
// browsable API renderers: a request whose Accept names neither type, nor a wildcard that covers
// one, gets 406. A known `format` decides the renderer before Accept is read.

/** DRF's NotAcceptable detail. */
export const NOT_ACCEPTABLE = 'Could not satisfy the request Accept header.';

/** The media types of the two renderers; the browsable API's HTML is answered with the JSON. */
const RENDERED = [
  ['application', 'json'],
  ['text', 'html'],
] as const;

/**
 * Whether DRF would find a renderer for this Accept header (absent: any). As DRF matches: each
 * comma-separated media range, its parameters (q included) ignored, `*` matching any main or sub
 * type. So `application/json;q=0` is still JSON to DRF, and an empty header matches nothing.
 */
export function acceptable(accept: string | null | undefined): boolean {
  if (accept == null) return true;
  return accept.split(',').some((range) => {
    const [type = ''] = range.split(';');
    const [main = '', sub = ''] = type.trim().split('/');
    return RENDERED.some(([m, s]) => (main === '*' || main === m) && (sub === '*' || sub === s));
  });
}
