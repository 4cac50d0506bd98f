/** The devices port: terminals by serial number, their assignment to a location and their session. */
import type { Unannounced } from './cluster.js';
import type { Iso, Page, Window } from './records.js';
import type { ProtocolVersion } from '../../../protocols/index.js';

export type { ProtocolVersion };

export interface Device {
  readonly id: number;
  readonly serial_number: string;
  readonly name: string;
  readonly location_id: number | null;
  /** The area of the location the terminal is in (issue #33); null = none: it holds every active user. */
  readonly area_id: number | null;
  /** The operator's door settings by door number (issue #33 item 5); a door absent keeps the terminal's own. */
  readonly doors: Readonly<Record<string, DoorSetting>>;
  readonly registry_code: string | null;
  readonly session_id: string | null;
  readonly registered_at: Iso | null;
  readonly options: Readonly<Record<string, string>> | null;
  readonly version: ProtocolVersion | null;
  /** Operator-pinned dialect (POST /api/devices `version`); wins over detection. */
  readonly version_override: ProtocolVersion | null;
  /** SHA-256 of the comm key, hex; the key is never stored or returned. */
  readonly comm_key_hash: string | null;
  /** Canonical CIDRs the device's requests must come from; null = any address (README "Security model"). */
  readonly allowed_networks: readonly string[] | null;
  /**
   * [PUSH-v3 §5] When the terminal first presented the token of its registration (registry code + session):
   * from then on every request must carry it. Null = not bound (never registered, or reset).
   */
  readonly token_bound_at: Iso | null;
  /** The client address the token was first presented from (with `token_bound_at`); null while not bound. */
  readonly token_bound_address: string | null;
  /**
   * [PUSH-v3 §3] When registration was allowed for this serial: its first contact spoke Security PUSH
   * (a v3 handshake or the registry request itself), or an operator with the full scope accepted or reset
   * it. Null: a `registry` request is refused (406), so a terminal first seen polling as v2 is never
   * switched to v3 nor bound to a token by whoever knows its serial.
   */
  readonly registration_accepted_at: Iso | null;
  /** What the runtime learned about this device; null until it learns something. */
  readonly state: DeviceState | null;
  readonly last_seen: Iso | null;
  readonly last_address: string | null;
  readonly assigned_at: Iso | null;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

/** What the roster state, the audit schedule and area filters read of an assigned device (DevicesPort.listAssignedBrief). */
export type DeviceBrief = Pick<Device, 'serial_number' | 'location_id' | 'last_seen' | 'assigned_at' | 'area_id'>;

/** A door's settings as the operator set them (PUT /api/devices/{sn}/doors/{n}). */
export interface DoorSetting {
  /** Seconds the lock stays open, 1–254 (`Door<n>Drivertime`). */
  readonly unlock_seconds: number;
  /** The schedule during which the door stays open (`Door<n>KeepOpenTimeZone`); null = never. */
  readonly normal_open_schedule_id: number | null;
}

/** Runtime knowledge about one device, persisted so eviction and restarts keep it. */
export interface DeviceState {
  /** [COMMANDS §2.6] capability key → the Return code that taught "unsupported". */
  readonly unsupported?: Readonly<Record<string, number>>;
  /** Firmware version the learning applies to; learning resets when it changes. */
  readonly firmware?: string;
  /** [PUSH-v2 §4.7] answer `ATTLOGStamp=0` on the next handshake (full attendance re-upload). */
  readonly attlogReupload?: boolean;
  /**
   * When the device, moved from another location, was assigned to its current one: what it reports
   * from before (attendance stamped earlier) belongs to the old location and is not recorded.
   */
  readonly movedAt?: Iso;
  /**
   * The group (composite command id) of the deletes of the users BioGate synced to the device for its
   * previous location: while any of them is outstanding the device is handed nothing else.
   */
  readonly moveGroup?: number;
}

export interface DeviceFilter {
  readonly search?: string;
  /** Online filter: last_seen >= this instant (true) or older/null (false). */
  readonly online?: { readonly value: boolean; readonly since: Iso };
}

/** What a terminal's own requests change on its record (handshake, polls, registration): one list for both adapters. */
export const DEVICE_SESSION_FIELDS = [
  'registry_code',
  'session_id',
  'registered_at',
  'options',
  'version',
  'state',
  'last_seen',
  'last_address',
  'token_bound_at',
  'token_bound_address',
  'registration_accepted_at',
] as const satisfies readonly (keyof Device)[];

export type DeviceSessionPatch = Partial<Pick<Device, (typeof DEVICE_SESSION_FIELDS)[number]>>;

/** A device whose `device.updated` is still owed (the feed outbox, OutboxTable in ./cluster.ts). */
export interface OwedDevice extends Unannounced<Device> {
  /** The location whose feed owes it: the device's, or the one it was unassigned from. */
  readonly location_id: number;
}

/**
 * `feedEvent` of assign, unassign and resetRegistration: the device is written carrying this outbox
 * marker, with the location whose feed owes the event, in the same write (an operator's change
 * announced as `device.updated`).
 */
export interface DevicesPort {
  getBySerial(sn: string): Promise<Device | undefined>;
  /** getBySerial's few fields (DeviceBrief), assigned or not, without parsing options and state (the roster state's refresh). */
  briefBySerial(sn: string): Promise<DeviceBrief | undefined>;
  /** A device of this location (undefined when unassigned or elsewhere). */
  get(locationId: number, sn: string): Promise<Device | undefined>;
  list(locationId: number, filter: DeviceFilter, window: Window): Promise<Page<Device>>;
  listAssigned(locationId: number): Promise<readonly Device[]>;
  /**
   * The assigned devices' few fields (DeviceBrief) that the roster state, the audit schedule and area filters need,
   * of one location or (null) of every location, by serial: no options or state parsed (a full row costs ~30 µs,
   * 300 ms for 10,000 terminals).
   */
  listAssignedBrief(locationId: number | null): Promise<readonly DeviceBrief[]>;
  count(locationId: number): Promise<number>;
  countUnassigned(): Promise<number>;
  /** Devices that contacted the gateway without being assigned, by serial (`biogate device unassigned`). */
  listUnassigned(window: Window): Promise<Page<Device>>;
  /** Records a device seen on the wire (unassigned), or returns it when it exists. Atomic. */
  ensure(sn: string, now: Iso): Promise<Device>;
  /**
   * [PUSH-v3 §3] Marks the serial's first contact: true for exactly one caller, however many nodes race
   * (a compare-and-set on the stored record), false once any request of the serial was served before.
   */
  claimFirstContact(sn: string, now: Iso): Promise<boolean>;
  /**
   * Assigns `sn` to the location unless it belongs to another one. Creates the record when missing.
   * Atomic: two locations racing for one serial cannot both win.
   */
  assign(
    locationId: number,
    sn: string,
    input: {
      name: string | null;
      version_override?: ProtocolVersion | null;
      comm_key_hash?: string | null;
      allowed_networks?: readonly string[] | null;
      /** An area of the location, checked by the caller; absent keeps the stored one. */
      area_id?: number | null;
    },
    now: Iso,
    feedEvent?: string,
  ): Promise<{ outcome: 'assigned' | 'already' | 'other-location'; device: Device }>;
  /**
   * The operator's patch of a device of the location (PATCH /api/devices/{sn}): absent keys keep their
   * value. The device as it was and as it is; undefined when it is not the location's.
   */
  update(
    locationId: number,
    sn: string,
    patch: { readonly name?: string; readonly area_id?: number | null; readonly doors?: Readonly<Record<string, DoorSetting>> },
    now: Iso,
    feedEvent?: string,
  ): Promise<{ before: Device; after: Device } | undefined>;
  /** Whether `sn` was ever assigned to the location (BIOGATE_DEVICE_CLAIM=admin); the record survives unassignment and eviction. */
  seenIn(locationId: number, sn: string): Promise<boolean>;
  /** Deletes an unassigned device (the admin's): `assigned` and `missing` delete nothing. Atomic. */
  deleteUnassigned(sn: string): Promise<'deleted' | 'assigned' | 'missing'>;
  /**
   * Deletes up to `limit` unassigned devices last seen (or, never seen, first recorded) before `before`;
   * returns how many went. Idempotent: nodes sweeping at once delete each device once.
   */
  evictUnassigned(before: Iso, limit: number): Promise<number>;
  /** Unassigns (its area, the location's, goes too) when it belongs to the location; idempotent. Returns the device as it was, if it was. */
  unassign(locationId: number, sn: string, now: Iso, feedEvent?: string): Promise<Device | undefined>;
  /**
   * Operator-triggered (re-)registration [PUSH-v3 §3.3]: forgets the registry code, session and token binding
   * of the location's device and sets `registration_accepted_at`, so the terminal's next registry request
   * registers it. Undefined when the device is not the location's.
   */
  resetRegistration(locationId: number, sn: string, now: Iso, feedEvent?: string): Promise<Device | undefined>;
  /** Devices still owing their feed event, by marker then id, at most `limit`. */
  unannounced(limit: number): Promise<readonly OwedDevice[]>;
  /**
   * Session/presence fields written by the device runtime; `marked`: the outbox marker of the
   * device.updated event this write owes the location's feed (src/events/outbox.ts).
   */
  updateSession(
    sn: string,
    patch: DeviceSessionPatch,
    now: Iso,
    marked?: { readonly feedEvent: string; readonly locationId: number },
  ): Promise<Device | undefined>;
  /** Write-behind of last_seen for many devices at once. */
  touchMany(entries: readonly { sn: string; last_seen: Iso; last_address: string | null }[]): Promise<void>;
}
