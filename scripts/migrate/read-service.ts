// Reads the service's lists, as the declarations name them: each plain list, and every page of
// each paginated one. Each answer is kept as bytes (the self-check compares the build's answers
// with them) and parsed; anything that is not a DRF list, or pages that do not add up to their
// count, ends the import with one line naming the URL.

import { DEFAULT_PAGE_SIZE } from '../contract/pagination.ts';
import { countedAs, type Resource } from '../contract/resources/resource.ts';
import { UserFacingError } from '../shared/errors.ts';
import { mapLimited } from '../shared/map-limited.ts';
import { type ClientOptions, type ServiceAnswer, ServiceError, serviceClient } from './client.ts';

/** Why the import stops, in one line naming the URL. Nothing has been written when it is thrown. */
export class ImportError extends UserFacingError {}

export interface FetchedList {
  url: string;
  body: Buffer;
  records: unknown[];
}

export interface FetchedPage {
  url: string;
  page: number;
  body: Buffer;
  results: unknown[];
}

/** The pages of a paginated list. */
export interface FetchedPages {
  /** In page order, from page 1. */
  pages: FetchedPage[];
  /** The records of the list, as its pages count them. */
  count: number;
  /** Its pages' size: page 1's length when there is a page 2; undefined when every record is on page 1. */
  pageSize: number | undefined;
}

export interface ServiceAnswers {
  /** Each list that is not paginated, by resource name, in the declarations' order. */
  lists: ReadonlyMap<string, FetchedList>;
  /** Each paginated list's pages, by resource name, in the declarations' order. */
  paged: ReadonlyMap<string, FetchedPages>;
  /** The page size the build needs to write the same pages (one for every paginated list). */
  pageSize: number;
  /** True when every paginated list fits on its page 1: the service's own page size is then only known to be at least that. */
  onePage: boolean;
}

export interface ReadProgress {
  lists: number;
  /** The lists that are not paginated. */
  listsTotal: number;
  pages: number;
  /** Known once page 1 of every paginated list is read. */
  pagesTotal: number | undefined;
  /** Whose pages: `texture`, or `texture and category`. */
  pagesOf: string;
  bytes: number;
}

interface ReadOptions {
  client?: ClientOptions;
  onProgress?: (progress: ReadProgress) => void;
  /** The lists to read. */
  resources: readonly Resource[];
}

/** A path relative to the base URL, which ends with a slash: `/event/` → `event/`. */
const relative = (path: string) => path.slice(1);
/** As many as the client lets through at once, so that pages never wait behind a queue of their own. */
const PAGE_CONCURRENCY = 4;

/** The request of a paginated list's page, relative to the base URL. */
export const pageUrl = (resource: Pick<Resource, 'path'>, page: number) =>
  page === 1 ? relative(resource.path) : `${relative(resource.path)}?page=${page}`;

