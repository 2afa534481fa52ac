// A deploy target: the configuration one kind of server or CDN needs to answer like the DRF
// service, generated from the route table. Each target's files go to targets/<name>/.

import type { HeaderRule } from '../contract/headers.ts';
import type { DocumentRoute, FilterRoute, Route, Routed } from '../contract/routes.ts';
import { UserFacingError } from '../shared/errors.ts';
import type { FileBody } from '../shared/file-body.ts';
import type { Limit } from './limits.ts';

/** One object per build, given to every target: code two targets share is made once per context. */
export interface TargetContext {
  routes: readonly Route[];
  /** The documents for people beside the API (planDocuments()): their rules exist only when these do. */
  documents: readonly DocumentRoute[];
  /** The parsed `_headers` rules: the headers every answer carries. */
  headerRules: readonly HeaderRule[];
  /** The resources the routes are of (the route table's part of their declarations). */
  resources: readonly Routed[];
  /** The answers of `prerendered_filters` the build writes (planFilterRoutes()): none when absent. */
  filterRoutes?: readonly FilterRoute[];
  /** The worker's CPU time per request (ms) the user sets for the paid plan, written as wrangler's `limits.cpu_ms`. */
  cpuMs?: number;
}

/**
 * How a target answers the filters, search and orderings the settings file gives a list:
 * `handler`, it runs respond/'s handler (a worker or a function), which answers them at request
 * time; `prerendered`, running no code, it answers a filter of `prerendered_filters` from the
 * build's files and every other filter, search or ordering with an error, never the whole list;
 * `path`, it routes on the path alone and would send the whole list, so it is left out while a
 * list has those settings (selection.ts).
 */
export type QueryAnswers = 'handler' | 'prerendered' | 'path';

/**
 * One deploy target, light: its name, its host's limits and what it answers are data, and the
 * code that writes its files is loaded only when `files()` is called, so that reading the list
 * of targets (the settings do) loads no generator.
 */
export interface Target {
  name: string;
  /** Its host's limits (limits.ts), checked against every build; none for a web server. */
  limits: readonly Limit[];
  queries: QueryAnswers;
  /** Files of targets/<name>/ (path relative to that folder → text). */
  files(context: TargetContext): Promise<Map<string, string>>;
  /**
   * Files the target needs inside the output folder itself, because the hosting service reads them from
   * the published folder (Cloudflare's `.assetsignore`). Only files no other target reads there:
   * wrangler takes a `_redirects` in it for Cloudflare's. Written whichever targets are selected, so
   * that public/ does not depend on `--target`. `output` is the output folder's files so far
   * (Cloudflare's parts of the files too large for its static assets).
   */
  siteFiles?(context: TargetContext, output: ReadonlyMap<string, FileBody>): Map<string, FileBody>;
}

/** A `_headers` rule a target cannot write into its configuration: one line, naming both. */
export class HeadersTargetError extends UserFacingError {
  /** The refusal without the way out, for a build that leaves the target out by itself. */
  readonly refusal: string;
  constructor(target: string, pattern: string, reason: string) {
    const refusal = `target ${target}: the _headers rule ${pattern} ${reason}`;
    super(`${refusal} (leave the target out with --target)`);
    this.refusal = refusal;
  }
}
