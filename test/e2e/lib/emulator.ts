// The local emulators' own failures, not the deployed target's (docs/targets.md, "Two answers of
// the emulators"): under load `wrangler dev` now and then restarts the worker under a request
// (503 "Your worker restarted mid-request"), its runtime goes down for a moment (500 "Network
// connection lost"), or a request gets no answer while it comes back up. Seen now and then, never
// twice in a row for one request: a test asks such a request again after a pause, a few times at
// most, and a failure of the target itself comes back the same and is reported.

/** How many times a request that met the emulator's own failure is asked again. */
export const EMULATOR_RETRIES = 3;

/** The pause before asking again: time for the emulator's runtime to come back. */
const EMULATOR_PAUSE_MS = 2_000;

/** Whether a decoded answer is one of the emulator's own failure pages. */
export function emulatorFailurePage(status: number, body: string): boolean {
  return (
    (status === 503 && body.startsWith('Your worker restarted')) ||
    (status === 500 && body.includes('Network connection lost'))
  );
}

export const pauseForEmulator = (pauseMs = EMULATOR_PAUSE_MS): Promise<void> =>
  new Promise((resume) => setTimeout(resume, pauseMs));

interface EmulatorFetchOptions {
  /** How long one try may wait for the whole answer. */
  timeoutMs: number;
  /** What the emulator printed so far, for the error when every try failed. */
  output?: () => string;
  pauseMs?: number;
}

/**
 * `fetch` of a target under an emulator, with its body: a request that gets no answer within
 * `timeoutMs` or the emulator's failure page is asked again; when every try failed, the error
 * names the request, the last failure and what the emulator printed.
 */
export async function fetchFromEmulator(
  url: string,
  init: RequestInit,
  { timeoutMs, output, pauseMs }: EmulatorFetchOptions,
): Promise<{ response: Response; body: Buffer }> {
  for (let retry = 0; ; retry++) {
    let failure: string;
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
      const body = Buffer.from(await response.arrayBuffer());
      const text = body.toString('utf8');
      if (!emulatorFailurePage(response.status, text)) return { response, body };
      failure = `${response.status} ${text}`;
    } catch (error) {
      failure = String(error);
    }
    const request = `${init.method ?? 'GET'} ${url}`;
    if (retry === EMULATOR_RETRIES)
      throw new Error(`${request}: ${failure} (asked ${retry + 1} times); the emulator printed:\n${output?.() ?? ''}`);
    // Said, so that a run the retry saved still shows how often the emulator failed.
    console.warn(`${request}: ${failure}; asking again`);
    await pauseForEmulator(pauseMs);
  }
}
