/**
 * The cluster-wide event feed (DESIGN.md "Events"): what every consumer (MQTT bridge,
 * WebSocket stream, webhooks, console) reads. Producers emit on the in-process bus; the feed turns
 * each public fact into one FeedEvent with a unique id and a per-location sequence number, keeps it
 * in the store for consumers that resume, and delivers it on every node (MongoDB change streams).
 *
 * Payloads are the public API views (DeviceResponse, CommandResponse, AttendanceResponse): never
 * hashes, wire strings, idempotency keys or large result blobs.
 */
export const FEED_EVENT_TYPES = [
  'device.online',
  'device.offline',
  'device.updated',
  'device.sync',
  'command.updated',
  'attendance.recorded',
  'attendance.voided',
  'attendance.photo',
  'presence.changed',
  'door.event',
  'user.changed',
  'area.changed',
  'schedule.changed',
  'access_level.changed',
  'audit.recorded',
  'alert.raised',
  'alert.cleared',
] as const;
export type FeedEventType = (typeof FEED_EVENT_TYPES)[number];

/** A device as GET /api/devices/{sn} shows it, without registry_code and session_id (src/views/device.ts deviceFeedView). */
export type DeviceData = Record<string, unknown> & { serial_number: string; location_id: number | null; is_active: boolean };
/** A terminal's sync state as DeviceResponse.sync shows it. */
export type SyncData = Record<string, unknown> & { state: 'in_sync' | 'syncing' | 'drift' | 'unknown'; owed: number };
/** A command as GET /api/commands/{id} shows it, with `result` cut to null when large. */
export type CommandData = Record<string, unknown> & {
  id: number;
  sn: string | null;
  status: 'pending' | 'sent' | 'success' | 'failed';
  command: string;
};
/** A door or alarm event as GET /api/events shows it. */
export type DoorEventData = Record<string, unknown> & {
  id: number;
  sn: string;
  type: string;
  event: number | null;
  door: number | null;
  meaning: string | null;
};
/** An area as GET /api/areas/{id} shows it (a deleted one: id and name). */
export type AreaData = Record<string, unknown> & { id: number; name: string };
/** An attendance record as GET /api/attendance shows it. */
export type AttendanceData = Record<string, unknown> & {
  id: number;
  /** null for a manual punch */
  sn: string | null;
  pin: string;
  user_id: number | null;
  timestamp: string;
  local_time: string;
};

/** A user's presence as GET /api/presence shows it. */
export type PresenceData = Record<string, unknown> & { pin: string; state: 'in' | 'out' | 'unknown'; since: string; sn: string | null };

/** An audit log entry as GET /api/audit shows it (src/views/audit.ts). */
export type AuditData = Record<string, unknown> & { id: number; action: string; target: { type: string; id: string } };

/** An incident of an alert rule as the feed and webhooks show it (src/views/alert.ts alertEventView). */
export type AlertData = {
  rule: { id: number; name: string; kind: string; webhook_id: number | null };
  key: string;
  since: string;
  cleared_at: string | null;
  detail: Record<string, unknown>;
};

export interface FeedPayloads {
  /** The device reached the location's node (presence transition, owner node only). */
  'device.online': { sn: string; device: DeviceData };
  /** No request within the online threshold, and the device did not merely move to another node. */
  'device.offline': { sn: string; device: DeviceData };
  /** Assignment, name, options, version, trust settings changed; `device.location_id` null = unassigned from this location. */
  'device.updated': { sn: string; device: DeviceData };
  /** The terminal's roster sync state changed: state, owed lines, refusals (GET /api/devices/{sn}/sync without the PIN lists). */
  'device.sync': { sn: string; sync: SyncData };
  /** Every status transition of a command (created pending, sent, success, failed, re-queued). */
  'command.updated': { command: CommandData };
  /** One upload's new (deduplicated) records, or one manual punch (`sn` null). */
  'attendance.recorded': { sn: string | null; records: AttendanceData[] };
  /** A record voided through the API (issue #35 item 3): as GET /api/attendance shows it now, with voided_at and void_reason. */
  'attendance.voided': { record: AttendanceData };
  /** A punch photo kept after its record (issue #35 item 4): the record, and where the JPEG is (never the bytes). At most once. */
  'attendance.photo': { record: AttendanceData; photo_url: string };
  /**
   * Who is in after punches (issue #35 item 2): the location's head count and the presence of the PINs punched, as
   * GET /api/presence shows them; `absent`: PINs punched or voided that have no punch this working day. At most once; GET /api/presence is the truth to read again.
   */
  'presence.changed': { count: number; users: PresenceData[]; absent: string[] };
  /** Door and alarm events (v3 rtlog/rtstate): an item of GET /api/events (code, meaning, type, door, PIN, times, state). */
  'door.event': DoorEventData;
  /** Users written, deactivated or deleted through the API. */
  'user.changed': { pins: number[]; change: 'upserted' | 'deactivated' | 'deleted' };
  /** An area created, renamed or deleted (issue #33): the area as GET /api/areas/{id} shows it (deleted: its id and name). */
  'area.changed': { area: AreaData; change: 'created' | 'updated' | 'deleted' };
  /** A schedule created, changed or deleted (issue #33): as GET /api/schedules/{id} shows it. */
  'schedule.changed': { schedule: Record<string, unknown> & { id: number; name: string }; change: 'created' | 'updated' | 'deleted' };
  /** An access level created, changed or deleted (issue #33): as GET /api/access-levels/{id} shows it. */
  'access_level.changed': { level: Record<string, unknown> & { id: number; name: string }; change: 'created' | 'updated' | 'deleted' };
  /** A change made through the API, the admin API, MQTT requests, the console or the CLI (issue #36 item 1). At most once: GET /api/audit is the record. */
  'audit.recorded': { entry: AuditData };
  /** An alert rule's condition began to hold for `key` (issue #36 item 4); at most once per incident. */
  'alert.raised': AlertData;
  /** It no longer holds: `cleared_at` is set. */
  'alert.cleared': AlertData;
}

export interface FeedEvent<K extends FeedEventType = FeedEventType> {
  /** Unique across the cluster (UUID). */
  readonly id: string;
  /** Per location: 1, 2, 3, … in the order the feed accepted them; consumers resume after one. */
  readonly seq: number;
  readonly location_id: number;
  readonly type: K;
  /** When the fact happened (the injected clock). */
  readonly at: string;
  /** The node that produced it (BIOGATE_NODE_ID). */
  readonly node: string;
  readonly data: FeedPayloads[K];
}

export type AnyFeedEvent = { [K in FeedEventType]: FeedEvent<K> }[FeedEventType];

export interface FeedSubscription {
  close(): void;
}

export interface SubscribeOptions {
  /** One location, or null for every location (admin consumers, the MQTT bridge). */
  readonly locationId: number | null;
  /**
   * Resume: events of `locationId` with seq > after are replayed from the store first (as far as
   * the feed still keeps them), then live ones follow, each exactly once and in order.
   * Omitted: live events only. Needs a single location.
   */
  readonly after?: number;
}

export interface EventFeed {
  /** Events in seq order per location, each exactly once per subscription. The handler must not throw (errors are logged). */
  subscribe(options: SubscribeOptions, handler: (event: AnyFeedEvent) => void): FeedSubscription;
  /** The last sequence number of a location (0 before its first event). */
  latestSeq(locationId: number): Promise<number>;
}