function shortly(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** The answer's JSON: a 200 of type application/json that parses, else the reason in one line. */
function jsonOf(answer: ServiceAnswer): unknown {
  if (answer.status !== 200) {
    let detail = '';
    try {
      const body = JSON.parse(answer.body.toString('utf8')) as { detail?: unknown };
      if (typeof body?.detail === 'string') detail = ` ${JSON.stringify(body.detail)}`;
    } catch {
      // Not DRF's error body: the status says enough.
    }
    const location = answer.headers.location;
    const hint =
      answer.status === 404
        ? ": is --from the base URL of the API, the one the lists' paths follow?"
        : answer.status === 401 || answer.status === 403
          ? ': the import sends no credentials, as the API has none'
          : answer.status >= 300 && answer.status < 400 && location !== undefined
            ? `, a redirect to ${String(location)}, which the import does not follow: give --from the URL it leads to`
            : '';
    throw new ImportError(`${answer.url}: the service answered ${answer.status}${detail}${hint}`);
  }
  const type = answer.headers['content-type'];
  const mediaType = String(Array.isArray(type) ? type[0] : (type ?? ''))
    .split(';')[0]
    ?.trim()
    .toLowerCase();
  if (mediaType !== 'application/json') {
    throw new ImportError(
      `${answer.url}: expected a JSON answer (Content-Type application/json), got ${type === undefined ? 'no Content-Type' : JSON.stringify(type)}`,
    );
  }
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch (error) {
    throw new ImportError(`${answer.url}: the answer is not valid JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
}

/**
 * Where a `next` link may lead: the base URL's origin (the import asks no other host), under its
 * path, in the form the build writes (DRF's PageNumberPagination: `?page=N`).
 */
function checkNextLink(from: URL, page: FetchedPage, link: string, expected: string): void {
  const url = URL.canParse(link) ? new URL(link) : undefined;
  const where = `${page.url}: its next link ${JSON.stringify(link)}`;
  if (!url) throw new ImportError(`${where} is not an absolute URL`);
  if (url.origin !== from.origin) {
    throw new ImportError(
      `${where} leads to ${url.origin}, another origin than ${from.origin}; the import follows no link off --from. ` +
        'If that is the service under another name, import from it; if not, the service builds its links from a wrong ' +
        'host (Django: ALLOWED_HOSTS, USE_X_FORWARDED_HOST, SECURE_PROXY_SSL_HEADER)',
    );
  }
  if (!url.pathname.startsWith(from.pathname)) {
    throw new ImportError(
      `${where} is not under ${from.pathname}, the path of --from: behind a proxy that adds a path prefix, ` +
        'Django needs FORCE_SCRIPT_NAME to write its links with it',
    );
  }
  if (link !== expected) {
    throw new ImportError(
      `${where} is not the link to the next page that the build writes (${expected}): only DRF's page-number ` +
        'links (?page=N) can be reproduced',
    );
  }
}

/** A page's envelope, checked: DRF's `{"count", "next", "previous", "results"}`. */
function envelopeOf(answer: ServiceAnswer, page: number): FetchedPage & { count: number; next: unknown } {
  const value = jsonOf(answer) as Record<string, unknown> | null;
  const fields = value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  const count = fields?.count;
  if (
    !fields ||
    typeof count !== 'number' ||
    !Number.isSafeInteger(count) ||
    count < 0 ||
    !Array.isArray(fields.results) ||
    !['string', 'object'].includes(typeof fields.next) ||
    !['string', 'object'].includes(typeof fields.previous)
  ) {
    throw new ImportError(
      `${answer.url}: expected a page of DRF's pagination {"count", "next", "previous", "results"}, got ${shortly(value)}` +
        (fields ? ` with the fields ${Object.keys(fields).join(', ') || 'none'}` : ''),
    );
  }
  return { url: answer.url, page, body: answer.body, results: fields.results, count, next: fields.next };
}

/**
 * One reading of a service: its client, the progress it reports, and the first failure, after
 * which no request is started (the import stops with the first reason).
 */
class ServiceReader {
  private readonly base: URL;
  private readonly client: ReturnType<typeof serviceClient>;
  private readonly progress: ReadProgress;
  /** Each paginated list's page count, once its page 1 is read. */
  private readonly pageCounts = new Map<string, number>();
  private failure: { error: unknown } | undefined;

  constructor(
    from: string,
    private readonly options: ReadOptions,
    private readonly paginated: readonly Resource[],
    listsTotal: number,
  ) {
    this.base = new URL(from);
    this.client = serviceClient(from, options.client);
    this.progress = {
      lists: 0,
      listsTotal,
      pages: 0,
      pagesTotal: paginated.length === 0 ? 0 : undefined,
      pagesOf: paginated.map((resource) => countedAs(resource)[0]).join(' and '),
      bytes: 0,
    };
  }

  /** The first failure, once every read started has settled. */
  get failed(): { error: unknown } | undefined {
    return this.failure;
  }

  private report(): void {
    this.options.onProgress?.({ ...this.progress });
  }

  /** `resource` has `pages` pages: the total is known once every paginated list's page 1 is read. */
  private counted(resource: Resource, pages: number): void {
    this.pageCounts.set(resource.name, pages);
    if (this.pageCounts.size === this.paginated.length)
      this.progress.pagesTotal = [...this.pageCounts.values()].reduce((a, b) => a + b, 0);
  }

  private async ask(url: string): Promise<ServiceAnswer> {
    if (this.failure) throw this.failure.error;
    const answer = await this.client.request(url, { headers: { Accept: 'application/json' } });
    this.progress.bytes += answer.body.length;
    return answer;
  }

  /** `work`, its failure kept as the reading's first when it is. */
  remember<T>(work: Promise<T>): Promise<T> {
    return work.catch((error: unknown) => {
      this.failure ??= { error };
      throw error;
    });
  }

  async readList(url: string): Promise<FetchedList> {
    const answer = await this.ask(url);
    const value = jsonOf(answer);
    if (!Array.isArray(value))
      throw new ImportError(`${answer.url}: expected a JSON array of records, got ${shortly(value)}`);
    this.progress.lists += 1;
    this.report();
    return { url: answer.url, body: answer.body, records: value };
  }

  async readPages(resource: Resource): Promise<FetchedPages> {
    /** A record and records of the list in the messages: `texture`, `textures`. */
    const [RECORD, RECORDS] = countedAs(resource);
    const first = envelopeOf(await this.ask(pageUrl(resource, 1)), 1);
    const count = first.count;
    if (first.next === null) {
      if (first.results.length !== count) {
        throw new ImportError(
          `${first.url}: count is ${count}, but the only page (next is null) holds ${first.results.length} ${RECORDS}`,
        );
      }
      checkDistinctRecords([first], RECORD);
      this.progress.pages += 1;
      this.counted(resource, 1);
      this.report();
      return { pages: [first], count, pageSize: undefined };
    }
    if (typeof first.next !== 'string')
      throw new ImportError(`${first.url}: next is ${shortly(first.next)}, not a link`);
    checkNextLink(this.base, first, first.next, this.linkTo(resource, 2));
    const pageSize = first.results.length;
    if (pageSize === 0 || pageSize >= count) {
      throw new ImportError(
        `${first.url}: count is ${count} and page 1 holds ${pageSize} ${RECORDS}, yet it links to a next page`,
      );
    }
    const pagesTotal = Math.ceil(count / pageSize);
    this.progress.pages += 1;
    this.counted(resource, pagesTotal);
    this.report();

    // The links are known from page 1's (DRF's `?page=N`), so the pages are read several at a
    // time; each page's own next link is then checked to be the page read after it, which is
    // what following them one by one would have read.
    const laterPages = Array.from({ length: pagesTotal - 1 }, (_, index) => index + 2);
    // Every page in flight settles before the first error is thrown, so nothing is asked after the import stops.
    const later = await mapLimited(laterPages, PAGE_CONCURRENCY, (page) =>
      this.remember(this.readPage(resource, page, { count, pageSize, pagesTotal })),
    );
    const pages = [first, ...later];
    checkDistinctRecords(pages, RECORD);
    return { pages, count, pageSize };
  }

  private linkTo(resource: Resource, page: number): string {
    return new URL(pageUrl(resource, page), this.base).href;
  }

  /** Page `page` (from 2) of a list whose page 1 says `count`, `pageSize` a page, `pagesTotal` pages. */
  private async readPage(
    resource: Resource,
    page: number,
    { count, pageSize, pagesTotal }: { count: number; pageSize: number; pagesTotal: number },
  ): Promise<FetchedPage> {
    const RECORDS = countedAs(resource)[1];
    const fetched = envelopeOf(await this.ask(pageUrl(resource, page)), page);
    const last = page === pagesTotal;
    const holds = last ? count - pageSize * (pagesTotal - 1) : pageSize;
    if (fetched.count !== count) {
      throw new ImportError(
        `${fetched.url}: count is ${fetched.count}, but page 1 said ${count}: the service's data changed during the import; run it again`,
      );
    }
    if (fetched.next !== null && typeof fetched.next !== 'string') {
      throw new ImportError(`${fetched.url}: next is ${shortly(fetched.next)}, not a link`);
    }
    if (last && fetched.next !== null) {
      throw new ImportError(
        `${fetched.url}: count is ${count}, so with ${pageSize} ${RECORDS} a page this is the last page, yet it links to a next one`,
      );
    }
    if (!last) checkNextLink(this.base, fetched, fetched.next as string, this.linkTo(resource, page + 1));
    if (fetched.results.length !== holds) {
      throw new ImportError(
        `${fetched.url}: holds ${fetched.results.length} ${RECORDS}, expected ${holds} (count ${count}, ${pageSize} a page)`,
      );
    }
    this.progress.pages += 1;
    this.report();
    return fetched;
  }
}

/** Reads every list of the service at `from` (its base URL, with a trailing slash). */
export async function readService(from: string, options: ReadOptions): Promise<ServiceAnswers> {
  const resources = options.resources;
  const plain = resources.filter((resource) => !resource.paginated);
  const paginated = resources.filter((resource) => resource.paginated);
  const reader = new ServiceReader(from, options, paginated, plain.length);
  const lists = plain.map((resource) => reader.remember(reader.readList(relative(resource.path))));
  const paged = paginated.map((resource) => reader.remember(reader.readPages(resource)));
  // Every read settles before the first error is thrown, so nothing is asked after the import stops.
  await Promise.allSettled([...lists, ...paged]);
  if (reader.failed) throw asImportError(reader.failed.error);
  const read = await Promise.all(paged);
  const byName = new Map(paginated.map((resource, i) => [resource.name, read[i] as FetchedPages]));
  const fetched = await Promise.all(lists);
  return {
    lists: new Map(plain.map((resource, i) => [resource.name, fetched[i] as FetchedList])),
    paged: byName,
    ...onePageSize(paginated, byName),
  };
}

/**
 * The one page size the build needs for every paginated list: the size of their pages where a
 * list has a page 2 (all must agree), else the default, or the longest list when it is longer
 * (every record fits on page 1, so the service's page size is at least that).
 */
function onePageSize(
  paginated: readonly Resource[],
  read: ReadonlyMap<string, FetchedPages>,
): { pageSize: number; onePage: boolean } {
  const listed = paginated.map((resource) => ({ resource, pages: read.get(resource.name) as FetchedPages }));
  const sized = listed.filter(({ pages }) => pages.pageSize !== undefined);
  const [known] = sized;
  if (known === undefined) {
    const longest = Math.max(0, ...listed.map(({ pages }) => pages.count));
    return { pageSize: Math.max(longest, DEFAULT_PAGE_SIZE), onePage: true };
  }
  const size = known.pages.pageSize as number;
  const url = (pages: FetchedPages) => (pages.pages[0] as FetchedPage).url;
  const differing =
    sized.find(({ pages }) => pages.pageSize !== size) ??
    listed.find(({ pages }) => pages.pageSize === undefined && pages.count > size);
  if (differing) {
    const { pages } = differing;
    const shows = pages.pageSize === undefined ? `all ${pages.count} on page 1` : `${pages.pageSize} a page`;
    throw new ImportError(
      `${url(pages)}: shows ${shows}, but ${url(known.pages)} shows ${size} a page: the build writes every paginated ` +
        'list with one page size, so a service whose lists are paginated by different sizes cannot be reproduced',
    );
  }
  return { pageSize: size, onePage: false };
}

function asImportError(error: unknown): unknown {
  return error instanceof ServiceError ? new ImportError(error.message) : error;
}

/** No record on two pages: a service whose order is not total, or whose data changed, can show one twice and miss another. */
function checkDistinctRecords(pages: readonly FetchedPage[], record: string): void {
  const seen = new Map<string, number>();
  for (const page of pages) {
    for (const shown of page.results) {
      const id = shown !== null && typeof shown === 'object' && 'id' in shown ? shown.id : undefined;
      if (id === undefined) continue;
      const key = JSON.stringify(id);
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        throw new ImportError(
          `${page.url}: ${record} ${key} is also on page ${earlier}: the pages show a ${record} twice (and so miss another). ` +
            "The service's order is not total, or its data changed during the import; run it again",
        );
      }
      seen.set(key, page.page);
    }
  }
}
