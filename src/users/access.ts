/**
 * Schedules and access levels (issue #33 items 2 and 4): when and through which doors a person may open.
 * Each change reaches the terminals it affects as the users it concerns, synced again: rendering
 * (devices/render.ts) derives every user's `userauthorize` rows and the `timezone` rows they name from
 * the levels and schedules as they are at dispatch, so nothing else needs to be sent or kept in step.
 */
import { codecOfDevice, lockCount } from '../../protocols/index.js';
import { newMarker } from '../events/outbox.js';
import { BioGateError, type ValidationIssue } from '../errors.js';
import {
  ALWAYS_ID,
  alwaysSchedule,
  SCHEDULE_DAYS,
  type AccessLevel,
  type AccessLevelFields,
  type Device,
  type DoorSetting,
  type Holiday,
  type HolidayFields,
  type Location,
  type Schedule,
  type ScheduleDays,
} from '../store/ports/index.js';
import { announceRule, type RuleDeps } from './effects.js';
import type { SyncQueue } from '../sync/queue.js';

export type AccessDeps = RuleDeps<Pick<SyncQueue, 'queueUsers' | 'queueTimezones'>>;

const scheduleNotFound = (id: number) => new BioGateError('SCHEDULE_NOT_FOUND', `Schedule ${id} not found`);
const levelNotFound = (id: number) => new BioGateError('ACCESS_LEVEL_NOT_FOUND', `Access level ${id} not found`);
const invalid = (loc: (string | number)[], msg: string) => new BioGateError('VALIDATION_FAILED', [{ loc, msg, type: 'value_error' }]);

/** Days as stored: every day present (absent = no interval), each interval's start before its end. */
export function scheduleDays(raw: Partial<Record<string, readonly { start: string; end: string }[]>>): ScheduleDays {
  const issues: ValidationIssue[] = [];
  const days = Object.fromEntries(
    SCHEDULE_DAYS.map((d) => {
      const list = raw[d] ?? [];
      list.forEach((i, n) => {
        if (i.start >= i.end) issues.push({ loc: ['body', 'days', d, n], msg: 'start must be before end', type: 'value_error' });
      });
      return [d, list.map((i) => ({ start: i.start, end: i.end }))];
    }),
  ) as unknown as ScheduleDays;
  if (issues.length > 0) throw new BioGateError('VALIDATION_FAILED', issues);
  return days;
}

/** Every user listing one of these levels synced again to the terminals that hold it. */
async function resync(deps: AccessDeps, locationId: number, pins: readonly number[]): Promise<void> {
  if (pins.length > 0) await deps.sync.queueUsers(locationId, pins, 'user.upsert', { heldOnly: true });
}

const announce = (
  deps: AccessDeps,
  name: 'schedule.changed' | 'access_level.changed',
  locationId: number,
  record: Schedule | AccessLevel,
  change: 'created' | 'updated' | 'deleted',
) =>
  name === 'schedule.changed'
    ? announceRule(deps, name, { location_id: locationId, schedule: record as Schedule, change }, record.id)
    : announceRule(deps, name, { location_id: locationId, level: record as AccessLevel, change }, record.id);

export async function listSchedules(deps: Pick<AccessDeps, 'store'>, location: Location): Promise<Schedule[]> {
  return [alwaysSchedule(location.id), ...(await deps.store.schedules.list(location.id))];
}

export async function getSchedule(deps: Pick<AccessDeps, 'store'>, location: Location, id: number): Promise<Schedule> {
  const s = id === ALWAYS_ID ? alwaysSchedule(location.id) : await deps.store.schedules.get(location.id, id);
  if (!s) throw scheduleNotFound(id);
  return s;
}

export async function createSchedule(deps: AccessDeps, location: Location, name: string, days: ScheduleDays): Promise<Schedule> {
  const s = await deps.store.schedules.create(location.id, name.trim(), days, deps.clock.now().toISOString());
  if (!s) throw invalid(['body'], 'a location holds at most 50 schedules, "Always" included');
  await announce(deps, 'schedule.changed', location.id, s, 'created');
  await deps.sync.queueTimezones(location.id);
  return s;
}

export async function updateSchedule(
  deps: AccessDeps,
  location: Location,
  id: number,
  name: string,
  days: ScheduleDays,
): Promise<Schedule> {
  if (id === ALWAYS_ID) throw invalid(['path', 'schedule_id'], 'schedule 1, "Always", cannot be changed');
  const s = await deps.store.schedules.update(location.id, id, name.trim(), days, deps.clock.now().toISOString());
  if (!s) throw scheduleNotFound(id);
  await announce(deps, 'schedule.changed', location.id, s, 'updated');
  // The rights name the schedule by id: only the terminals' `timezone` rows change, not a user's lines.
  await deps.sync.queueTimezones(location.id);
  return s;
}

