// The entry of the build's worker thread. Node 20 does not pass tsx's module hooks on to a
// worker, so the worker registers them itself before it loads the TypeScript pipeline.

import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
