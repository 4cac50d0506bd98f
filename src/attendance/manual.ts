/**
 * Manual punches and voids (issue #35 item 3). A manual punch is a record with `source: 'manual'`, no terminal
 * (`sn` '' in the store, null in the view), the reason and the token that entered it; it is written with its
 * `attendance.recorded` outbox marker like a terminal's upload (src/devices/uploads.ts), so the event is announced at
 * least once. A void marks any record (a terminal's too) with `voided_at` and `void_reason`: records are never edited
 * or deleted through the API, a voided one stays readable and leaves the time cards and presence. `attendance.voided`
 * is stored right after the write, at most once (like `area.changed`).
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { BioGateError, invalid } from '../errors.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../log.js';
import type { Attendance, Location, Token } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import { localToUtc, wallClockAt } from '../time/zones.js';
import { MANUAL_VERIFY } from '../views/attendance.js';

/** A manual punch may be this far ahead of the gateway's clock (a client's clock a little fast), no further. */
const FUTURE_MARGIN_MS = 60_000;
/** RFC 3339 with an offset (`Z`, `+02:00`), or a wall-clock time in the location's zone without one. */
const TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/;

export interface ManualDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly log: Logger;
}

export interface ManualPunch {
  readonly pin: number;
  readonly timestamp: string;
  readonly status?: number | undefined;
  readonly reason: string;
}

interface Caller {
  readonly location: Location;
  readonly token: Token;
}

/** The punch's instant: with an offset as given, without one on the location's wall clock. */
function instantOf(text: string, location: Location): number {
  const m = TIME.exec(text);
  const utc = !m ? undefined : m[4] !== undefined ? Date.parse(text.replace(' ', 'T')) : localToUtc(`${m[1]} ${m[2]}`, location.timezone);
  const ms = typeof utc === 'string' ? Date.parse(utc) : utc;
  if (ms === undefined || !Number.isFinite(ms))
    throw invalid(
      ['body', 'timestamp'],
      'must be an RFC 3339 date-time (2026-03-02T08:00:00+01:00), or one without an offset in the location’s zone',
    );
  return ms;
}

/** `YYYY-MM-DD HH:MM:SS` on the location's wall clock at `ms`, as a terminal would have stamped it. */
const localTimeAt = (ms: number, tz: string) => new Date(wallClockAt(ms, tz)).toISOString().slice(0, 19).replace('T', ' ');

export function createManualAttendance(deps: ManualDeps) {
  const { store, clock, bus } = deps;
  return {
    /** Stores a manual punch of an existing user; 409 ATTENDANCE_EXISTS for the same PIN, time and status twice. */
    async record(caller: Caller, punch: ManualPunch): Promise<Attendance> {
      const { location, token } = caller;
      const ms = instantOf(punch.timestamp, location);
      const now = clock.now();
      if (ms > now.getTime() + FUTURE_MARGIN_MS) throw invalid(['body', 'timestamp'], 'must not be in the future');
      const user = await store.users.get(location.id, punch.pin);
      if (!user) throw new BioGateError('USER_NOT_FOUND', `User ${punch.pin} not found`);
      const feedEvent = randomUUID();
      const [record] = await store.attendance.record(
        [
          {
            location_id: location.id,
            sn: '',
            pin: String(punch.pin),
            user_id: user.id,
            timestamp: new Date(Math.floor(ms / 1000) * 1000).toISOString(),
            local_time: localTimeAt(ms, location.timezone),
            status: punch.status ?? 0,
            verify: MANUAL_VERIFY,
            work_code: null,
            manual: { reason: punch.reason, token_id: token.id, label: token.label },
          },
        ],
        now.toISOString(),
        feedEvent,
      );
      if (!record) throw new BioGateError('ATTENDANCE_EXISTS', `A manual punch of ${punch.pin} at ${punch.timestamp} exists already`);
      bus.emit('attendance.recorded', { location_id: location.id, records: [record], feed_event: feedEvent });
      return record;
    },

    /** Voids a record of the caller's location; 404 when there is none, 409 when it is voided already. */
    async void(caller: Caller, id: number, reason: string): Promise<Attendance> {
      const { location } = caller;
      const voided = await store.attendance.voidRecord(location.id, id, reason, clock.now().toISOString());
      if (voided === undefined) throw new BioGateError('ATTENDANCE_NOT_FOUND', `Attendance record ${id} not found`);
      if (voided === 'voided') throw new BioGateError('ATTENDANCE_VOIDED', `Attendance record ${id} is voided already`);
      const stored = await bus
        .emitStored('attendance.voided', { location_id: location.id, record: voided, feed_event: randomUUID() })
        .catch(() => false);
      if (!stored)
        deps.log.warn({ location_id: location.id, id }, 'attendance.voided could not be stored in the feed; the record is voided');
      return voided;
    },
  };
}

export type ManualAttendance = ReturnType<typeof createManualAttendance>;
