/**
 * User photos (issue #35 item 4). An upload is JPEG or PNG, at most 1 MiB and 2,000 × 2,000 pixels; it
 * is decoded and re-encoded as a baseline JPEG (EXIF orientation applied, transparency on white, no
 * metadata of any kind kept), so nothing of the file but its pixels survives. The bytes go to the photo
 * store, then the user's photo record is set; a changed photo is sent with the user's upsert to the
 * terminals that hold the user (devices/render-photo.ts), a removed one as `photo.delete`.
 *
 * Decoding runs in libvips' worker threads (sharp), never on the event loop, two at a time per node with a
 * bounded wait per location (photo-slots.ts): one tenant's uploads do not stall another's requests.
 */
import { createHash } from 'node:crypto';
import sharp, { type Metadata } from 'sharp';
import type { Clock } from '../clock.js';
import { BioGateError } from '../errors.js';
import { photoRoom, quotaExceeded } from '../locations/quotas.js';
import { punchPhotoKey, terminalPhotoKey, type Location, type User, type UserPhoto } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import type { SyncQueue } from '../sync/queue.js';
import { deletePhotoFiles } from './photo-files.js';
import type { DecodeSlots } from './photo-slots.js';

/** The largest upload accepted. */
export const MAX_PHOTO_BYTES = 1024 * 1024;
/** The largest width and height accepted. */
export const MAX_PHOTO_SIDE = 2_000;
/** Re-encoding quality of the stored photo. */
const JPEG_QUALITY = 90;
/**
 * The copy terminals receive: at most 480 px a side and 24 KiB, so its base64 line fits a v2 reply (under
 * 40 KB [PUSH-v2 §7.3]); a face terminals enrol from needs no more. The quality steps down until it fits.
 */
export const TERMINAL_PHOTO_SIDE = 480;
export const TERMINAL_PHOTO_BYTES = 24 * 1024;
const TERMINAL_QUALITIES = [85, 75, 65, 55, 45, 35];

sharp.cache(false); // every image is seen once: libvips' operation cache would only hold memory

export interface PhotoDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly sync: Pick<SyncQueue, 'queueUsers' | 'queuePhotoDelete'>;
  /** BIOGATE_QUOTA_PHOTO_MB */
  readonly quotaPhotoMb: number;
  /** The node's decode slots (photo-slots.ts); one per app. */
  readonly decodes: DecodeSlots;
}

const CONTENT_TYPES = new Set(['image/jpeg', 'image/png', 'application/octet-stream']);

/** The image type by its first bytes (JPEG SOI, PNG signature); undefined for anything else. */
function sniff(bytes: Buffer): 'jpeg' | 'png' | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  return undefined;
}

export interface Reencoded {
  readonly bytes: Buffer;
  readonly width: number;
  readonly height: number;
  /** The copy for terminals (TERMINAL_PHOTO_SIDE, TERMINAL_PHOTO_BYTES). */
  readonly terminal: Buffer;
}

