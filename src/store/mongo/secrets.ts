/**
 * Secrets on MongoDB (../ports/secrets.ts): a document `{ _id: 'secret:<name>', value }` in `meta`, written once by
 * an upsert with `$setOnInsert` (of two racing upserts of one `_id`, one inserts and the other matches it, or is
 * refused with a duplicate key and reads it), then read back.
 */
import type { Collections } from './schema.js';
import { present, unlessDuplicate } from './util.js';
import type { SecretsPort } from '../ports/index.js';

export function mongoSecrets(c: Collections): SecretsPort {
  return {
    async getOrCreate(name, make) {
      const _id = `secret:${name}`;
      const stored = (await c.meta.findOne({ _id }))?.value;
      if (stored !== undefined) return stored;
      await unlessDuplicate(c.meta.updateOne({ _id }, { $setOnInsert: { value: make() } }, { upsert: true }));
      return present((await c.meta.findOne({ _id }))?.value, `secret "${name}"`);
    },
  };
}
