/**
 * When a failed delivery is tried again (at least 24 h, exponential back-off, jitter).
 *
 *   attempt   1    2     3     4      5    6    7    8    9 …
 *   then +    5 s  1 min 5 min 30 min 1 h  2 h  4 h  8 h  8 h …   (each ±20 %)
 *
 * until the delivery is 24 h old; one last attempt is made at the 24 h mark, and a failure there
 * (or later) marks it failed. A `Retry-After` from the receiver replaces the computed delay (never
 * earlier than the receiver asked, at most 24 h). The jitter spreads the retries of many
 * deliveries that failed together (a receiver outage) so they do not all return in the same second.
 */
export const RETRY_WINDOW_MS = 24 * 3_600_000;
const DELAYS_MS = [5_000, 60_000, 300_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000];
const JITTER = 0.2;

/** The delay after the `attempts`-th failed attempt (1-based), before jitter. */
export const baseDelayMs = (attempts: number): number => DELAYS_MS[Math.min(attempts, DELAYS_MS.length) - 1] as number;

/**
 * The next attempt after a failure, or null when the delivery has had its 24 h and fails now.
 * `random` in [0, 1) (injected so tests can pin it).
 */
export function nextAttemptAt(
  createdAt: Date,
  now: Date,
  attempts: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): Date | null {
  const deadline = createdAt.getTime() + RETRY_WINDOW_MS;
  if (now.getTime() >= deadline) return null;
  if (retryAfterMs !== null) return new Date(now.getTime() + Math.min(Math.max(retryAfterMs, 1_000), RETRY_WINDOW_MS));
  const delay = baseDelayMs(attempts) * (1 - JITTER + 2 * JITTER * random());
  return new Date(Math.min(now.getTime() + delay, deadline));
}

/** `Retry-After: <seconds>` or `<HTTP-date>` [RFC 9110 §10.2.3] → ms from now; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}
