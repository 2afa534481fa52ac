// vercel.json's rules as Vercel applies them, without Vercel: compiled by Vercel's own route
// compiler (@vercel/routing-utils, which `vercel build` uses), then evaluated here in order. How
// Vercel reads `has` is not documented for every case; the evaluator reads the decoded last value
// of a key, and an empty value either way (`emptyIsAbsent`), and the tests hold both.

import { getTransformedRoutes } from '@vercel/routing-utils';
import { buildUrl } from '../../../scripts/contract/pagination.ts';
import { type Route, type Routed, resolve } from '../../../scripts/contract/routes.ts';
import type { VercelConfig } from '../../../scripts/targets/vercel/vercel.ts';
import { API } from '../../fixtures/sample.ts';

/** A route's canonical request: its path and query, keys sorted, values form-encoded. */
export const canonicalUrl = (route: Route) => buildUrl('', route.path, route.query);

interface CompiledRoute {
  src?: string;
  dest?: string;
  status?: number;
  headers?: Record<string, string>;
  has?: Array<{ type: string; key?: string; value?: string }>;
  missing?: Array<{ type: string; key?: string; value?: string }>;
  handle?: string;
  continue?: boolean;
  check?: boolean;
}

export type Outcome = { status: 301; location: string } | { status: 200; file: string } | { status: 404 };

/** The compiled routes of `config` (with the compiler's error, null when none). */
export function compileVercel(config: VercelConfig) {
  return getTransformedRoutes({
    rewrites: config.rewrites,
    redirects: config.redirects,
    headers: config.headers,
    cleanUrls: config.cleanUrls,
  });
}

/**
 * What a request gets from the compiled routes over a deployment of `files`, in Vercel's order:
 * redirects and headers, then the file system, then the rewrites (first match).
 */
export function vercelRouter(
  compiled: ReturnType<typeof compileVercel>,
  files: ReadonlySet<string>,
): (target: string, emptyIsAbsent: boolean) => Outcome {
  const routesList = (compiled.routes ?? []) as CompiledRoute[];
  return (target, emptyIsAbsent) => {
    const [path = '', search = ''] = target.split(/\?(.*)/s);
    const params = new URLSearchParams(search);
    // Named groups of a `has` value's regular expression, which a destination's `$name` takes.
    let captured: Record<string, string> = {};
    const holds = (condition: { type: string; key?: string; value?: string }) => {
      if (condition.type !== 'query' || condition.key === undefined)
        throw new Error(`unexpected condition ${JSON.stringify(condition)}`);
      const values = params.getAll(condition.key);
      const value = values.at(-1);
      if (value === undefined || (emptyIsAbsent && value === '')) return false;
      if (condition.value === undefined) return true;
      const match = new RegExp(condition.value).exec(value);
      if (match?.groups) captured = { ...captured, ...match.groups };
      return match !== null;
    };
    let afterFilesystem = false;
    for (const route of routesList) {
      if (route.handle === 'filesystem') {
        afterFilesystem = true;
        // A file is served at its own path before any rewrite.
        if (files.has(decodeURIComponent(path).slice(1)))
          return { status: 200, file: decodeURIComponent(path).slice(1) };
        continue;
      }
      if (route.src === undefined || !new RegExp(route.src).test(path)) continue;
      captured = {};
      if (!(route.has ?? []).every(holds) || (route.missing ?? []).some(holds)) continue;
      if (route.continue) continue;
      if (!afterFilesystem && route.status === 301) return { status: 301, location: route.headers?.Location as string };
      if (route.dest !== undefined) {
        // The compiler passes a condition without a value on as the destination's query (`?format=$format`): a file ignores it.
        const [destinationPath = ''] = route.dest.split('?');
        const file = destinationPath.slice(1).replace(/\$([A-Za-z]\w*)/g, (name, key: string) => {
          const value = captured[key];
          if (value === undefined) throw new Error(`${route.dest}: no capture named ${name}`);
          return value;
        });
        return files.has(file) ? { status: 200, file } : { status: 404 };
      }
    }
    return { status: 404 };
  };
}

/** What DRF answers, as far as Vercel can: the file resolve() names, or a 404 for everything else. */
export function drfOutcome(target: string, files: ReadonlySet<string>, resources: readonly Routed[] = API): Outcome {
  const answer = resolve('GET', target, resources);
  if (answer.kind === 'redirect') return { status: 301, location: answer.location };
  if (answer.kind === 'file' && answer.status === 200 && files.has(answer.file))
    return { status: 200, file: answer.file };
  return { status: 404 };
}
