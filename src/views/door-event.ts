/**
 * Door and alarm events (v3 rtlog / rtstate [PUSH-v3 §7.2, §7.3]) → their public view, with the
 * meaning of each code the protocol reference names; an unnamed code has meaning null.
 */
import { Type } from 'typebox';
import type { DoorEventType, StoredDoorEvent } from '../store/ports/index.js';
import { IsoDateTime, Nullable } from './common.js';

/** [PUSH-v3 §7.7] the codes the reference names (single source S; 3 from a SenseFace 3A, F3). */
export const DOOR_EVENT_MEANINGS: Readonly<Record<number, string>> = {
  0: 'normal verification open',
  3: 'verification (face, reported by a SenseFace 3A)',
  7: 'alarm cancelled',
  8: 'remote open',
  9: 'remote close',
  27: 'user not registered',
  200: 'door opened',
  201: 'door closed',
};

/** The meaning of a type, for the API docs and the README. */
export const DOOR_EVENT_TYPES: Readonly<Record<DoorEventType, string>> = {
  normal: 'rtlog event code 0–19 or 200–253: normal events (verifications, remote open/close, door opened/closed)',
  error: 'rtlog event code 20–99: errors (user not registered, verification refused, …)',
  alarm: 'rtlog event code 100–199: alarms',
  extended: 'rtlog event code 4000–6999: extended events',
  other: 'rtlog event code outside the documented ranges',
  state: 'rtstate report: door sensors, relays and alarm bits as sent',
};

export const doorEventMeaning = (code: number | null): string | null => (code === null ? null : (DOOR_EVENT_MEANINGS[code] ?? null));

const TYPES = Object.keys(DOOR_EVENT_TYPES) as DoorEventType[];
export const DoorEventTypeSchema = Type.Union(
  TYPES.map((t) => Type.Literal(t)),
  {
    description: Object.entries(DOOR_EVENT_TYPES)
      .map(([k, v]) => `\`${k}\`: ${v}`)
      .join('; '),
  },
);

export const DoorEventView = Type.Object(
  {
    id: Type.Integer(),
    sn: Type.String(),
    type: DoorEventTypeSchema,
    event: Nullable(
      Type.Integer({ description: 'rtlog event code (ZKTeco Security PUSH Communication Protocol); null for a state report' }),
    ),
    meaning: Nullable(Type.String({ description: 'What the code means, where the protocol reference names it' })),
    door: Nullable(Type.Integer({ description: 'Door number (rtlog eventaddr, rtstate door)' })),
    pin: Nullable(Type.String({ description: 'The user verified; null when none' })),
    card_no: Nullable(Type.String()),
    verify_type: Nullable(
      Type.String({ description: 'Verification mode code, or a NewVFStyles bit string (Security PUSH Communication Protocol)' }),
    ),
    in_out: Nullable(Type.Integer({ description: '0 in, 1 out' })),
    device_index: Nullable(Type.Integer({ description: "The terminal's record number" })),
    timestamp: IsoDateTime,
    local_time: Type.String({ description: 'YYYY-MM-DD HH:MM:SS as the terminal reported it' }),
    state: Nullable(
      Type.Object(
        {
          sensor: Type.String({ description: 'hex, 2 bits per door: 00 no sensor, 01 closed, 10 open' }),
          relay: Type.String({ description: 'hex, 1 bit per door: 0 connected, 1 disconnected' }),
          alarm: Type.String({
            description:
              'hex, 1 byte per door: accidental open, tamper, duress password, duress fingerprint, door-open timeout, mains failure, battery failure, reader tamper',
          }),
        },
        { description: 'rtstate bit fields as sent (Security PUSH Communication Protocol); null for rtlog events' },
      ),
    ),
    extra: Nullable(
      Type.Record(Type.String(), Type.String(), { description: 'Keys the protocol reference does not name (sitecode, temperature, …)' }),
    ),
    created_at: IsoDateTime,
  },
  { title: 'DoorEvent' },
);

/** The public view: the stored record without its location, with the code's meaning. */
export function doorEventView(e: StoredDoorEvent) {
  const { location_id: _l, ...rest } = e;
  return { ...rest, meaning: doorEventMeaning(e.event) };
}
