/**
 * The MongoDB schema's version and the `meta` collection that keeps it (`{ _id: 'schema', version }`). `meta` also
 * holds the store's secrets (`{ _id: 'secret:<name>', value }`, ./secrets.ts).
 */
import type { Collection } from 'mongodb';
import { StoreSchemaNewerError } from '../../errors.js';

/**
 * The schema version of this release on MongoDB: raised with every change a previous release must not run on. A
 * newer one in `meta` stops the start.
 * 1: the feed outbox field `feed_event` (issue #32).
 */
export const SCHEMA_VERSION = 1;

/** `version` on the `schema` document, `value` on a secret's. */
export interface MetaDoc {
  _id: string;
  version?: number;
  value?: string;
}

/** Refuses a database a newer release migrated; records this release's version (never lowers it). */
export async function checkSchemaVersion(meta: Collection<MetaDoc>): Promise<void> {
  const found = (await meta.findOne({ _id: 'schema' }))?.version ?? 0;
  if (found > SCHEMA_VERSION) throw new StoreSchemaNewerError('mongodb', found, SCHEMA_VERSION);
  await meta.updateOne({ _id: 'schema' }, { $max: { version: SCHEMA_VERSION } }, { upsert: true });
}
