/**
 * Punch photos [PUSH-v2 §6.8, PUSH-v3 §7.4 ATTPHOTO] (issue #35 item 4): kept only for a location that opts in
 * (`attendance_photos`), under the key of the punch they show (store/ports/photos.ts punchPhotoKey), so
 * `GET /api/attendance/{id}/photo` finds one whichever arrived first. A photo whose punch is stored already is
 * announced as `attendance.photo` (its URL, never its bytes). Not kept, and acknowledged all the same so the
 * terminal does not resend it: photos of a location that did not opt in or of an unassigned terminal, of a
 * failed verification (no PIN in the file name), anything not a JPEG or over 1 MiB, and photos beyond the
 * location's BIOGATE_QUOTA_PHOTO_MB.
 */
import type { AttendancePhoto } from '../../../protocols/index.js';
import { punchPhotoKey, type Location } from '../../store/ports/index.js';
import { localToUtc } from '../../time/zones.js';
import { nowIso, type Handler, type HandlerContext } from './context.js';

/** The largest punch photo kept. */
export const MAX_PUNCH_PHOTO_BYTES = 1024 * 1024;

const bytesOf = (p: AttendancePhoto): Buffer =>
  p.content.encoding === 'binary' ? Buffer.from(p.content.bytes) : Buffer.from(p.content.text, 'base64');

const isJpeg = (b: Buffer) => b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;

export const attendancePhotos: Handler<'attendancePhotos'> = async (ctx, state, event) => {
  state.accepted += event.records.length;
  const { device, location } = state;
  if (!device || !location?.attendance_photos) return undefined;
  let dropped = 0;
  for (const photo of event.records) {
    const bytes = bytesOf(photo);
    if (photo.pin === '' || photo.time === '' || bytes.length > MAX_PUNCH_PHOTO_BYTES || !isJpeg(bytes)) dropped++;
    else if (!(await keep(ctx, location, photo, bytes))) dropped++;
  }
  if (dropped > 0 && ctx.logBudget.take(ctx.clock.now().getTime()) !== undefined)
    ctx.log.info(
      { dropped, count: event.records.length },
      'punch photos not kept (no PIN, not a JPEG, over 1 MiB, or over the photo quota)',
    );
  return undefined;
};

async function keep(ctx: HandlerContext, location: Location, photo: AttendancePhoto, bytes: Buffer): Promise<boolean> {
  const key = punchPhotoKey(ctx.sn, photo.time, photo.pin);
  if ((await ctx.store.photos.bytes(location.id)) + bytes.length > ctx.config.quotaPhotoMb * 1024 * 1024) return false;
  await ctx.store.photos.put(location.id, 'attendance', key, bytes, nowIso(ctx));
  const timestamp = localToUtc(photo.time, location.timezone);
  if (timestamp === undefined) return true;
  const { items } = await ctx.store.attendance.list(
    location.id,
    { sn: ctx.sn, pin: photo.pin, from: timestamp, to: timestamp },
    { offset: 0, limit: 10 },
  );
  for (const record of items.filter((r) => r.local_time === photo.time))
    ctx.bus.emit('attendance.photo', { location_id: location.id, record });
  return true;
}
