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
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

export interface LocationsPort {
  create(input: { name: string; timezone: string; require_comm_key?: boolean }, now: Iso): Promise<Location>;
  get(id: number): Promise<Location | undefined>;
  list(): Promise<readonly Location[]>;
  count(): Promise<number>;
  /** The location's users and assigned devices, in one read where the store keeps them (GET /api/me). */
  counts(id: number): Promise<{ readonly users: number; readonly devices: number }>;
  update(
    id: number,
    patch: Partial<Pick<Location, 'name' | 'timezone' | 'is_active' | 'require_comm_key'>>,
    now: Iso,
  ): Promise<Location | undefined>;
  /**
   * The one-time bootstrap: writes a unique marker unless one exists, atomically, and
   * answers true for the one caller that wrote it, whatever the number of nodes trying at once.
   * A store that had locations before the marker existed counts as bootstrapped.
   */
  claimBootstrap(node: string, now: Iso): Promise<boolean>;
}
