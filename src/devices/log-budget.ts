/**
 * Bounds the log volume device traffic can cause: anyone who knows (or invents) a
 * serial number can send garbage, so what such a request puts into the log is truncated
 * (SAMPLE_BYTES per sample, SAMPLES_PER_REQUEST samples) and rate-limited per serial (LogBudget).
 */

/** Longest logged sample of device-sent text, in UTF-8 bytes (the ellipsis included). */
export const SAMPLE_BYTES = 200;
/** Most samples logged for one request. */
export const SAMPLES_PER_REQUEST = 3;

/** `text` cut to at most `max` UTF-8 bytes on a character boundary, marked with `…` when cut. */
export function truncateBytes(text: string, max = SAMPLE_BYTES): string {
  const head = text.length > max ? text.slice(0, max) : text; // never more than max characters are needed
  const bytes = Buffer.from(head, 'utf8');
  if (bytes.length <= max && head.length === text.length) return text;
  let end = Math.min(bytes.length, max - 3); // room for the 3-byte ellipsis
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--; // not inside a multi-byte character
  return `${bytes.subarray(0, end).toString('utf8')}…`;
}

/**
 * At most `perWindow` log lines per window; the next allowed line reports how many were
 * suppressed in between. Time comes from the caller (the injected clock).
 */
export class LogBudget {
  readonly #perWindow: number;
  readonly #windowMs: number;
  #windowStart = Number.NEGATIVE_INFINITY;
  #used = 0;
  #suppressed = 0;

  constructor(perWindow: number, windowMs: number) {
    this.#perWindow = perWindow;
    this.#windowMs = windowMs;
  }

  /** undefined: do not log; otherwise the number of lines suppressed since the last one logged. */
  take(nowMs: number): number | undefined {
    if (nowMs - this.#windowStart >= this.#windowMs) {
      this.#windowStart = nowMs;
      this.#used = 0;
    }
    if (this.#used >= this.#perWindow) {
      this.#suppressed++;
      return undefined;
    }
    this.#used++;
    const suppressed = this.#suppressed;
    this.#suppressed = 0;
    return suppressed;
  }
}
