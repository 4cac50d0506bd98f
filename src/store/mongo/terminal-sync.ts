/**
 * The per-terminal sync state on MongoDB (see ../ports/terminal-sync.ts): `sync_terminals` (`_id` the
 * serial) and `sync_refusals` (`_id` `<sn>:<pin>`). Owed ops are read from `commands` (index
 * mailbox_fifo on sn and status); `params` is JSON text there, so the op is matched on its text and
 * the PIN read from the sync key (`user:<pin>`).
 */
import type { Filter } from 'mongodb';
import type { OwedCounts, OwedPin, SyncRefusal, TerminalSyncPort, TerminalSyncRecord } from '../ports/index.js';
import type { CommandDoc, Collections } from './schema.js';
import { isDuplicateKey, pageOf } from './util.js';

const owedFilter = (sn: string): Filter<CommandDoc> => ({
  sn,
  status: { $in: ['pending', 'sent'] },
  origin: 'sync',
  command: 'sync-users',
  parent_id: null,
});
/** `params` as written by JSON.stringify: `{"op":"user.delete","pin":7}`. */
const opIs = (op: string): Filter<CommandDoc> => ({ params: { $regex: `"op":"${op.replace('.', '\\.')}"` } });
const pinOf = (doc: Pick<CommandDoc, 'sync_key' | 'params'>): number => {
  const fromKey = /^user:(\d+)$/.exec(doc.sync_key ?? '')?.[1];
  if (fromKey !== undefined) return Number(fromKey);
  return Number((JSON.parse(doc.params ?? '{}') as { pin?: unknown }).pin);
};

