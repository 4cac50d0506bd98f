/** The locations port: tenants of the gateway, and the one-time bootstrap claim. */
import type { Iso } from './records.js';

export interface Location {
  readonly id: number;
  readonly name: string;
  /** IANA time zone of the location's devices (default `UTC`). */
  readonly timezone: string;
  readonly is_active: boolean;
  /** Devices may be assigned only with a comm key (README "Security model"). */
  readonly require_comm_key: boolean;
  /** Time cards: a punch within this many seconds of the user's previous one is a repeat (default 60). */
  readonly attendance_debounce_s: number;
  /** Time cards: the local hour a working day starts at (default 0; night shifts set it later). */
  readonly day_start_hour: number;
  /** Punch photos the terminals upload are kept (issue #35 item 4; default false: acknowledged, dropped). */
  readonly attendance_photos: boolean;
  /** Days a punch photo is kept (default 30). */
  readonly attendance_photo_retention_days: number;
  /** The emergency scenario in force (issue #36 item 3: lockdown, evacuate); null: none. */
  readonly scenario: LocationScenario | null;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

export const SCENARIO_NAMES = ['lockdown', 'evacuate'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** A scenario in force: since when, and the location-wide command that started it (null until it is queued). */
export interface LocationScenario {
  readonly name: ScenarioName;
  readonly since: Iso;
  readonly command_id: number | null;
}

/** What an operator may change of a location. */
export type LocationSetting =
  | 'name'
  | 'timezone'
  | 'is_active'
  | 'require_comm_key'
  | 'attendance_debounce_s'
  | 'day_start_hour'
  | 'attendance_photos'
  | 'attendance_photo_retention_days';

/** Time-card settings of a location that never set them. */
export const TIME_CARD_DEFAULTS = { attendance_debounce_s: 60, day_start_hour: 0 } as const;

/** Punch-photo settings of a location that never set them. */
export const PHOTO_DEFAULTS = { attendance_photos: false, attendance_photo_retention_days: 30 } as const;

export interface LocationsPort {
  create(input: { name: string; timezone: string; require_comm_key?: boolean }, now: Iso): Promise<Location>;
  get(id: number): Promise<Location | undefined>;
  list(): Promise<readonly Location[]>;
  count(): Promise<number>;
  /**
   * The location's users and assigned devices as shown (GET /api/me), in one read of the counts the store keeps:
   * SQLite's triggers keep them exact; on MongoDB a crash between a write and its count leaves them off until
   * `reconcileCounts` (quotas use UsersPort.count and DevicesPort.count, always exact).
   */
  counts(id: number): Promise<{ readonly users: number; readonly devices: number }>;
  /** Recounts the kept counts where they can drift (MongoDB; none on SQLite): how many locations were corrected. */
  reconcileCounts(): Promise<number>;
  update(id: number, patch: Partial<Pick<Location, LocationSetting>>, now: Iso): Promise<Location | undefined>;
  /**
   * Puts a scenario in force (or ends it: null). `expected`: the scenario's name in force now (null: none); the
   * write happens only if it still is, so two nodes starting scenarios at once cannot both win. Undefined: not
   * written (no such location, or another scenario is in force).
   */
  setScenario(id: number, expected: ScenarioName | null, scenario: LocationScenario | null, now: Iso): Promise<Location | undefined>;
  /**
   * The one-time bootstrap: writes a unique marker unless one exists, atomically, and
   * answers true for the one caller that wrote it, whatever the number of nodes trying at once.
   * A store that had locations before the marker existed counts as bootstrapped.
   */
  claimBootstrap(node: string, now: Iso): Promise<boolean>;
}
