/**
 * Photo bytes in GridFS (issue #35 item 4): bucket `photos`, one file per (location, kind, key) in its
 * metadata, so they stay out of the main collections and mongodump takes them with the rest.
 *
 * No transactions: a replace uploads the new file first, then deletes the older files of the key
 * (ObjectIds below its own), so a reader always finds a whole file (the newest), and of two writers
 * racing on one key the later upload is kept, never neither.
 */
import { GridFSBucket, MongoRuntimeError, type Db, type Filter, type GridFSFile, type ObjectId } from 'mongodb';
import type { PhotoKind, PhotosPort } from '../ports/index.js';

interface PhotoMetadata {
  readonly location_id: number;
  readonly kind: PhotoKind;
  readonly key: string;
  readonly created_at: string;
}

const BUCKET = 'photos';

export async function mongoPhotos(db: Db): Promise<PhotosPort> {
  const bucket = new GridFSBucket(db, { bucketName: BUCKET });
  const files = db.collection<GridFSFile>(`${BUCKET}.files`);
  await files.createIndexes([
    { name: 'photo_key', key: { 'metadata.location_id': 1, 'metadata.kind': 1, 'metadata.key': 1, _id: -1 } },
    { name: 'photo_age', key: { 'metadata.location_id': 1, 'metadata.kind': 1, 'metadata.created_at': 1 } },
  ]);
  const ofKey = (locationId: number, kind: PhotoKind, key: string): Filter<GridFSFile> => ({
    'metadata.location_id': locationId,
    'metadata.kind': kind,
    'metadata.key': key,
  });
  /** Deletes one file; one deleted meanwhile by another node is fine. */
  const drop = async (id: ObjectId): Promise<void> => {
    try {
      await bucket.delete(id);
    } catch (err) {
      if (!(err instanceof MongoRuntimeError && /File not found/i.test(err.message))) throw err;
    }
  };
  const newest = (locationId: number, kind: PhotoKind, key: string) =>
    files.find(ofKey(locationId, kind, key), { sort: { _id: -1 }, limit: 1 }).next();
  const port: PhotosPort = {
    async put(locationId, kind, key, bytes, now) {
      const metadata: PhotoMetadata = { location_id: locationId, kind, key, created_at: now };
      const upload = bucket.openUploadStream(`${locationId}/${kind}/${key}`, { metadata });
      await new Promise<void>((resolve, reject) => {
        upload.once('error', reject);
        upload.end(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), () => resolve());
      });
      const older = await files.find({ ...ofKey(locationId, kind, key), _id: { $lt: upload.id } }, { projection: { _id: 1 } }).toArray();
      for (const f of older) await drop(f._id);
    },
    async get(locationId, kind, key) {
      const file = await newest(locationId, kind, key);
      if (!file) return undefined;
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of bucket.openDownloadStream(file._id)) chunks.push(chunk as Buffer);
      } catch (err) {
        // replaced (deleted) while it was read: the newer file is the answer
        if (err instanceof MongoRuntimeError && /FileNotFound|File not found|ChunkIsMissing/i.test(err.message))
          return port.get(locationId, kind, key);
        throw err;
      }
      return Buffer.concat(chunks);
    },
    async delete(locationId, kind, key) {
      const all = await files.find(ofKey(locationId, kind, key), { projection: { _id: 1 } }).toArray();
      for (const f of all) await drop(f._id);
      return all.length > 0;
    },
    async bytes(locationId) {
      const [row] = await files
        .aggregate<{ n: number }>([{ $match: { 'metadata.location_id': locationId } }, { $group: { _id: null, n: { $sum: '$length' } } }])
        .toArray();
      return row?.n ?? 0;
    },
    async expire(locationId, kind, before, limit) {
      const old = await files
        .find(
          { 'metadata.location_id': locationId, 'metadata.kind': kind, 'metadata.created_at': { $lt: before } },
          { projection: { _id: 1 }, sort: { 'metadata.created_at': 1 }, limit },
        )
        .toArray();
      for (const f of old) await drop(f._id);
      return old.length;
    },
  };
  return port;
}
