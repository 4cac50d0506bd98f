/**
 * A subscription's `filter` (issue #36 item 5): which of the events of its types it gets.
 *
 * Every key given must match, and an event without that field does not: a filter on `sn` or `area_id` drops
 * events with no terminal (a manual punch, `user.changed`), one on `pin` drops events with no PIN, one on
 * `event_codes` everything but door events. `area_id` is the terminal's area when the delivery is made. An
 * attendance upload is cut to its matching records and dropped when none matches.
 */
import type { StoredEvent, WebhookFilter } from '../store/ports/index.js';

/** A terminal's area (null: none; undefined: not a terminal of the location). */
export type AreaOf = (sn: string) => number | null | undefined;

interface Facets {
  readonly sn: string | null;
  readonly pin: string | null;
  readonly code: number | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const int = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {});

/** The filterable fields of an event other than an attendance upload. */
function facetsOf(type: string, data: Record<string, unknown>): Facets {
  switch (type) {
    case 'command.updated':
      return { sn: str(obj(data['command'])['sn']), pin: null, code: null };
    case 'attendance.voided':
    case 'attendance.photo': {
      const record = obj(data['record']);
      return { sn: str(record['sn']), pin: str(record['pin']), code: null };
    }
    case 'door.event':
      return { sn: str(data['sn']), pin: str(data['pin']), code: int(data['event']) };
    default:
      return { sn: str(data['sn']), pin: null, code: null };
  }
}

function matches(f: WebhookFilter, x: Facets, areaOf: AreaOf): boolean {
  if (f.sn && (x.sn === null || !f.sn.includes(x.sn))) return false;
  if (f.area_id) {
    const area = x.sn === null ? null : areaOf(x.sn);
    if (area === null || area === undefined || !f.area_id.includes(area)) return false;
  }
  if (f.pin && (x.pin === null || !f.pin.includes(x.pin))) return false;
  if (f.event_codes && (x.code === null || !f.event_codes.includes(x.code))) return false;
  return true;
}

/** The event's data as this subscription gets it, or null when the filter drops the event. */
export function filtered(f: WebhookFilter | null, e: Pick<StoredEvent, 'type' | 'data'>, areaOf: AreaOf): unknown {
  if (f === null) return e.data;

  const data = obj(e.data);
  if (e.type !== 'attendance.recorded') return matches(f, facetsOf(e.type, data), areaOf) ? e.data : null;
  const records = Array.isArray(data['records']) ? (data['records'] as unknown[]) : [];
  const kept = records.filter((r) => {
    const record = obj(r);
    return matches(f, { sn: str(record['sn']) ?? str(data['sn']), pin: str(record['pin']), code: null }, areaOf);
  });
  return kept.length === 0 ? null : { ...data, records: kept };
}

/** True when the filter needs the terminals' areas (looked up once per collected page). */
export const needsAreas = (f: WebhookFilter | null): boolean => f?.area_id !== undefined;
