/** The users port: a location's users by PIN; every change marks the sync outbox (sync-outbox.ts). */
import type { Iso, Page, Window } from './records.js';
import type { UserPhoto } from './photos.js';

export interface User {
  readonly id: number;
  readonly location_id: number;
  readonly pin: number;
  readonly first_name: string | null;
  readonly last_name: string | null;
  readonly card_no: string | null;
  readonly password: number | null;
  readonly is_active: boolean;
  /** `YYYY-MM-DD` or an ISO datetime in UTC, as the client gave it [API-CONTRACT §1]. */
  readonly start_time: string | null;
  readonly end_time: string | null;
  readonly privilege: number;
  readonly group: number;
  readonly super_authorize: number;
  /** The areas whose terminals hold the user (issue #33): ids, distinct and ascending; [] = only terminals without an area. */
  readonly areas: readonly number[];
  /** The access levels (issue #33 item 4): ids, distinct and ascending; [] = schedule 1 through every door. */
  readonly access_levels: readonly number[];
  /** The user's photo (issue #35 item 4), written only by `setPhoto`; the bytes are in the photo store. */
  readonly photo: UserPhoto | null;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
  /** Organisational attributes, trimmed, 1..100 characters, or null: kept by BioGate, never sent to a terminal. */
  readonly department: string | null;
  readonly position: string | null;
}

/** Fields a write may set; absent keys keep stored values on update. */
export type UserFields = Partial<Omit<User, 'id' | 'location_id' | 'pin' | 'photo' | 'created_at' | 'updated_at'>>;

/** The fields a user write may set, in their documented order (API bodies, imports, both adapters). */
export const USER_FIELDS = [
  'first_name',
  'last_name',
  'card_no',
  'password',
  'is_active',
  'start_time',
  'end_time',
  'privilege',
  'group',
  'super_authorize',
  'areas',
  'access_levels',
  'department',
  'position',
] as const satisfies readonly (keyof UserFields)[];

/**
 * Fields no terminal holds: a write that changes only these marks no sync outbox entry (nothing is owed to any
 * terminal, and no `user.changed` is announced for it).
 */
export const OFF_TERMINAL_FIELDS: ReadonlySet<keyof UserFields> = new Set(['department', 'position']);

export interface UserFilter {
  readonly search?: string;
  readonly privilege?: number;
  readonly is_active?: boolean;
  readonly pins?: readonly number[];
  /** Exact, case-sensitive match of the stored value. */
  readonly department?: string;
  readonly position?: string;
  /** Exact match, ignoring ASCII case (as SQLite's lower() and MongoDB's $toLower fold). */
  readonly first_name?: string;
  readonly last_name?: string;
  /** Users whose `areas` list this area id. */
  readonly area?: number;
}

export interface UpsertResult {
  readonly user: User;
  readonly created: boolean;
  /** True when a stored field actually changed (false for a no-op update). */
  readonly changed: boolean;
  /**
   * True when the write marked the sync outbox (created, or a field a terminal holds changed): the outbox then queues
   * the terminals' lines and announces `user.changed`. A change of OFF_TERMINAL_FIELDS alone is `changed` but not this.
   */
  readonly synced: boolean;
}

/**
 * Writes (upsert, upsertMany, delete, deactivate) mark the sync outbox for every user they change
 * (see OutboxEntry), except an update that changes only OFF_TERMINAL_FIELDS; a write that changes
 * nothing leaves an earlier entry as it was.
 */
export interface UsersPort {
  /** Create (defaults applied) or patch the user with this PIN. Atomic per user. */
  upsert(locationId: number, pin: number, fields: UserFields, now: Iso): Promise<UpsertResult>;
  /** Many upserts; each item is atomic on its own. Order of results = order of input. */
  upsertMany(locationId: number, items: readonly { pin: number; fields: UserFields }[], now: Iso): Promise<UpsertResult[]>;
  get(locationId: number, pin: number): Promise<User | undefined>;
  getMany(locationId: number, pins: readonly number[]): Promise<readonly User[]>;
  getById(locationId: number, id: number): Promise<User | undefined>;
  /** Ordered by pin ascending. */
  list(locationId: number, filter: UserFilter, window: Window): Promise<Page<User>>;
  count(locationId: number): Promise<number>;
  /** Deletes the user and their templates. Returns the user as it was. `now` stamps the outbox entry. */
  delete(locationId: number, pin: number, now?: Iso): Promise<User | undefined>;
  /** Sets is_active=false on the given pins (all users when null); returns the users that were active. */
  deactivate(locationId: number, pins: readonly number[] | null, now: Iso): Promise<readonly User[]>;
  /**
   * Pins of every active user, ascending; with `areaId`, only those listing that area (a terminal of
   * that area holds exactly these [issue #33]). `null` or absent: every active user.
   */
  activePins(locationId: number, areaId?: number | null): Promise<readonly number[]>;
  /**
   * Sets or clears the user's photo record (the bytes are written to the photo store first); the user as it
   * is now, or undefined when there is no such user. `updated_at` is not touched: a photo is not a user edit.
   */
  setPhoto(locationId: number, pin: number, photo: UserPhoto | null): Promise<User | undefined>;
  /** Active users with a start_time or end_time (the access-window scheduler). */
  withAccessWindow(locationId: number): Promise<readonly User[]>;
}
