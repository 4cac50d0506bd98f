/**
 * Quotas per location (issue #32): one tenant cannot fill the shared store. Counts come from the store
 * (SQLite's trigger-kept `location_counts`, MongoDB's counts), never from a node's memory, so they hold
 * with several nodes. A check and the write after it are not one transaction: racing writers can pass a
 * quota by the few writes in flight, never by more.
 */
import { BioGateError } from '../errors.js';
import type { Store } from '../store/types.js';

/** BIOGATE_QUOTA_DEVICES, BIOGATE_QUOTA_USERS, BIOGATE_QUOTA_RECORDS. */
export interface Quotas {
  readonly devices: number;
  readonly users: number;
  readonly records: number;
}

/** Generous defaults (the config schema's), for callers built without a config. */
export const DEFAULT_QUOTAS: Quotas = { devices: 10_000, users: 1_000_000, records: 1_000_000 };

/** 429 QUOTA_EXCEEDED naming the quota (its setting and its value). */
export function quotaExceeded(what: 'devices' | 'users' | 'MiB of photos', limit: number): BioGateError {
  const setting = what === 'devices' ? 'BIOGATE_QUOTA_DEVICES' : what === 'users' ? 'BIOGATE_QUOTA_USERS' : 'BIOGATE_QUOTA_PHOTO_MB';
  return new BioGateError('QUOTA_EXCEEDED', `quota ${setting}: this location holds at most ${limit} ${what}`);
}

/** Whether `adding` more photo bytes (replacing `replacing`) keep the location within BIOGATE_QUOTA_PHOTO_MB. */
export async function photoRoom(store: Store, locationId: number, quotaMb: number, adding: number, replacing = 0): Promise<boolean> {
  return (await store.photos.bytes(locationId)) - replacing + adding <= quotaMb * 1024 * 1024;
}

/** Throws QUOTA_EXCEEDED when one more device would pass the location's devices quota. */
export async function checkDeviceQuota(store: Store, locationId: number, limit: number): Promise<void> {
  if ((await store.devices.count(locationId)) >= limit) throw quotaExceeded('devices', limit);
}

/** How many more users the location may hold (0 when at or over its quota). */
export async function userRoom(store: Store, locationId: number, limit: number): Promise<number> {
  return Math.max(0, limit - (await store.users.count(locationId)));
}

/**
 * Punch photos older than each location's `attendance_photo_retention_days` are deleted, in bounded steps
 * (issue #35 item 4). Returns how many went.
 */
export async function expirePunchPhotos(store: Store, now: Date, step = 1_000): Promise<number> {
  let total = 0;
  for (const location of await store.locations.list()) {
    const before = new Date(now.getTime() - location.attendance_photo_retention_days * 86_400_000).toISOString();
    for (let n = step; n === step; total += n) n = await store.photos.expire(location.id, 'attendance', before, step);
  }
  return total;
}

/**
 * BIOGATE_QUOTA_RECORDS: per location, raw device records and door events beyond the newest `limit`
 * of each are deleted, oldest first, in bounded steps. Returns how many went.
 */
export async function trimToQuota(store: Store, limit: number, step = 5_000): Promise<{ records: number; doorEvents: number }> {
  const total = { records: 0, doorEvents: 0 };
  for (const location of await store.locations.list()) {
    for (let n = step; n === step; total.records += n) n = await store.deviceRecords.trim(location.id, limit, step);
    for (let n = step; n === step; total.doorEvents += n) n = await store.doorEvents.trim(location.id, limit, step);
  }
  return total;
}
