/** Time is injected (STYLE.md §8): presence, long-poll and timeouts take a Clock so tests do not sleep. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const iso = (d: Date): string => d.toISOString();
