/**
 * Storing what devices upload: attendance (deduplicated, local time + UTC) and
 * biometric templates. Every function resolves only after the store has the
 * data, so the reply that acknowledges it comes after [PUSH-v2 §2.2].
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type {
  AttendanceRecord,
  BioTemplate,
  DoorEvent,
  AccessRecord,
  FaceTemplate,
  FingerprintTemplate,
  FingerVeinTemplate,
} from '../../protocols/index.js';
import type { Store } from '../store/types.js';
import type { BioType, Device, Location, NewAttendance, TemplateInput } from '../store/ports/index.js';
import type { EventBus } from '../events/bus.js';
import { wallClock, wallToUtc } from '../time/zones.js';

export interface Punch {
  readonly pin: string;
  readonly time: string;
  readonly status: number;
  readonly verify: number;
  readonly workCode: string | null;
}

export const fromAttlog = (r: AttendanceRecord): Punch => ({
  pin: r.pin,
  time: r.time,
  status: r.status ?? 0,
  verify: r.verify ?? 0,
  workCode: r.workCode || null,
});

/** [PUSH-v3 §7.7] rtlog events that are a person's successful verification: 0 normal open, 1–5 verified variants, 14/15/17 first-card and combos. */
const PUNCH_EVENTS = new Set([0, 1, 2, 3, 4, 5, 14, 15, 16, 17]);

export function punchFromRtlog(e: DoorEvent): Punch | undefined {
  if (!e.pin || e.pin === '0' || !PUNCH_EVENTS.has(e.event)) return undefined;
  return { pin: e.pin, time: e.time, status: e.inOutStatus ?? 0, verify: Number.parseInt(e.verifyType, 10) || 0, workCode: null };
}

export const punchFromAccess = (r: AccessRecord): Punch | undefined =>
  r.pin && r.pin !== '0' ? { pin: r.pin, time: r.time, status: r.inOutState ?? 0, verify: r.verified ?? 0, workCode: null } : undefined;

/**
 * Punches are stored in slices sized to keep the event loop busy about SLICE_MS each (converting
 * and storing, measured on the previous slice, between MIN_SLICE and MAX_SLICE records); between slices the
 * event loop runs other requests. An 8 MiB ATTLOG upload (~240,000 records) in one go blocked
 * every request for seconds.
 */
const SLICE_MS = 8;
const MIN_SLICE = 50;
const MAX_SLICE = 5_000;

/** Lets timers and I/O run before the next slice. */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Stores punches; returns how many were accepted (stored or already known) and the new records.
 * Works in slices that yield to the event loop (see SLICE_MS); each slice is stored before the
 * next, and the promise resolves only when all are, so the device's OK still means "stored"
 * [PUSH-v2 §2.2]. A failure part-way leaves earlier slices stored: the device resends the batch
 * and duplicates are ignored (attendance is deduplicated).
 */
export async function recordPunches(
  store: Store,
  bus: EventBus,
  device: Device,
  location: Location,
  punches: readonly Punch[],
  now: string,
) {
  let accepted = 0;
  let stored = 0;
  let rejected = 0;
  const toUtc = converterFor(location.timezone);
  let size = MIN_SLICE * 2;
  for (let start = 0; start < punches.length;) {
    if (start > 0) await yieldToLoop();
    const began = performance.eventLoopUtilization();
    const slice = punches.slice(start, start + size);
    start += slice.length;
    const numericPins = [
      ...new Set(
        slice
          .map((p) => p.pin)
          .filter((p) => /^\d{1,8}$/.test(p))
          .map(Number),
      ),
    ];
    const users = new Map((await store.users.getMany(location.id, numericPins)).map((u) => [String(u.pin), u.id]));
    const valid: NewAttendance[] = [];
    for (const p of slice) {
      const timestamp = toUtc(p.time);
      if (!timestamp || p.pin.length > 24) {
        rejected++;
        continue;
      }
      valid.push({
        location_id: location.id,
        sn: device.serial_number,
        pin: p.pin,
        user_id: users.get(String(Number(p.pin))) ?? null,
        timestamp,
        local_time: p.time.replace('T', ' '),
        status: p.status,
        verify: p.verify,
        work_code: p.workCode,
      });
    }
    accepted += valid.length;
    if (valid.length > 0) {
      // The rows carry their feed event's outbox marker from the same write (src/events/outbox.ts): a
      // crash before the event is stored leaves it owed, never lost.
      const feedEvent = randomUUID();
      const records = await store.attendance.record(valid, now, feedEvent);
      stored += records.length;
      if (records.length > 0) bus.emit('attendance.recorded', { location_id: location.id, records, feed_event: feedEvent });
    }
    // Sized by the time the event loop was busy, not the wall time: waiting for a remote store
    // (MongoDB) blocks nobody, and counting it would shrink the slices for nothing.
    const msPerRecord = performance.eventLoopUtilization(began).active / slice.length;
    size = Math.min(MAX_SLICE, Math.max(MIN_SLICE, Math.round(SLICE_MS / Math.max(msPerRecord, 1e-4))));
  }
  return { accepted, stored, rejected };
}

