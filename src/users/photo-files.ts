import { terminalPhotoKey } from '../store/ports/index.js';
import type { Store } from '../store/types.js';

/** Deletes a user's photo files: the photo and the terminals' copy (a user's delete, a photo's delete). */
export async function deletePhotoFiles(store: Store, locationId: number, pin: number): Promise<void> {
  await store.photos.delete(locationId, 'user', String(pin));
  await store.photos.delete(locationId, 'user', terminalPhotoKey(pin));
}
