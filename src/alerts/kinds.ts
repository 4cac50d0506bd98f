/**
 * What each alert kind watches (issue #36 item 4), as a function of the store at a moment: the keys whose condition
 * holds now, each with what was found. Conditions are read afresh every round (no state kept between rounds), so an
 * evaluator that restarts, or runs on another node, reaches the same answer.
 */
import { Type, type TSchema } from 'typebox';
import type { AlertKind, AlertRule, Device, StoredDoorEvent } from '../store/ports/index.js';
import type { Store } from '../store/types.js';

const Minutes = (fallback: number) =>
  Type.Integer({ minimum: 1, maximum: 10_080, default: fallback, description: 'minutes (at most a week)' });

/** Each kind's `params` (defaults filled in). */
export const ALERT_PARAMS: Readonly<Record<AlertKind, TSchema>> = {
  device_offline: Type.Object({ minutes: Minutes(5) }, { additionalProperties: false }),
  door_forced_or_held: Type.Object({}, { additionalProperties: false }),
  alarm: Type.Object({ minutes: Minutes(10) }, { additionalProperties: false }),
  denied_burst: Type.Object(
    { count: Type.Integer({ minimum: 2, maximum: 1_000, default: 5 }), minutes: Minutes(1) },
    { additionalProperties: false },
  ),
  storage_high: Type.Object({ percent: Type.Integer({ minimum: 1, maximum: 100, default: 90 }) }, { additionalProperties: false }),
  sync_drift: Type.Object({ minutes: Minutes(30) }, { additionalProperties: false }),
  webhook_failing: Type.Object({}, { additionalProperties: false }),
};

export const ALERT_KIND_TEXT: Readonly<Record<AlertKind, string>> = {
  device_offline: 'a terminal has not been heard from for `minutes` (default 5); key: the serial',
  door_forced_or_held:
    "a door is forced open or held open past its time, by the terminal's last state report (v3 rtstate); key: serial/door",
  alarm:
    'a terminal reported an alarm (tamper, duress, mains or battery failure, reader tamper, any rtlog alarm code 100–199) in the last `minutes` (default 10) and no "alarm cancelled" since; key: the serial',
  denied_burst: 'a terminal refused `count` (default 5) verifications within `minutes` (default 1); key: the serial',
  storage_high:
    "a terminal's users, fingerprints, faces or punches fill `percent` (default 90) of the capacity it reports; key: the serial",
  sync_drift: "a terminal's roster has been in drift for `minutes` (default 30); key: the serial",
  webhook_failing: 'a webhook subscription of the location is failing or was disabled for failing; key: its id',
};

/** Keys whose condition holds, with what was found. */
export type Found = Map<string, Record<string, unknown>>;

export interface KindContext {
  readonly store: Store;
  readonly now: Date;
  /** The location's assigned terminals, read once per location and round. */
  readonly devices: () => Promise<readonly Device[]>;
}

