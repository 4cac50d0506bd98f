/** Daily time cards and presence → their public views (GET /api/attendance/daily and its CSV, GET /api/presence; src/time/time-cards.ts). */
import { Type, type Static } from 'typebox';
import type { TimeCard } from '../time/time-cards.js';
import { Nullable } from './common.js';

const LocalDateTime = (description: string) =>
  Type.String({ description: `${description}: local date-time with the location's offset then, e.g. 2026-03-29T08:00:00+02:00` });

export const TimeCardView = Type.Object(
  {
    pin: Type.String({ description: 'PIN as the terminals reported it' }),
    name: Nullable(Type.String({ description: "The user's first and last name; null for a PIN the location has no user for" })),
    date: Type.String({ description: 'The working day, YYYY-MM-DD in the location’s zone (it starts at day_start_hour)' }),
    first_in: LocalDateTime('The first punch of the day'),
    last_out: Nullable(LocalDateTime('The last punch of the day when there are two or more')),
    punches: Type.Integer({ description: 'Punches of the day, repeats within attendance_debounce_s left out' }),
    worked_minutes: Type.Integer({
      description: 'Check-in/check-out pairs (states 0/3/4 in, 1/2/5 out); first to last punch when the states are all 0 or not states',
    }),
    incomplete: Type.Boolean({ description: 'An in without an out or an out without an in; a single punch without usable states' }),
    sources: Type.Array(Type.String(), { description: 'Where the punches came from: device (a terminal), manual (POST /api/attendance)' }),
  },
  { title: 'TimeCard' },
);

/** One user's presence (GET /api/presence, the `presence.changed` event, the retained `presence/<pin>` topic). */
export const PresenceEntryView = Type.Object(
  {
    pin: Type.String(),
    name: Nullable(Type.String()),
    state: Type.Union([Type.Literal('in'), Type.Literal('out'), Type.Literal('unknown')]),
    since: LocalDateTime('The last punch of the working day'),
    sn: Nullable(Type.String({ description: 'The terminal of that punch; null for a manual punch' })),
  },
  { title: 'PresenceEntry' },
);
export type PresenceEntry = Static<typeof PresenceEntryView>;

export const PresenceView = Type.Object(
  {
    count: Type.Integer({ description: 'How many users are in' }),
    data: Type.Array(PresenceEntryView, { description: 'Users who punched this working day, by PIN' }),
  },
  { title: 'Presence' },
);

export const TIME_CARD_CSV_COLUMNS = [
  'pin',
  'name',
  'date',
  'first_in',
  'last_out',
  'punches',
  'worked_minutes',
  'incomplete',
  'sources',
] as const;

export function timeCardView(card: TimeCard, name: string | null) {
  return {
    pin: card.pin,
    name,
    date: card.date,
    first_in: card.first_in,
    last_out: card.last_out,
    punches: card.punches,
    worked_minutes: card.worked_minutes,
    incomplete: card.incomplete,
    sources: [...card.sources],
  };
}

export function timeCardCsvCells(v: ReturnType<typeof timeCardView>): (string | number | boolean | null)[] {
  return [v.pin, v.name, v.date, v.first_in, v.last_out, v.punches, v.worked_minutes, String(v.incomplete), v.sources.join(' ')];
}
