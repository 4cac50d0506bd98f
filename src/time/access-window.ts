/**
 * A user's access window (`start_time`/`end_time`) as instants [API-CONTRACT §6]: a date alone is
 * the location's calendar day (start at 00:00:00, end through 23:59:59 local); a datetime carries
 * its offset, or is read as UTC without one (as the API documents). v3 terminals store the window
 * themselves; for v2 terminals BioGate removes the user outside it and adds them back inside it.
 */
import { localToUtc } from './zones.js';

/** The two edges of a user record's access window, as stored (ISO date or datetime text, or null). */
export interface AccessWindowEdges {
  readonly start_time: string | null;
  readonly end_time: string | null;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** The instant of one edge, ms; the end is exclusive (the first moment the user has no access). */
export function edgeInstant(value: string | null, edge: 'start' | 'end', timeZone: string): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (DATE.test(text)) {
    const iso = localToUtc(`${text} ${edge === 'start' ? '00:00:00' : '23:59:59'}`, timeZone);
    return iso === undefined ? undefined : Date.parse(iso) + (edge === 'end' ? 1000 : 0);
  }
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const zone = m[5] === undefined ? 'Z' : m[5].toUpperCase() === 'Z' ? 'Z' : `${m[5].slice(0, 3)}:${m[5].slice(-2)}`;
  const ms = Date.parse(`${m[1] as string}T${m[2] as string}${m[3] ?? ':00'}${zone}`);
  return Number.isNaN(ms) ? undefined : ms;
}

export type WindowPhase = 'before' | 'inside' | 'after';

export function phaseAt(user: AccessWindowEdges, timeZone: string, now: number): WindowPhase {
  const start = edgeInstant(user.start_time, 'start', timeZone);
  const end = edgeInstant(user.end_time, 'end', timeZone);
  if (start !== undefined && now < start) return 'before';
  if (end !== undefined && now >= end) return 'after';
  return 'inside';
}

/** Whether one of the user's edges falls in (since, until]: their access changed then. */
export function crossedEdge(user: AccessWindowEdges, timeZone: string, since: number, until: number): boolean {
  return [edgeInstant(user.start_time, 'start', timeZone), edgeInstant(user.end_time, 'end', timeZone)].some(
    (e) => e !== undefined && e > since && e <= until,
  );
}
