// Whether a failure shows its stack: DEBUG set to anything but "", "0" or "false" (the commands'
// --debug besides, in cli/fail.ts). The one reading of DEBUG; scripts/command.mjs, which runs before
// anything is compiled, repeats it only to turn on source maps.

const OFF = ['', '0', 'false'];

let requested: boolean | undefined;

/** Read once, where the runtime has an environment (Node, Netlify), never in a Cloudflare worker. */
export function debugRequested(): boolean {
  if (requested === undefined) {
    const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.DEBUG;
    requested = value !== undefined && !OFF.includes(value.trim().toLowerCase());
  }
  return requested;
}
