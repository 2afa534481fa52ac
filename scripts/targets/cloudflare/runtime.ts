// What the Cloudflare targets share besides the worker: the runtime version they are written and
// tested for, and the worker's name.

/**
 * The workerd compatibility date of the generated configs and of the tests. Bumping it can
 * change runtime behaviour, so it is a constant, changed on purpose, not "today". It must not
 * be newer than the workerd that wrangler 4.86.0 (the last for Node 20) ships: 2026-04-26.
 */
export const COMPATIBILITY_DATE = '2026-04-01';

/** The Worker's name on Cloudflare; `wrangler deploy --name <name>` deploys it under another. */
export const WORKER_NAME = 'static-drf-api';
