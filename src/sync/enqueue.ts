/**
 * Stores sync ops and announces the new ones (`command.updated`, pending), each event owed by the
 * feed outbox (src/events/outbox.ts): the ops of a location are inserted carrying one marker per
 * store write, so a crash or an outage between the insert and the event leaves the marker, and the
 * feed's sweep stores the event later. Ops of no location (a moved terminal's deletes) are never
 * announced and carry none. A pending op replaced by a newer change keeps its record and is not
 * announced again.
 */
import type { EventBus } from '../events/bus.js';
import { newMarker } from '../events/outbox.js';
import type { NewCommand } from '../store/ports/index.js';
import type { Store } from '../store/types.js';

export async function enqueueAnnounced(
  deps: { readonly store: Store; readonly bus: EventBus },
  ops: readonly NewCommand[],
  now: string,
): Promise<{ created: number; replaced: number }> {
  const marker = newMarker();
  const marked = ops.map((op) => (op.location_id === null ? op : { ...op, feed_event: marker }));
  const { created, replaced, inserted } = await deps.store.commands.enqueueSync(marked, now);
  for (const command of inserted)
    deps.bus.emit('command.updated', {
      location_id: command.location_id,
      command,
      ...(command.location_id === null ? {} : { feed_event: marker }),
    });
  return { created, replaced };
}
