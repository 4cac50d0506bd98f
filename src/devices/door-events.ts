/**
 * v3 door and alarm reports (`rtlog` [PUSH-v3 §7.2], `rtstate` [PUSH-v3 §7.3]) → stored door events
 * with structured fields: the event code with its range type and, where the protocol
 * reference names it, its meaning; door, PIN, card, verification, direction; UTC beside the
 * terminal's local time. Nothing here guesses beyond the reference: an unnamed code has meaning null.
 */
import type { DoorEvent, DoorState } from '../../protocols/events.js';
import type { DoorEventType, Location, NewDoorEvent, StoredDoorEvent } from '../store/ports/index.js';
import type { BusEvents } from '../events/bus.js';
import { localToUtc } from '../time/zones.js';

/** [PUSH-v3 §7.7] "0–19 and 200–253 normal events, 20–99 errors, 100–199 alarms, 4000–6999 extended". */
export function doorEventType(code: number): Exclude<DoorEventType, 'state'> {
  if ((code >= 0 && code <= 19) || (code >= 200 && code <= 253)) return 'normal';
  if (code >= 20 && code <= 99) return 'error';
  if (code >= 100 && code <= 199) return 'alarm';
  if (code >= 4000 && code <= 6999) return 'extended';
  return 'other';
}

const wall = (time: string) => time.replace('T', ' ');
const orNull = (text: string) => (text === '' ? null : text);
const noPin = (pin: string) => (pin === '' || pin === '0' ? null : pin);

/** rtlog lines → rows; a line whose time cannot be placed in the location's zone is left out. */
export function doorEventsFromRtlog(sn: string, location: Location, records: readonly DoorEvent[]): NewDoorEvent[] {
  const out: NewDoorEvent[] = [];
  for (const r of records) {
    const local = wall(r.time);
    const timestamp = localToUtc(local, location.timezone);
    if (!timestamp) continue;
    out.push({
      location_id: location.id,
      sn,
      type: doorEventType(r.event),
      event: r.event,
      door: r.door,
      pin: noPin(r.pin),
      card_no: r.cardNo === '0' ? null : orNull(r.cardNo),
      verify_type: orNull(r.verifyType),
      in_out: r.inOutStatus,
      device_index: r.index,
      local_time: local,
      timestamp,
      state: null,
      extra: Object.keys(r.extra).length > 0 ? { ...r.extra } : null,
      // [PUSH-v3 §7.2] "deduplicate on (SN, index, time, pin, event)"
      dedup_key: `rtlog:${r.index ?? ''}:${local}:${r.pin}:${r.event}`,
    });
  }
  return out;
}

/** rtstate lines → rows. */
export function doorEventsFromRtstate(sn: string, location: Location, records: readonly DoorState[]): NewDoorEvent[] {
  const out: NewDoorEvent[] = [];
  for (const r of records) {
    const local = wall(r.time);
    const timestamp = localToUtc(local, location.timezone);
    if (!timestamp) continue;
    const door = Number.parseInt(r.door, 10);
    out.push({
      location_id: location.id,
      sn,
      type: 'state',
      event: null,
      door: Number.isSafeInteger(door) ? door : null,
      pin: null,
      card_no: null,
      verify_type: null,
      in_out: null,
      device_index: null,
      local_time: local,
      timestamp,
      state: { sensor: r.sensor, relay: r.relay, alarm: r.alarm },
      extra: Object.keys(r.extra).length > 0 ? { ...r.extra } : null,
      dedup_key: `rtstate:${local}:${r.door}:${r.sensor}:${r.relay}:${r.alarm}`,
    });
  }
  return out;
}

/** The bus payload of a stored event (src/events/bus.ts `door.event`); the feed renders it. */
export function doorEventBusPayload(e: StoredDoorEvent): BusEvents['door.event'] {
  return { location_id: e.location_id, record: e };
}
