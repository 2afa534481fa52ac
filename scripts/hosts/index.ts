// Every host target the build can emit configuration for. Add a target here to have
// `npm run build` write it and `--target <name>` select it.

import type { Host } from './host.ts';

export const HOSTS: readonly Host[] = [
];
