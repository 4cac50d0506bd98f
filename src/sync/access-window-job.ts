/**
 * The v2 access-window scheduler's high-water mark lives in the store (JobsPort), not in a node's
 * memory: a restart resumes from the last swept instant (no edge skipped however long it was down,
 * none repeated), and of several nodes sharing the store exactly one sweeps a given window, since
 * the window is claimed by compare-and-set before it is swept. A sweep that fails hands its window
 * back so the next one covers it again. (A node dying between claim and sweep loses that window's
 * edges; job leases close that gap.)
 */
import type { Store } from '../store/types.js';
import type { SyncQueue } from './queue.js';

export const ACCESS_WINDOW_JOB = 'access-windows';
const DAY_MS = 86_400_000;

/** Sweeps (mark, now] once, if this caller wins the window; returns the ops queued. */
export async function sweepAccessWindowJob(store: Store, sync: SyncQueue, now: Date): Promise<number> {
  const state = await store.jobs.get(ACCESS_WINDOW_JOB);
  const from = state?.mark ?? null;
  // The very first sweep of a deployment looks back a day (edges of users written before it).
  const since = from === null ? new Date(now.getTime() - DAY_MS) : new Date(from);
  if (!(since < now)) return 0;
  const to = now.toISOString();
  if (!(await store.jobs.advance(ACCESS_WINDOW_JOB, from, to, to))) return 0;
  try {
    return (await sync.sweepAccessWindows(since, now)).commands;
  } catch (err) {
    await store.jobs.advance(ACCESS_WINDOW_JOB, to, since.toISOString(), to);
    throw err;
  }
}
