// Issue #35 item 1: daily time cards from punches. Each case is a day a real site has: a plain day, a night
// shift cut by day_start_hour, a DST change, terminals without states (all 0) or with "no state" (255), repeats
// within the debounce, and an in without an out.
import t from 'tap';
import { comparePins, presence, timeCards, workingDay, type Punch } from '../../src/time/time-cards.js';

/** A punch at a wall-clock time with the zone's offset then (minutes east of UTC). */
const punch = (pin: string, local: string, offsetMin: number, status = 0): Punch => ({
  pin,
  localTime: local,
  at: Date.parse(`${local.replace(' ', 'T')}Z`) - offsetMin * 60_000,
  status,
  source: 'device',
  sn: 'T1',
});
const plain = { debounceS: 60, dayStartHour: 0 };

t.test('a day of check-in/check-out pairs: first in, last out, worked minutes, the offset kept', async (t) => {
  const cards = timeCards(
    [
      punch('7', '2026-03-02 12:00:00', 60, 1),
      punch('7', '2026-03-02 08:30:00', 60, 0),
      punch('7', '2026-03-02 13:00:00', 60, 0),
      punch('7', '2026-03-02 17:30:00', 60, 1),
    ],
    '2026-03-02',
    '2026-03-02',
    plain,
  );
  t.same(cards, [
    {
      pin: '7',
      date: '2026-03-02',
      first_in: '2026-03-02T08:30:00+01:00',
      last_out: '2026-03-02T17:30:00+01:00',
      punches: 4,
      worked_minutes: 8 * 60,
      incomplete: false,
      sources: ['device'],
    },
  ]);
});

t.test('midnight: a punch at 00:10 belongs to the next day without a day start; with 7 it stays on the shift day', async (t) => {
  const night = [punch('1', '2026-03-02 22:00:00', 0, 0), punch('1', '2026-03-03 06:05:00', 0, 1)];
  const split = timeCards(night, '2026-03-02', '2026-03-03', plain);
  t.same(
    split.map((c) => [c.date, c.punches, c.worked_minutes, c.incomplete]),
    [
      ['2026-03-02', 1, 0, true],
      ['2026-03-03', 1, 0, true],
    ],
    'cut at midnight: two incomplete days',
  );
  // A day from 07:00: the 06:05 check-out closes the 22:00 check-in of the shift day.
  const shift = timeCards(night, '2026-03-02', '2026-03-03', { debounceS: 60, dayStartHour: 7 });
  t.same(
    shift.map((c) => [c.date, c.first_in, c.last_out, c.worked_minutes, c.incomplete]),
    [['2026-03-02', '2026-03-02T22:00:00+00:00', '2026-03-03T06:05:00+00:00', 8 * 60 + 5, false]],
  );
  t.equal(workingDay('2026-03-03 06:59:59', 7), '2026-03-02');
  t.equal(workingDay('2026-03-03 07:00:00', 7), '2026-03-03');
  t.equal(workingDay('2026-13-03 07:00:00', 7), undefined, 'a malformed local time has no day');
  t.same(
    timeCards([punch('1', '2026-03-02 22:00:00', 0, 0)], '2026-03-03', '2026-03-03', plain),
    [],
    'days outside the range are left out',
  );
});

t.test('a DST day: the shift is as long as it really was, the day cut on the wall clock', async (t) => {
  // Europe/Berlin 2026-03-29: 02:00 +01:00 → 03:00 +02:00. 00:30 to 08:30 on the wall clock is 7 hours.
  const spring = timeCards(
    [punch('3', '2026-03-29 00:30:00', 60, 0), punch('3', '2026-03-29 08:30:00', 120, 1)],
    '2026-03-29',
    '2026-03-29',
    plain,
  );
  t.same(
    spring.map((c) => [c.first_in, c.last_out, c.worked_minutes]),
    [['2026-03-29T00:30:00+01:00', '2026-03-29T08:30:00+02:00', 7 * 60]],
  );
  // 2026-10-25: 03:00 +02:00 → 02:00 +01:00. 00:30 to 08:30 is 9 hours.
  const autumn = timeCards(
    [punch('3', '2026-10-25 00:30:00', 120, 0), punch('3', '2026-10-25 08:30:00', 60, 1)],
    '2026-10-25',
    '2026-10-25',
    plain,
  );
  t.equal(autumn[0]?.worked_minutes, 9 * 60);
});

