/**
 * What this node learns from the others through the event feed, and what it must let go of on the feed's
 * word. Invariants: an event this node wrote is never acted on twice (it acted when it wrote it); whatever
 * the device actors and the credentials keep on the feed's word is dropped when the feed may have missed
 * something (`onDoubt`).
 */
import type { Credentials } from '../auth/credentials.js';
import type { Hub } from '../devices/hub.js';
import type { EventBus } from '../events/bus.js';
import type { ClusterFeed } from '../events/feed.js';

export interface ClusterParts {
  readonly feed: ClusterFeed;
  readonly hub: Hub;
  readonly bus: EventBus;
  readonly credentials: Credentials;
  readonly nodeId: string;
  /** A leader of the named singleton let go: whoever waits for it may take over now. */
  readonly leaderReleased: (name: string) => void;
}

export function followCluster({ feed, hub, bus, credentials, nodeId, leaderReleased }: ClusterParts): void {
  // A command queued on another node for a terminal held here wakes its poll now (not at the next 2 s store
  // check); a device changed there (assigned, unassigned, comm key) loses its poll snapshot here, and a
  // terminal polling here that was assigned there is announced online to its location.
  feed.subscribe({ locationId: null }, (e) => {
    if (e.node === nodeId) return;
    if (e.type === 'device.updated') hub.deviceChanged(e.data.sn, e.data.device.location_id);
    // Presence everywhere: what the node serving a terminal announced (devices/presence.ts).
    if (e.type === 'device.online' || e.type === 'device.offline') hub.presence.announced(e.data.sn, e.type === 'device.online');
    if (e.type !== 'command.updated') return;
    const { sn, status } = e.data.command;
    if (sn !== null && status === 'pending') bus.emit('mailbox.changed', { location_id: e.location_id, sn });
  });
  feed.onDoubt(() => {
    hub.doubt();
    hub.presence.doubt();
    credentials.forgetAll();
  });
  feed.onSystem((e) => {
    if (e.type === 'device.claimed' && e.data.previous === nodeId) hub.released(e.data.sn);
    if (e.type === 'location.changed') {
      hub.locationChanged(e.data.id);
      credentials.forgetLocation(e.data.id);
    }
    if (e.type === 'token.revoked') credentials.forgetToken(e.data.id);
    if (e.type === 'leader.released') leaderReleased(e.data.name);
  });
}
