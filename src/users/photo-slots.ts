/**
 * Photo decoding is CPU work in libvips' threads: at most DECODES_AT_ONCE run on a node, the rest wait in
 * arrival order, and a location may have at most WAITING_PER_LOCATION waiting. A location that sends more at
 * once gets 429 `RATE_LIMITED` (Retry-After: 1) for the excess, so its burst never makes another location's
 * upload wait behind a long queue.
 */
import { BioGateError } from '../errors.js';

export const DECODES_AT_ONCE = 2;
export const WAITING_PER_LOCATION = 4;

export interface DecodeSlots {
  /** Runs `fn` when a slot is free; 429 when the location already has its share waiting. */
  run<T>(locationId: number, fn: () => Promise<T>): Promise<T>;
}

export function createDecodeSlots(atOnce = DECODES_AT_ONCE, perLocation = WAITING_PER_LOCATION): DecodeSlots {
  let running = 0;
  const queue: { readonly locationId: number; readonly start: () => void }[] = [];
  const waitingOf = (locationId: number) => queue.filter((w) => w.locationId === locationId).length;
  return {
    async run(locationId, fn) {
      if (running < atOnce) running++;
      else {
        if (waitingOf(locationId) >= perLocation)
          throw new BioGateError('RATE_LIMITED', 'too many photo uploads of this location at once; retry shortly', {
            headers: { 'Retry-After': '1' },
          });
        // A slot is handed over by the one that ends (running stays counted).
        await new Promise<void>((start) => queue.push({ locationId, start }));
      }
      try {
        return await fn();
      } finally {
        const next = queue.shift();
        if (next) next.start();
        else running--;
      }
    },
  };
}
