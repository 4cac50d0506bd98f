/**
 * What a location's working days hold (issue #35): every punch of a range of working days with the users of their
 * PINs, read page by page with a turn of the event loop between pages, and what the rules of src/time/time-cards.ts
 * make of them: the daily time cards and who is in now. The REST API (src/api/time-cards.ts), the presence feed
 * (presence-feed.ts) and the stream's retained snapshot read through here.
 */
import type { Clock } from '../clock.js';
import { BioGateError, invalid } from '../errors.js';
import type { Attendance, AttendanceCursor, AttendanceFilter, Location } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import { presence, timeCards, workingDayAt, type Punch, type TimeCard } from '../time/time-cards.js';
import { timeCardView } from '../views/time-card.js';

/** Lets timers and I/O (other requests, /healthz) run before the next page. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Most working days one request covers. */
export const MAX_DAYS = 93;
/**
 * Most punches one request reads (counted first; beyond, 422: narrow the range or filter by PIN). They are held in
 * memory while the cards are made (some 250 bytes each): 500,000 is a 93-day range of 1,300 people punching 4 times a day.
 */
export const MAX_PUNCHES = 500_000;
/** Punches read per store page. */
const READ_PAGE = 5_000;
/** Users read per store call for the cards' names. */
const NAMES_PAGE = 1_000;
const DAY_MS = 86_400_000;

export interface CardRequest {
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly pin?: string | undefined;
  readonly area_id?: number | undefined;
}

/** The UTC window that holds every punch of working days from…to in any zone and day start (a day's margin each side). */
function windowOf(q: CardRequest & { from: string; to: string }): AttendanceFilter {
  const from = Date.parse(`${q.from}T00:00:00Z`);
  const to = Date.parse(`${q.to}T00:00:00Z`);
  if (to < from) throw invalid(['query', 'to'], 'must not be before from', 'range');
  if ((to - from) / DAY_MS + 1 > MAX_DAYS) throw invalid(['query', 'to'], `at most ${MAX_DAYS} days from from`, 'range');
  return {
    from: new Date(from - 2 * DAY_MS).toISOString(),
    to: new Date(to + 3 * DAY_MS).toISOString(),
    ...(q.pin !== undefined ? { pin: q.pin } : {}),
  };
}

async function* punchesOf(store: Store, locationId: number, filter: AttendanceFilter, now: string): AsyncGenerator<Punch> {
  let after: AttendanceCursor | null = null;
  for (;;) {
    const rows = await store.attendance.listAfter(locationId, after, filter, READ_PAGE, now);
    // A voided record stays readable but leaves the cards and presence (issue #35 item 3).
    for (const r of rows)
      if (r.voided_at === null)
        yield { pin: r.pin, at: Date.parse(r.timestamp), localTime: r.local_time, status: r.status, source: r.source, sn: r.sn };
    if (rows.length < READ_PAGE) return;
    after = rows.at(-1) as Attendance;
    await nextTurn();
  }
}

interface UserFacts {
  readonly name: string | null;
  readonly areas: readonly number[];
}

/**
 * What the days from…to hold: every punch (at most MAX_PUNCHES) and the users of their PINs; `keep` says whether a
 * PIN's row is kept (with `area_id`, only that area's users).
 */
async function readDays(store: Store, clock: Clock, location: Location, q: CardRequest & { from: string; to: string }) {
  if (q.area_id !== undefined && !(await store.areas.get(location.id, q.area_id)))
    throw new BioGateError('AREA_NOT_FOUND', `Area ${q.area_id} not found`);
  const filter = windowOf(q);
  // Every punch stored so far, those of the last seconds too: a report, not a cursor (the feed's settling margin,
  // which keeps a cursor from passing a punch still being written on MongoDB, does not apply).
  const now = new Date(clock.now().getTime() + 60_000).toISOString();
  if ((await store.attendance.count(location.id, filter, MAX_PUNCHES + 1, now)) > MAX_PUNCHES)
    throw invalid(['query'], `more than ${MAX_PUNCHES} punches in this range: narrow from/to or filter by pin`, 'value_error');
  const punches: Punch[] = [];
  for await (const p of punchesOf(store, location.id, filter, now)) punches.push(p);
  const pins = [...new Set(punches.map((p) => p.pin))].filter((p) => /^\d{1,9}$/.test(p)).map(Number);
  const users = new Map<string, UserFacts>();
  for (let i = 0; i < pins.length; i += NAMES_PAGE) {
    for (const u of await store.users.getMany(location.id, pins.slice(i, i + NAMES_PAGE))) {
      const name = [u.first_name, u.last_name].filter(Boolean).join(' ');
      users.set(String(u.pin), { name: name === '' ? null : name, areas: u.areas });
    }
  }
  const area = q.area_id;
  const keep = (pin: string) => area === undefined || users.get(pin)?.areas.includes(area) === true;
  const settings = { debounceS: location.attendance_debounce_s, dayStartHour: location.day_start_hour };
  return { punches, settings, keep, nameOf: (pin: string) => users.get(pin)?.name ?? null };
}

export const today = (clock: Clock, location: Location) => workingDayAt(clock.now().getTime(), location.timezone, location.day_start_hour);

/** PINs with a kept punch on the location's working day `day` (the rows presence had that day). */
export async function pinsOn(store: Store, clock: Clock, location: Location, day: string): Promise<string[]> {
  const days = await readDays(store, clock, location, { from: day, to: day });
  return presence(days.punches, day, days.settings).map((r) => r.pin);
}

/** The cards of the request with their users' names; with `area_id`, only cards of that area's users. */
export async function cardsOf(store: Store, clock: Clock, location: Location, request: CardRequest) {
  const from = request.from ?? request.to ?? today(clock, location);
  const q = { ...request, from, to: request.to ?? from };
  const days = await readDays(store, clock, location, q);
  const cards: TimeCard[] = timeCards(days.punches, q.from, q.to, days.settings).filter((c) => days.keep(c.pin));
  return cards.map((c) => timeCardView(c, days.nameOf(c.pin)));
}

/** Who is in now (today's working day), with how many are in. */
export async function presenceOf(store: Store, clock: Clock, location: Location, areaId: number | undefined) {
  const day = today(clock, location);
  const days = await readDays(store, clock, location, { from: day, to: day, area_id: areaId });
  const rows = presence(days.punches, day, days.settings).filter((r) => days.keep(r.pin));
  const data = rows.map((r) => ({ ...r, name: days.nameOf(r.pin), sn: r.sn === '' ? null : r.sn }));
  return { count: rows.filter((r) => r.state === 'in').length, data };
}