/** @throws SCHEDULE_NOT_FOUND, SCHEDULE_IN_USE (an access level names it) */
export async function deleteSchedule(deps: AccessDeps, location: Location, id: number): Promise<void> {
  if (id === ALWAYS_ID) throw invalid(['path', 'schedule_id'], 'schedule 1, "Always", cannot be deleted');
  const before = await deps.store.schedules.get(location.id, id);
  // A door kept open by it (the devices' door settings) holds it too.
  const doors = (await deps.store.devices.listAssigned(location.id)).some((d) =>
    Object.values(d.doors).some((s) => s.normal_open_schedule_id === id),
  );
  if (before && doors) throw new BioGateError('SCHEDULE_IN_USE', `Schedule ${id} keeps a door open: change the door's settings first`);
  const outcome = await deps.store.schedules.delete(location.id, id);
  if (outcome === 'missing' || !before) throw scheduleNotFound(id);
  if (outcome === 'in_use')
    throw new BioGateError('SCHEDULE_IN_USE', `Schedule ${id} is named by an access level: change or delete the level first`);
  await announce(deps, 'schedule.changed', location.id, before, 'deleted');
}

/** A level's schedule and area must be the location's (422 otherwise). */
async function checkLevel(deps: AccessDeps, location: Location, f: AccessLevelFields): Promise<void> {
  const issues: ValidationIssue[] = [];
  if (f.schedule_id !== ALWAYS_ID && !(await deps.store.schedules.get(location.id, f.schedule_id)))
    issues.push({ loc: ['body', 'schedule_id'], msg: `no schedule ${f.schedule_id} in this location`, type: 'value_error' });
  if (f.area_id !== null && (await deps.store.areas.existing(location.id, [f.area_id])).length === 0)
    issues.push({ loc: ['body', 'area_id'], msg: `no area ${f.area_id} in this location`, type: 'value_error' });
  if (issues.length > 0) throw new BioGateError('VALIDATION_FAILED', issues);
}

const levelFields = (f: AccessLevelFields): AccessLevelFields => ({
  name: f.name.trim(),
  schedule_id: f.schedule_id,
  doors: [...new Set(f.doors)].sort((a, b) => a - b),
  area_id: f.area_id,
});

export async function getLevel(deps: Pick<AccessDeps, 'store'>, location: Location, id: number): Promise<AccessLevel> {
  const l = await deps.store.accessLevels.get(location.id, id);
  if (!l) throw levelNotFound(id);
  return l;
}

export async function createLevel(deps: AccessDeps, location: Location, f: AccessLevelFields): Promise<AccessLevel> {
  await checkLevel(deps, location, f);
  const level = await deps.store.accessLevels.create(location.id, levelFields(f), deps.clock.now().toISOString());
  await announce(deps, 'access_level.changed', location.id, level, 'created');
  return level;
}

export async function updateLevel(deps: AccessDeps, location: Location, id: number, f: AccessLevelFields): Promise<AccessLevel> {
  await checkLevel(deps, location, f);
  const level = await deps.store.accessLevels.update(location.id, id, levelFields(f), deps.clock.now().toISOString());
  if (!level) throw levelNotFound(id);
  await announce(deps, 'access_level.changed', location.id, level, 'updated');
  await resync(deps, location.id, await deps.store.accessLevels.usersOf(location.id, [id]));
  return level;
}

/** The level goes; its users lose it and are synced again. */
export async function deleteLevel(deps: AccessDeps, location: Location, id: number): Promise<void> {
  const before = await deps.store.accessLevels.get(location.id, id);
  const pins = await deps.store.accessLevels.delete(location.id, id);
  if (!pins || !before) throw levelNotFound(id);
  await announce(deps, 'access_level.changed', location.id, before, 'deleted');
  await resync(deps, location.id, pins);
}

const holidayNotFound = (id: number) => new BioGateError('HOLIDAY_NOT_FOUND', `Holiday ${id} not found`);
/** Most holidays of one location; their days are one `holiday` row each on every v3 terminal. */
export const MAX_HOLIDAYS = 100;