/** Checks an upload and re-encodes it; 413, 415 or 422 with what is wrong. */
export async function reencodePhoto(body: Buffer, contentType: string | undefined): Promise<Reencoded> {
  if (body.length > MAX_PHOTO_BYTES)
    throw new BioGateError('PAYLOAD_TOO_LARGE', `a photo is at most ${MAX_PHOTO_BYTES} bytes (1 MiB); this one has ${body.length}`);
  const type = (contentType ?? 'application/octet-stream').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!CONTENT_TYPES.has(type))
    throw new BioGateError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${type || '(empty)'}: send image/jpeg or image/png`);
  const format = sniff(body);
  if (format === undefined || (type !== 'application/octet-stream' && type !== `image/${format}`))
    throw new BioGateError(
      'UNSUPPORTED_MEDIA_TYPE',
      `the body is not ${type === 'application/octet-stream' ? 'a JPEG or PNG' : type} image`,
    );
  let meta: Metadata;
  try {
    meta = await sharp(body, { failOn: 'error' }).metadata();
  } catch {
    throw new BioGateError('PHOTO_INVALID', `the ${format.toUpperCase()} cannot be read`);
  }
  const { width = 0, height = 0 } = meta;
  if (width < 1 || height < 1 || width > MAX_PHOTO_SIDE || height > MAX_PHOTO_SIDE)
    throw new BioGateError('PHOTO_INVALID', `the photo is ${width} × ${height} pixels; at most ${MAX_PHOTO_SIDE} × ${MAX_PHOTO_SIDE}`);
  try {
    const { data, info } = await sharp(body, { failOn: 'error', limitInputPixels: MAX_PHOTO_SIDE * MAX_PHOTO_SIDE })
      .rotate()
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: JPEG_QUALITY })
      .toBuffer({ resolveWithObject: true });
    return { bytes: data, width: info.width, height: info.height, terminal: await terminalCopy(data) };
  } catch {
    throw new BioGateError('PHOTO_INVALID', `the ${format.toUpperCase()} cannot be decoded`);
  }
}

async function terminalCopy(jpeg: Buffer): Promise<Buffer> {
  const small = sharp(jpeg).resize({ width: TERMINAL_PHOTO_SIDE, height: TERMINAL_PHOTO_SIDE, fit: 'inside', withoutEnlargement: true });
  let copy = Buffer.alloc(0);
  for (const quality of TERMINAL_QUALITIES) {
    copy = await small.clone().jpeg({ quality }).toBuffer();
    if (copy.length <= TERMINAL_PHOTO_BYTES) return copy;
  }
  // Noise at the lowest quality: a smaller picture still fits.
  return sharp(jpeg).resize({ width: 240, height: 240, fit: 'inside' }).jpeg({ quality: 35 }).toBuffer();
}

async function userOf(store: Store, location: Location, pin: number): Promise<User> {
  const user = await store.users.get(location.id, pin);
  if (!user) throw new BioGateError('USER_NOT_FOUND', `No user with PIN ${pin} in your location`);
  return user;
}

/**
 * Stores the user's photo and, when it changed, queues the user's upsert (which carries it) to the
 * terminals that hold the user. `created`: the user had no photo.
 */
export async function putPhoto(
  deps: PhotoDeps,
  location: Location,
  pin: number,
  body: Buffer,
  contentType: string | undefined,
): Promise<{ photo: UserPhoto; created: boolean }> {
  const before = await userOf(deps.store, location, pin);
  const image = await deps.decodes.run(location.id, () => reencodePhoto(body, contentType));
  const sha256 = createHash('sha256').update(image.bytes).digest('hex');
  if (before.photo?.sha256 === sha256) return { photo: before.photo, created: false };
  // The terminals' copy being replaced is not counted back (at most TERMINAL_PHOTO_BYTES).
  if (!(await photoRoom(deps.store, location.id, deps.quotaPhotoMb, image.bytes.length + image.terminal.length, before.photo?.size ?? 0)))
    throw quotaExceeded('MiB of photos', deps.quotaPhotoMb);
  const now = deps.clock.now().toISOString();
  await deps.store.photos.put(location.id, 'user', terminalPhotoKey(pin), image.terminal, now);
  await deps.store.photos.put(location.id, 'user', String(pin), image.bytes, now);
  const photo: UserPhoto = { format: 'jpeg', size: image.bytes.length, width: image.width, height: image.height, sha256, updated_at: now };
  // The user deleted meanwhile: its photo goes with it.
  if (!(await deps.store.users.setPhoto(location.id, pin, photo))) {
    await deletePhotoFiles(deps.store, location.id, pin);
    throw new BioGateError('USER_NOT_FOUND', `No user with PIN ${pin} in your location`);
  }
  await deps.sync.queueUsers(location.id, [pin], 'user.upsert', { heldOnly: true });
  return { photo, created: before.photo === null };
}

/** A punch's photo (issue #35 item 4): 404 ATTENDANCE_NOT_FOUND for no such record, PHOTO_NOT_FOUND when none was kept. */
export async function punchPhoto(store: Store, location: Location, id: number): Promise<Buffer> {
  const record = await store.attendance.get(location.id, id);
  if (!record) throw new BioGateError('ATTENDANCE_NOT_FOUND', `No attendance record ${id} in your location`);
  const bytes =
    record.source === 'device'
      ? await store.photos.get(location.id, 'attendance', punchPhotoKey(record.sn, record.local_time, record.pin))
      : undefined;
  if (bytes === undefined) throw new BioGateError('PHOTO_NOT_FOUND', `No photo of attendance record ${id} is kept`);
  return bytes;
}

/** The stored JPEG and its record; 404 PHOTO_NOT_FOUND when the user has none. */
export async function getPhoto(store: Store, location: Location, pin: number): Promise<{ photo: UserPhoto; bytes: Buffer }> {
  const user = await userOf(store, location, pin);
  const bytes = user.photo === null ? undefined : await store.photos.get(location.id, 'user', String(pin));
  if (user.photo === null || bytes === undefined) throw new BioGateError('PHOTO_NOT_FOUND', `The user with PIN ${pin} has no photo`);
  return { photo: user.photo, bytes };
}

/** Clears the photo record, deletes the bytes and queues `photo.delete` to the terminals holding the user. */
export async function deletePhoto(deps: PhotoDeps, location: Location, pin: number): Promise<void> {
  const user = await userOf(deps.store, location, pin);
  if (user.photo === null) throw new BioGateError('PHOTO_NOT_FOUND', `The user with PIN ${pin} has no photo`);
  await deps.store.users.setPhoto(location.id, pin, null);
  await deletePhotoFiles(deps.store, location.id, pin);
  await deps.sync.queuePhotoDelete(location.id, pin);
}
