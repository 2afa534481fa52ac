// A host target: the configuration one kind of server or CDN needs to answer like the DRF
// service, generated from the route table. Each target's files go to hosts/<name>/.

import type { HeaderRule } from '../api/headers.ts';
import type { Route } from '../api/routes.ts';

export interface HostContext {
  routes: readonly Route[];
  /** The parsed `_headers` rules: the headers every answer carries. */
  headerRules: readonly HeaderRule[];
}

export interface Host {
  name: string;
  /**
   * Files of hosts/<name>/ (path relative to that folder → text). A promise when a file is
   * bundled by esbuild, which works in its own process while the build writes.
   */
  files(context: HostContext): Map<string, string> | Promise<Map<string, string>>;
}