export function mongoTerminalSync(c: Collections): TerminalSyncPort {
  /** Refusals of the terminal whose PIN is still owed. */
  async function liveRefusals(sn: string): Promise<SyncRefusal[]> {
    const rows = await c.syncRefusals.find({ sn }).sort({ since: 1, pin: 1 }).toArray();
    if (rows.length === 0) return [];
    const keys = rows.map((r) => `user:${r.pin}`);
    // The oldest owed op per PIN: a refusal counts while an op created no later than it is owed.
    const oldest = new Map<string, string>();
    const docs = await c.commands
      .find({ ...owedFilter(sn), sync_key: { $in: keys } }, { projection: { sync_key: 1, created_at: 1 } })
      .toArray();
    for (const d of docs) {
      const key = d.sync_key ?? '';
      const seen = oldest.get(key);
      if (seen === undefined || d.created_at < seen) oldest.set(key, d.created_at);
    }
    return rows
      .filter((r) => {
        const created = oldest.get(`user:${r.pin}`);
        return created !== undefined && created <= r.at;
      })
      .map(({ pin, code, message, since, at }) => ({ pin, code, message, since, at }));
  }
  return {
    async get(sns) {
      if (sns.length === 0) return [];
      const docs = await c.syncTerminals.find({ _id: { $in: [...sns] } }).toArray();
      return docs.map(({ _id, audit_open: _open, ...rest }): TerminalSyncRecord => ({
        sn: _id,
        ...rest,
        audit_started_at: rest.audit_started_at ?? null,
        audit_command_id: rest.audit_command_id ?? null,
      }));
    },
    async claimAudit(sn, locationId, staleBefore, now) {
      // `audit_open`: set by the claim, cleared by the comparison (audited); no expression queries.
      const free = [{ audit_open: { $ne: true } }, { audit_started_at: { $lt: staleBefore } }];
      try {
        const r = await c.syncTerminals.updateOne(
          { _id: sn, $or: free },
          {
            $set: { audit_started_at: now, audit_command_id: null, audit_open: true },
            $setOnInsert: {
              location_id: locationId,
              state: 'unknown',
              reason: null,
              last_confirmed_at: null,
              last_audit_at: null,
              changed_at: now,
            },
          },
          { upsert: true },
        );
        return r.modifiedCount === 1 || r.upsertedCount === 1;
      } catch (e) {
        // The record exists and an audit is outstanding: the filter missed, the upsert hit the _id.
        if (isDuplicateKey(e)) return false;
        throw e;
      }
    },
    async reclaimAudit(sn, commandId, now) {
      const r = await c.syncTerminals.updateOne(
        { _id: sn, audit_command_id: commandId },
        { $set: { audit_started_at: now, audit_command_id: null, audit_open: true } },
      );
      return r.modifiedCount === 1;
    },
    async auditCommand(sn, commandId) {
      await c.syncTerminals.updateOne({ _id: sn }, { $set: { audit_command_id: commandId } });
    },
    async audited(sn, at) {
      await c.syncTerminals.updateOne({ _id: sn }, { $set: { audit_open: false } });
      await c.syncTerminals.updateOne(
        { _id: sn, $or: [{ last_audit_at: null }, { last_audit_at: { $lt: at } }] },
        { $set: { last_audit_at: at } },
      );
    },
    async setState(sn, locationId, from, to, reason, now, marker) {
      if (from === null) {
        try {
          await c.syncTerminals.insertOne({
            _id: sn,
            location_id: locationId,
            state: to,
            reason,
            last_confirmed_at: null,
            last_audit_at: null,
            audit_started_at: null,
            audit_command_id: null,
            changed_at: now,
            ...(marker === undefined ? {} : { sync_event: marker }),
          });
          return true;
        } catch (e) {
          if (isDuplicateKey(e)) return false;
          throw e;
        }
      }
      const set = { location_id: locationId, state: to, reason, changed_at: now };
      const r = await c.syncTerminals.updateOne(
        { _id: sn, state: from },
        marker === undefined ? { $set: set, $unset: { sync_event: '' } } : { $set: { ...set, sync_event: marker } },
      );
      return r.modifiedCount === 1;
    },
    async announced(sn, marker) {
      await c.syncTerminals.updateOne({ _id: sn, sync_event: marker }, { $unset: { sync_event: '' } });
    },
    async unannounced(before, limit) {
      const docs = await c.syncTerminals
        .find({ sync_event: { $exists: true }, changed_at: { $lt: before } }, { projection: { _id: 1, sync_event: 1 } })
        .sort({ changed_at: 1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => ({ sn: d._id, marker: d.sync_event as string }));
    },
    async confirmed(sn, locationId, at) {
      await c.syncTerminals
        .updateOne(
          { _id: sn, $or: [{ last_confirmed_at: null }, { last_confirmed_at: { $lt: at } }] },
          {
            $set: { last_confirmed_at: at },
            $setOnInsert: {
              location_id: locationId,
              state: 'unknown',
              reason: null,
              last_audit_at: null,
              audit_started_at: null,
              audit_command_id: null,
              changed_at: at,
            },
          },
          { upsert: true },
        )
        .catch((e: unknown) => {
          // A newer confirmation won the race (the filter missed, the upsert hit the _id): nothing to do.
          if (!isDuplicateKey(e)) throw e;
        });
    },
    async owed(sns) {
      const out = new Map<string, OwedCounts>();
      for (const sn of sns) {
        const owed = await c.commands.countDocuments(owedFilter(sn));
        if (owed === 0) {
          out.set(sn, { owed: 0, revocations: 0, refused: 0, oldest: null });
          continue;
        }
        const revocations = await c.commands.countDocuments({ ...owedFilter(sn), ...opIs('user.delete') });
        const first = await c.commands
          .find(owedFilter(sn), { projection: { created_at: 1 } })
          .sort({ created_at: 1 })
          .limit(1)
          .next();
        const refused = (await liveRefusals(sn)).length;
        out.set(sn, { owed, revocations, refused, oldest: first?.created_at ?? null });
      }
      return out;
    },
    async owedPins(sn, op, window, locationId = null) {
      const filter = { ...owedFilter(sn), ...opIs(op), ...(locationId === null ? {} : { location_id: locationId }) };
      const total = await c.commands.countDocuments(filter);
      const page = pageOf(window);
      if (!page) return { items: [], total };
      const docs = await c.commands
        .find(filter, { projection: { sync_key: 1, params: 1, created_at: 1 } })
        .sort({ created_at: 1, _id: 1 })
        .skip(page.skip)
        .limit(page.limit)
        .toArray();
      const pins = docs.map(pinOf);
      const refusals = new Map((await c.syncRefusals.find({ sn, pin: { $in: pins } }).toArray()).map((r) => [r.pin, r] as const));
      const items = docs.map((d, i): OwedPin => {
        const pin = pins[i] as number;
        const r = refusals.get(pin);
        return r === undefined || d.created_at > r.at ? { pin, since: d.created_at } : { pin, since: d.created_at, code: r.code };
      });
      return { items, total };
    },
    async refuse(sn, pin, code, message, now) {
      await c.syncRefusals.updateOne(
        { _id: `${sn}:${pin}` },
        { $set: { code, message, at: now }, $setOnInsert: { sn, pin, since: now } },
        { upsert: true },
      );
    },
    async refusals(sn, window) {
      const all = await liveRefusals(sn);
      return { items: all.slice(window.offset, window.offset + window.limit), total: all.length };
    },
    async clearRefusals(sn, confirmed) {
      if (confirmed === undefined) await c.syncRefusals.deleteMany({ sn });
      // Every state refresh after a confirmation asks: a terminal that refused nothing costs a read (index sn_since), no write.
      else if (confirmed.length > 0 && (await c.syncRefusals.findOne({ sn }, { projection: { _id: 1 } })) !== null)
        await c.syncRefusals.bulkWrite(
          confirmed.map(({ pin, at }) => ({ deleteOne: { filter: { _id: `${sn}:${pin}`, at: { $lt: at } } } })),
          { ordered: false },
        );
    },
  };
}
