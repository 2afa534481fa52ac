// Which request a file of the output answers, for the report: `event/ordering=-id.json` is
// `/event/?ordering=-id`, `virtualbooth-texture/format=api/page=2.json` is
// `/virtualbooth-texture/?format=api&page=2`, `_options/company.json` is `OPTIONS /company/`.

const ERROR_NAMES: Record<string, string> = {
  'not-found': '404 Not found',
  'invalid-page': '404 Invalid page',
  'unsupported-ordering': '400 unsupported ordering',
};

/** The request a file answers; undefined for a file that is not an answer (`_headers`, `_redirects`). */
export function answerOf(file: string): string | undefined {
  if (!file.endsWith('.json')) return undefined;
  const [first, ...rest] = file.slice(0, -'.json'.length).split('/');
  if (first === '_options') return `OPTIONS /${rest.join('/')}/`;
  if (first === '_errors') {
    if (rest[0] === '405') return `405 ${rest[1]}`;
    return ERROR_NAMES[rest.join('/')] ?? `error ${rest.join('/')}`;
  }
  const query = rest.filter((part) => part !== 'index');
  return `/${first}/${query.length === 0 ? '' : `?${query.join('&')}`}`;
}

/** Whether the file is a fixed body: OPTIONS metadata or an error. */
export function isFixedBody(file: string): boolean {
  return file.startsWith('_options/') || file.startsWith('_errors/');
}
