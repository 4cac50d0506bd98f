/**
 * The areas port (issue #33 item 1): which terminals know which people. A terminal belongs to at most
 * one area (`Device.area_id`); a user lists its areas (`User.areas`). A terminal without an area holds
 * every active user of its location; a terminal in an area only the active users listing that area.
 */
import type { Iso, Page, Window } from './records.js';

export interface Area {
  readonly id: number;
  readonly location_id: number;
  readonly name: string;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

/** An area with the terminals in it and the users listing it, counted when read. */
export interface CountedArea extends Area {
  readonly devices_count: number;
  readonly users_count: number;
}

export interface AreasPort {
  create(locationId: number, name: string, now: Iso): Promise<CountedArea>;
  get(locationId: number, id: number): Promise<CountedArea | undefined>;
  /** Ordered by id. */
  list(locationId: number, window: Window): Promise<Page<CountedArea>>;
  rename(locationId: number, id: number, name: string, now: Iso): Promise<CountedArea | undefined>;
  /**
   * Deletes the area unless a terminal is in it (`in_use`); the users listing it lose it from their
   * `areas` (a terminal-less area reached no terminal, so nothing is owed to any).
   */
  delete(locationId: number, id: number): Promise<'deleted' | 'in_use' | 'missing'>;
  /** The names of the location's areas by id (a device view names its area), uncounted. */
  names(locationId: number): Promise<Map<number, string>>;
  /** Of these ids, the ones naming an area of the location. */
  existing(locationId: number, ids: readonly number[]): Promise<readonly number[]>;
}

/** Whether the terminal holds this user: active, and in the terminal's area when it has one [issue #33 item 1]. */
export const holdsUser = (
  device: { readonly area_id: number | null },
  user: { readonly is_active: boolean; readonly areas: readonly number[] },
) => user.is_active && (device.area_id === null || user.areas.includes(device.area_id));

/** A user's `areas` as stored: distinct, ascending. */
export const normalAreas = (ids: readonly number[]): number[] => [...new Set(ids)].sort((a, b) => a - b);

/** Most areas one location holds (422 beyond). */
export const MAX_AREAS = 1_000;
