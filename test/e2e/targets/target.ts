// A target is one way of serving the built output: the local server, or a real server or CDN runtime
// started here with the configuration the build emits for it. The same suite runs on each.

export interface RunningTarget {
  /** Origin the tests send requests to, e.g. http://127.0.0.1:41234 */
  origin: string;
  stop(): Promise<void>;
  /** What the server printed so far, where the starter keeps it (wrangler). */
  output?(): string;
}

/** A program the target runs that `npm install` does not bring. */
export interface ProgramNeed {
  /** Its name in the line that says it is missing, e.g. `Apache httpd`. */
  what: string;
  /** The names it may have (found by findProgram of test/installed.ts), or its path. */
  names: readonly string[];
}

export interface Target {
  name: string;
  /**
   * What it needs installed apart, if anything: playwright.config.ts leaves the target out of
   * the run when none of the names is found (and fails the run under CI=true).
   */
  needs?: ProgramNeed;
  /**
   * Serves the build output in `publicDir` on 127.0.0.1:`port`. `targetsDir` holds the deploy
   * targets' files the build wrote (`<targetsDir>/<target name>/`). `workDir` is an empty temp
   * folder the target may use for its configuration, logs and pid files.
   */
  start(options: { publicDir: string; targetsDir: string; port: number; workDir: string }): Promise<RunningTarget>;
}