t.test('states: all 0 or 255 fall back to first–last; repeats within the debounce are left out', async (t) => {
  const allZero = timeCards(
    [punch('5', '2026-03-02 08:00:00', 0), punch('5', '2026-03-02 12:00:00', 0), punch('5', '2026-03-02 16:30:00', 0)],
    '2026-03-02',
    '2026-03-02',
    plain,
  );
  t.same(
    allZero.map((c) => [c.worked_minutes, c.incomplete, c.punches]),
    [[8 * 60 + 30, false, 3]],
    'all 0: first to last',
  );
  const noState = timeCards(
    [punch('5', '2026-03-02 08:00:00', 0, 255), punch('5', '2026-03-02 17:00:00', 0, 255)],
    '2026-03-02',
    '2026-03-02',
    plain,
  );
  t.same(
    noState.map((c) => [c.worked_minutes, c.incomplete]),
    [[9 * 60, false]],
    '255: first to last',
  );
  const mixed = timeCards(
    [punch('5', '2026-03-02 08:00:00', 0, 0), punch('5', '2026-03-02 17:00:00', 0, 255)],
    '2026-03-02',
    '2026-03-02',
    plain,
  );
  t.same(
    mixed.map((c) => c.worked_minutes),
    [9 * 60],
    'one 255 among states: first to last',
  );
  const single = timeCards([punch('5', '2026-03-02 08:00:00', 0, 255)], '2026-03-02', '2026-03-02', plain);
  t.same(
    single.map((c) => [c.last_out, c.worked_minutes, c.incomplete]),
    [[null, 0, true]],
    'one punch without states: incomplete',
  );

  const repeats = [
    punch('6', '2026-03-02 08:00:00', 0, 0),
    punch('6', '2026-03-02 08:00:40', 0, 0),
    punch('6', '2026-03-02 08:00:59', 0, 0),
    punch('6', '2026-03-02 08:01:00', 0, 1),
  ];
  t.same(
    timeCards(repeats, '2026-03-02', '2026-03-02', plain).map((c) => [c.punches, c.worked_minutes]),
    [[2, 1]],
    'two repeats left out',
  );
  t.same(
    timeCards(repeats, '2026-03-02', '2026-03-02', { debounceS: 0, dayStartHour: 0 }).map((c) => c.punches),
    [4],
    'debounce 0: every punch counts',
  );
});

t.test('pairs: overtime and breaks, an out without an in, an in left open; order by day then PIN', async (t) => {
  const day = timeCards(
    [
      punch('10', '2026-03-02 08:00:00', 0, 0),
      punch('10', '2026-03-02 12:00:00', 0, 2),
      punch('10', '2026-03-02 12:30:00', 0, 3),
      punch('10', '2026-03-02 17:00:00', 0, 1),
      punch('10', '2026-03-02 18:00:00', 0, 4),
      punch('10', '2026-03-02 20:00:00', 0, 5),
      punch('9', '2026-03-02 17:00:00', 0, 1),
      punch('9', '2026-03-02 08:00:00', 0, 1),
      punch('2', '2026-03-03 08:00:00', 0, 0),
      punch('2', '2026-03-03 09:00:00', 0, 1),
      punch('2', '2026-03-03 10:00:00', 0, 0),
    ],
    '2026-03-01',
    '2026-03-03',
    plain,
  );
  t.same(
    day.map((c) => [c.date, c.pin, c.worked_minutes, c.incomplete]),
    [
      ['2026-03-02', '9', 0, true],
      ['2026-03-02', '10', 4 * 60 + 4 * 60 + 30 + 2 * 60, false],
      ['2026-03-03', '2', 60, true],
    ],
  );
  t.ok(comparePins('9', '10') < 0 && comparePins('A1', '10') > 0 && comparePins('7', '7') === 0, 'PINs in number order, others as text');
});

t.test('presence: the last kept punch of the day decides; all-0 terminals toggle; 255 is unknown', async (t) => {
  const rows = presence(
    [
      punch('1', '2026-03-02 08:00:00', 60, 0),
      punch('1', '2026-03-02 12:00:00', 60, 2),
      punch('2', '2026-03-02 08:00:00', 60, 0),
      punch('2', '2026-03-02 12:00:00', 60, 0),
      punch('2', '2026-03-02 12:00:30', 60, 0),
      punch('3', '2026-03-02 08:00:00', 60, 0),
      punch('4', '2026-03-02 08:00:00', 60, 255),
      punch('5', '2026-03-02 08:00:00', 60, 1),
      punch('5', '2026-03-02 09:00:00', 60, 4),
      punch('6', '2026-03-01 08:00:00', 60, 0),
    ],
    '2026-03-02',
    plain,
  );
  t.same(
    rows.map((r) => [r.pin, r.state, r.since]),
    [
      ['1', 'out', '2026-03-02T12:00:00+01:00'],
      ['2', 'out', '2026-03-02T12:00:00+01:00'],
      ['3', 'in', '2026-03-02T08:00:00+01:00'],
      ['4', 'unknown', '2026-03-02T08:00:00+01:00'],
      ['5', 'in', '2026-03-02T09:00:00+01:00'],
    ],
    'a break-out is out, two zeros (the repeat left out) are in and out, overtime-in is in; yesterday’s punch is not today’s',
  );
  t.equal(rows[0]?.sn, 'T1');
});
