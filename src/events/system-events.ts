/**
 * Node-to-node signals of the event feed. They travel as events of location 0 (SYSTEM_LOCATION): stored and
 * numbered like any other event, followed by every node, never shown to public subscribers and never handed
 * back to the node that sent them.
 */
export const SYSTEM_LOCATION = 0;

export interface SystemEvents {
  /** A node took over a device another node served: that node releases its held polls. */
  'device.claimed': { sn: string; owner: string; previous: string };
  /** A node gave up a leadership (src/events/leader.ts): another takes it now. */
  'leader.released': { name: string };
  /** A location was updated (disabled, time zone, comm key rule) on a node or by the CLI: snapshots of it go. */
  'location.changed': { id: number };
  /** A token was revoked on a node or by the CLI: no node accepts it from now on. */
  'token.revoked': { id: number };
}

export type SystemEvent = { [K in keyof SystemEvents]: { type: K; data: SystemEvents[K]; node: string } }[keyof SystemEvents];
