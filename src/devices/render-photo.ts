/**
 * A user's photo on the wire (issue #35 item 4), rendered with the user's upsert at dispatch from the
 * photo as stored then: `biophoto` to terminals that enrol faces from photos, `userpic` to terminals that
 * show them [PUSH-v3 §11.2]. What is not sent says why in the op's note (its outcome in the terminal's
 * sync state); a terminal that refused the line before is not sent it again [COMMANDS §2.6].
 */
import { learnedUnsupportedMessage, photoTable, type Codec, type DeviceProfile, type EncodeContext } from '../../protocols/index.js';
import { terminalPhotoKey, type Device, type Location, type User } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import { learnedRefusal } from './capabilities.js';

export interface PhotoPart {
  readonly lines: readonly string[];
  /** Why the photo was not sent, when it was not. */
  readonly skipped?: string;
}

const NOTHING: PhotoPart = { lines: [] };

export async function photoPart(
  store: Store,
  codec: Codec,
  device: Device,
  location: Location,
  user: User,
  profile: DeviceProfile,
  ctx: EncodeContext,
): Promise<PhotoPart> {
  if (user.photo === null) return NOTHING;
  if (photoTable(profile) === undefined) return { lines: [], skipped: 'photo: the terminal reports no photo support' };
  const bytes = await store.photos.get(location.id, 'user', terminalPhotoKey(user.pin));
  if (bytes === undefined) return { lines: [], skipped: 'photo: not in the photo store' };
  const r = codec.encodeSync({ op: 'photo.upsert', pin: user.pin, photo: { data: bytes.toString('base64') } }, profile, ctx);
  if (!r.ok) return { lines: [], skipped: `photo: ${r.reason}` };
  const code = r.lines.map((l) => learnedRefusal(device.state, codec.capabilityKey(l))).find((c) => c !== undefined);
  return code === undefined ? { lines: r.lines } : { lines: [], skipped: `photo: ${learnedUnsupportedMessage(code)}` };
}
