import { createHash } from 'node:crypto';
import type { Iso } from './records.js';

/** Whose photo: a user's (key: the PIN) or a punch's (key: the attendance record's id). */
export type PhotoKind = 'user' | 'attendance';

/** What the user record keeps of its photo (issue #35 item 4); the bytes are in the photo store. */
export interface UserPhoto {
  /** Always JPEG: uploads are decoded and re-encoded. */
  readonly format: 'jpeg';
  readonly size: number;
  readonly width: number;
  readonly height: number;
  /** SHA-256 of the stored bytes, hex: the HTTP ETag. */
  readonly sha256: string;
  readonly updated_at: Iso;
}

/**
 * Photo bytes, kept outside the main tables (SQLite: files beside the database, their sizes in a small
 * table; MongoDB: GridFS bucket `photos`). Every call names the location; a key is unique per
 * location and kind.
 */
export interface PhotosPort {
  /** Stores the bytes under the key, replacing what was there (readers see the old or the new bytes, whole). */
  put(locationId: number, kind: PhotoKind, key: string, bytes: Uint8Array, now: Iso): Promise<void>;
  get(locationId: number, kind: PhotoKind, key: string): Promise<Buffer | undefined>;
  /** True when something was deleted. */
  delete(locationId: number, kind: PhotoKind, key: string): Promise<boolean>;
  /** Bytes the location's photos of every kind take (the photo quota). */
  bytes(locationId: number): Promise<number>;
  /** Deletes at most `limit` of the location's photos of the kind stored before `before`, oldest first; how many went. */
  expire(locationId: number, kind: PhotoKind, before: Iso, limit: number): Promise<number>;
}

/**
 * The key of the copy of a user's photo that terminals receive (users/photos.ts terminalCopy): small enough for
 * a v2 reply (under 40 KB [PUSH-v2 §7.3]); the photo itself is under the PIN.
 */
export const terminalPhotoKey = (pin: number): string => `${pin}-terminal`;

/**
 * The key of a punch's photo: the punch as the terminal names it (its serial, its local time
 * `YYYY-MM-DD HH:MM:SS`, the PIN), hashed into a file-safe name. The photo and the record arrive apart, in
 * either order [PUSH-v2 §6.8]; each finds the other through this key.
 */
export function punchPhotoKey(sn: string, localTime: string, pin: string): string {
  return createHash('sha256').update(`${sn}\u0000${localTime}\u0000${pin}`).digest('hex').slice(0, 40);
}