const ago = (now: Date, minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();
const RECENT = { offset: 0, limit: 1_000 };

/**
 * [PUSH-v3 §7.3] rtstate `alarm`: one byte (two hex digits) per door, its bits from the lowest: accidental open,
 * tamper, duress password, duress fingerprint, door-open timeout, mains failure, battery failure, reader tamper.
 */
const FORCED = 0x01;
const HELD = 0x10;
const ALARM_BITS: ReadonlyArray<readonly [number, string]> = [
  [0x02, 'tamper'],
  [0x04, 'duress password'],
  [0x08, 'duress fingerprint'],
  [0x20, 'mains failure'],
  [0x40, 'battery failure'],
  [0x80, 'reader tamper'],
];

function doorAlarms(state: StoredDoorEvent['state']): number[] {
  const hex = state?.alarm ?? '';
  const bytes: number[] = [];
  for (let i = 0; i + 2 <= hex.length && i < 64; i += 2) bytes.push(Number.parseInt(hex.slice(i, i + 2), 16) || 0);
  return bytes;
}

/** The last state report of each terminal of the location. */
async function lastStates(ctx: KindContext): Promise<Map<string, StoredDoorEvent>> {
  const states = new Map<string, StoredDoorEvent>();
  for (const d of await ctx.devices()) {
    const [last] = (await ctx.store.doorEvents.list(d.location_id ?? 0, { sn: d.serial_number, type: 'state' }, { offset: 0, limit: 1 }))
      .items;
    if (last) states.set(d.serial_number, last);
  }
  return states;
}

/** rtlog codes [PUSH-v3 §7.7]: 7 is "alarm cancelled". */
const ALARM_CANCELLED = 7;

/** Capacity pairs a terminal reports in its options [PUSH-v2 §… "UserCount … ~MaxAttLogCount"; PUSH-v3 §10.5]. */
const CAPACITY: ReadonlyArray<readonly [string, string, readonly string[]]> = [
  ['users', 'UserCount', ['~MaxUserCount', 'MaxUserCount']],
  ['fingerprints', 'FPCount', ['~MaxFingerCount', '~MaxUserFingerCount', 'MaxFingerCount']],
  ['faces', 'FaceCount', ['~MaxFaceCount', 'MaxFaceCount']],
  ['punches', 'TransactionCount', ['~MaxAttLogCount', 'MaxAttLogCount']],
];

export function storageUse(options: Readonly<Record<string, string>> | null): Record<string, number> {
  const use: Record<string, number> = {};
  for (const [what, count, maxima] of CAPACITY) {
    const used = Number(options?.[count]);
    const max = Number(maxima.map((k) => options?.[k]).find((v) => v !== undefined));
    if (Number.isFinite(used) && Number.isFinite(max) && max > 0) use[what] = Math.round((used / max) * 1000) / 10;
  }
  return use;
}

type Evaluate = (ctx: KindContext, rule: AlertRule) => Promise<Found>;

export const EVALUATE: Readonly<Record<AlertKind, Evaluate>> = {
  async device_offline(ctx, rule) {
    const cutoff = ago(ctx.now, rule.params['minutes'] ?? 5);
    const found: Found = new Map();
    for (const d of await ctx.devices()) {
      const last = d.last_seen ?? d.assigned_at ?? d.created_at;
      if (last < cutoff) found.set(d.serial_number, { sn: d.serial_number, name: d.name, last_seen: d.last_seen });
    }
    return found;
  },
  async door_forced_or_held(ctx) {
    const found: Found = new Map();
    for (const [sn, e] of await lastStates(ctx)) {
      doorAlarms(e.state).forEach((byte, i) => {
        const what = [...(byte & FORCED ? ['forced open'] : []), ...(byte & HELD ? ['held open'] : [])];
        if (what.length > 0) found.set(`${sn}/${i + 1}`, { sn, door: i + 1, condition: what, reported_at: e.timestamp });
      });
    }
    return found;
  },
  async alarm(ctx, rule) {
    const from = ago(ctx.now, rule.params['minutes'] ?? 10);
    const loc = rule.location_id;
    const alarms = (await ctx.store.doorEvents.list(loc, { from, type: 'alarm' }, RECENT)).items;
    const cancels = (await ctx.store.doorEvents.list(loc, { from, type: 'normal' }, RECENT)).items.filter(
      (e) => e.event === ALARM_CANCELLED,
    );
    const found: Found = new Map();
    for (const e of alarms) {
      const cancelled = cancels.some((c) => c.sn === e.sn && c.timestamp >= e.timestamp);
      if (!cancelled && !found.has(e.sn)) found.set(e.sn, { sn: e.sn, event: e.event, reported_at: e.timestamp });
    }
    for (const [sn, e] of await lastStates(ctx)) {
      const bits = doorAlarms(e.state).flatMap((byte) => ALARM_BITS.filter(([bit]) => byte & bit).map(([, name]) => name));
      if (bits.length > 0) found.set(sn, { sn, condition: [...new Set(bits)], reported_at: e.timestamp });
    }
    return found;
  },
  async denied_burst(ctx, rule) {
    const from = ago(ctx.now, rule.params['minutes'] ?? 1);
    const count = rule.params['count'] ?? 5;
    const refused = (await ctx.store.doorEvents.list(rule.location_id, { from, type: 'error' }, RECENT)).items;
    const per = new Map<string, number>();
    for (const e of refused) per.set(e.sn, (per.get(e.sn) ?? 0) + 1);
    const found: Found = new Map();
    for (const [sn, n] of per) if (n >= count) found.set(sn, { sn, refused: n, minutes: rule.params['minutes'] ?? 1 });
    return found;
  },
  async storage_high(ctx, rule) {
    const percent = rule.params['percent'] ?? 90;
    const found: Found = new Map();
    for (const d of await ctx.devices()) {
      const use = storageUse(d.options);
      const full = Object.entries(use).filter(([, p]) => p >= percent);
      if (full.length > 0) found.set(d.serial_number, { sn: d.serial_number, percent: Object.fromEntries(full) });
    }
    return found;
  },
  // Drift as GET /api/devices/{sn}/sync says it (src/sync/terminal-state.ts): a refused line still owed; in drift
  // since the oldest such refusal.
  async sync_drift(ctx, rule) {
    const cutoff = ago(ctx.now, rule.params['minutes'] ?? 30);
    const devices = await ctx.devices();
    const owed = await ctx.store.terminalSync.owed(devices.map((d) => d.serial_number));
    const found: Found = new Map();
    for (const d of devices) {
      const counts = owed.get(d.serial_number);
      if (!counts || counts.refused === 0) continue;
      const [first] = (await ctx.store.terminalSync.refusals(d.serial_number, { offset: 0, limit: 1 })).items;
      if (first && first.since <= cutoff)
        found.set(d.serial_number, {
          sn: d.serial_number,
          since: first.since,
          refused: counts.refused,
          reason: `PIN ${first.pin} refused with ${first.code}: ${first.message}`,
        });
    }
    return found;
  },
  async webhook_failing(ctx, rule) {
    const found: Found = new Map();
    for (const w of await ctx.store.webhooks.list(rule.location_id)) {
      const disabled = !w.enabled && w.disabled_reason !== null;
      if (disabled || w.failing_since !== null)
        found.set(String(w.id), {
          webhook_id: w.id,
          url: w.url,
          failing_since: w.failing_since,
          disabled_reason: w.disabled_reason,
          last_error: w.last_error,
        });
    }
    return found;
  },
};
