/**
 * A device moved from location B to location A [API-CONTRACT §6]: B's users are deleted
 * from it before A's roster (sync/queue.ts queueAssignment, which also records `movedAt` when the
 * device holds users BioGate synced for another location), and what it reports from B's time is
 * not A's. Decision: attendance whose device-local time, read in A's time zone, is earlier than the
 * assignment to A was buffered before the move; it is acknowledged (the terminal must not resend it
 * forever) and not recorded for A. A first assignment keeps everything (punches made while a new
 * terminal waited to be assigned are the location's).
 */
import { localToUtc } from '../time/zones.js';

export function afterMove<P extends { readonly time: string }>(
  punches: readonly P[],
  movedAt: string | undefined,
  timeZone: string,
): readonly P[] {
  if (movedAt === undefined) return punches;
  // Times that do not parse go on: the upload path rejects (and counts) them.
  return punches.filter((p) => {
    const utc = localToUtc(p.time.replace('T', ' '), timeZone);
    return utc === undefined || utc >= movedAt;
  });
}