/** end_date on or after start_date, at most 366 days (both real dates, checked by the schema). */
function checkHoliday(f: HolidayFields): HolidayFields {
  const days = (Date.parse(`${f.end_date}T00:00:00Z`) - Date.parse(`${f.start_date}T00:00:00Z`)) / 86_400_000 + 1;
  if (days < 1) throw invalid(['body', 'end_date'], 'must not be before start_date');
  if (days > 366) throw invalid(['body', 'end_date'], 'a holiday spans at most 366 days');
  return { ...f, name: f.name.trim() };
}

/** Every terminal of the location that stores the access tables gets the holidays as they are now. */
async function pushHolidays(deps: HolidayDeps, locationId: number): Promise<void> {
  await deps.sync.queueHolidays(locationId);
}

export type HolidayDeps = RuleDeps<Pick<SyncQueue, 'queueHolidays'>>;

export async function getHoliday(deps: Pick<AccessDeps, 'store'>, location: Location, id: number): Promise<Holiday> {
  const h = await deps.store.holidays.get(location.id, id);
  if (!h) throw holidayNotFound(id);
  return h;
}

export async function createHoliday(deps: HolidayDeps, location: Location, f: HolidayFields): Promise<Holiday> {
  const fields = checkHoliday(f);
  if ((await deps.store.holidays.list(location.id)).length >= MAX_HOLIDAYS)
    throw invalid(['body'], `a location holds at most ${MAX_HOLIDAYS} holidays`);
  const h = await deps.store.holidays.create(location.id, fields, deps.clock.now().toISOString());
  await pushHolidays(deps, location.id);
  return h;
}

export async function updateHoliday(deps: HolidayDeps, location: Location, id: number, f: HolidayFields): Promise<Holiday> {
  const h = await deps.store.holidays.update(location.id, id, checkHoliday(f), deps.clock.now().toISOString());
  if (!h) throw holidayNotFound(id);
  await pushHolidays(deps, location.id);
  return h;
}

export async function deleteHoliday(deps: HolidayDeps, location: Location, id: number): Promise<void> {
  if (!(await deps.store.holidays.delete(location.id, id))) throw holidayNotFound(id);
  await pushHolidays(deps, location.id);
}

export type DoorDeps = RuleDeps<Pick<SyncQueue, 'queueDoor'>>;

/** A terminal's doors: 1 to the lock count it reports (1 when it reports none), each with its settings or nulls. */
export async function listDoors(deps: Pick<AccessDeps, 'store'>, location: Location, sn: string) {
  const device = await deps.store.devices.get(location.id, sn);
  if (!device) throw new BioGateError('DEVICE_NOT_FOUND', `Device ${sn} not found`);
  return Array.from({ length: doorsOf(device) }, (_, i) => doorView(device, i + 1));
}

const doorsOf = (device: Device): number => lockCount({ version: codecOfDevice(device).version, options: device.options ?? {} }) ?? 1;

const doorView = (device: Device, door: number) => ({
  door,
  unlock_seconds: device.doors[String(door)]?.unlock_seconds ?? null,
  normal_open_schedule_id: device.doors[String(door)]?.normal_open_schedule_id ?? null,
});

/**
 * A door's settings stored on the terminal's record (`device.updated`) and sent to it as
 * `SET OPTIONS Door<n>Drivertime=…,Door<n>KeepOpenTimeZone=…` when it stores the access tables.
 * @throws DEVICE_NOT_FOUND; VALIDATION_FAILED for a door beyond its lock count or a schedule of no location's
 */
export async function setDoor(deps: DoorDeps, location: Location, sn: string, door: number, setting: DoorSetting) {
  const device = await deps.store.devices.get(location.id, sn);
  if (!device) throw new BioGateError('DEVICE_NOT_FOUND', `Device ${sn} not found`);
  if (door > doorsOf(device)) throw invalid(['path', 'door'], `the terminal reports ${doorsOf(device)} door(s)`);
  const schedule = setting.normal_open_schedule_id;
  if (schedule !== null && schedule !== ALWAYS_ID && !(await deps.store.schedules.get(location.id, schedule)))
    throw invalid(['body', 'normal_open_schedule_id'], `no schedule ${schedule} in this location`);
  const marker = newMarker();
  const doors = { ...device.doors, [String(door)]: { unlock_seconds: setting.unlock_seconds, normal_open_schedule_id: schedule } };
  const r = await deps.store.devices.update(location.id, sn, { doors }, deps.clock.now().toISOString(), marker);
  if (!r) throw new BioGateError('DEVICE_NOT_FOUND', `Device ${sn} not found`);
  deps.bus.emit('device.updated', { location_id: location.id, device: r.after, feed_event: marker });
  if (codecOfDevice(r.after).storesAccessTables) await deps.sync.queueDoor(location.id, sn, door);
  return doorView(r.after, door);
}