/**
 * One converter per time zone for the process, so an hour's offset is worked out once, not once per
 * upload (terminals post every few seconds, mostly within the same hour). Bounded: a
 * zone's hours are cleared past 10,000, and the zones are the locations' (few).
 */
const converters = new Map<string, (local: string) => string | undefined>();

function converterFor(tz: string): (local: string) => string | undefined {
  let c = converters.get(tz);
  if (!c) {
    if (converters.size >= 1_000) converters.clear();
    converters.set(tz, (c = utcConverter(tz)));
  }
  return c;
}

const HOUR_MS = 3_600_000;

/**
 * localToUtc for one time zone, with the UTC offset memoised per local hour: converting costs
 * two Intl calls, which for 240,000 punches was seconds of blocked event loop. An hour whose
 * first and last second have the same offset has it throughout (a zone changes offset at most
 * once an hour); an hour with a change (a DST transition) is converted exactly, record by record.
 * A record is parsed once, to a number (the text round trips were a tenth of an upload).
 */
function utcConverter(tz: string): (local: string) => string | undefined {
  const offsets = new Map<number, number | null>(); // wall-clock hour → offset ms; null: convert exactly
  return (local) => {
    const wall = wallClock(local);
    if (wall === undefined) return undefined;
    const hour = Math.floor(wall / HOUR_MS);
    let offset = offsets.get(hour);
    if (offset === undefined) {
      const first = hour * HOUR_MS;
      const last = first + HOUR_MS - 1_000;
      const atFirst = first - wallToUtc(first, tz);
      offset = atFirst === last - wallToUtc(last, tz) ? atFirst : null;
      if (offsets.size > 10_000) offsets.clear();
      offsets.set(hour, offset);
    }
    return new Date(offset === null ? wallToUtc(wall, tz) : wall - offset).toISOString();
  };
}

type AnyTemplate =
  | { kind: 'fingerprint'; t: FingerprintTemplate }
  | { kind: 'face'; t: FaceTemplate }
  | { kind: 'vein'; t: FingerVeinTemplate }
  | { kind: 'bio'; t: BioTemplate };

export const bioTypeOf = (typeIndex: number): BioType =>
  typeIndex === 1
    ? 'fingerprint'
    : typeIndex === 2 || typeIndex === 9
      ? 'face'
      : typeIndex === 6 || typeIndex === 8 || typeIndex === 10
        ? 'palm'
        : 'other'; // 10: visible-light palm [PUSH-v2 §9.4]
const int = (v: string | undefined): number => (v !== undefined && /^\d+/.test(v) ? Number.parseInt(v, 10) : 0);

/** A device template → the store's shape; undefined for PINs the API cannot hold or unusable data. */
export function templateInput(device: Device, x: AnyTemplate): TemplateInput | undefined {
  if (!/^\d{1,8}$/.test(x.t.pin) || Number(x.t.pin) < 1 || !x.t.usable) return undefined;
  const options = device.options ?? {};
  const base = {
    user_pin: Number(x.t.pin),
    data: x.t.template,
    size: x.t.template.length,
    source_sn: device.serial_number,
    template_index: 0,
    format: 0,
    minor_ver: 0,
  };
  switch (x.kind) {
    case 'fingerprint':
      return {
        ...base,
        bio_type: 'fingerprint',
        type_index: 1,
        finger_id: x.t.fingerIndex,
        valid: x.t.valid ?? 1,
        duress: x.t.duress,
        major_ver: int(options['FPVersion'] ?? options['ZKFPVersion']),
        source_format: 'legacy',
      };
    case 'face':
      return {
        ...base,
        bio_type: 'face',
        type_index: 2,
        finger_id: x.t.faceIndex ?? 0,
        valid: x.t.valid ?? 1,
        duress: false,
        major_ver: int(options['FaceVersion']),
        source_format: 'legacy',
      };
    case 'vein':
      return {
        ...base,
        bio_type: 'other',
        type_index: 7,
        finger_id: x.t.fingerIndex,
        template_index: x.t.index ?? 0,
        valid: x.t.valid ?? 1,
        duress: false,
        major_ver: int(options['FvVersion']),
        source_format: 'legacy',
      };
    case 'bio':
      return {
        ...base,
        bio_type: bioTypeOf(x.t.type),
        type_index: x.t.type,
        finger_id: x.t.no,
        template_index: x.t.index,
        valid: x.t.valid ?? 1,
        duress: x.t.duress,
        major_ver: int(x.t.majorVer),
        minor_ver: int(x.t.minorVer),
        format: x.t.format ?? 0,
        source_format: 'biodata',
      };
    default: {
      const never: never = x;
      return never;
    }
  }
}

/** Stores templates; returns accepted count and the PINs whose templates changed. */
export async function recordTemplates(store: Store, device: Device, location: Location, items: readonly AnyTemplate[], now: string) {
  let accepted = 0;
  let skipped = 0;
  const changedPins = new Set<number>();
  for (const item of items) {
    const input = templateInput(device, item);
    if (!input) {
      skipped++;
      continue;
    }
    const r = await store.templates.upsert(location.id, input, now);
    accepted++;
    if (r.changed) changedPins.add(input.user_pin);
  }
  return { accepted, skipped, changedPins: [...changedPins] };
}
