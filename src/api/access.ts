/**
 * /api/schedules and /api/access-levels (issue #33 items 2 and 4): when and through which doors a person
 * may open. Scoped to the caller's location; the service is src/users/access.ts.
 */
import { Type } from 'typebox';
import { AREA_NAME } from '../views/area.js';
import { AccessLevelView, accessLevelView, DaysInput, HolidayView, holidayView, ScheduleView, scheduleView } from '../views/access.js';
import { REAL_DATE_PATTERN } from '../validation/input.js';
import { Serial } from './devices.js';
import {
  createHoliday,
  createLevel,
  createSchedule,
  deleteHoliday,
  deleteLevel,
  deleteSchedule,
  getHoliday,
  getLevel,
  getSchedule,
  listSchedules,
  scheduleDays,
  updateHoliday,
  updateLevel,
  updateSchedule,
  type AccessDeps,
  type DoorDeps,
  type HolidayDeps,
  listDoors,
  setDoor,
} from '../users/access.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { EmptyObject, PageQuery, pageOf, pageWrapper } from './schemas.js';

const HolidayParam = Type.Object({ holiday_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
const DateText = (description: string) => Type.String({ pattern: `^${REAL_DATE_PATTERN}$`, description: `${description}, YYYY-MM-DD` });
const HolidayBody = Type.Object(
  {
    name: AREA_NAME,
    start_date: DateText('First day'),
    end_date: DateText('Last day (on or after start_date, at most 366 days)'),
    type: Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)], {
      description: 'Which holiday intervals (holiday1–3) of the schedules apply',
    }),
    recurring: Type.Boolean({ description: 'Every year on the same dates' }),
  },
  { additionalProperties: false },
);
const DoorParams = Type.Object({ device_serial: Serial, door: Type.Integer({ minimum: 1, maximum: 4 }) });
const DoorView = Type.Object(
  {
    door: Type.Integer({ minimum: 1, maximum: 4 }),
    unlock_seconds: Type.Union([Type.Integer({ minimum: 1, maximum: 254 }), Type.Null()], { description: 'null: not set by BioGate' }),
    normal_open_schedule_id: Type.Union([Type.Integer({ minimum: 1, maximum: 50 }), Type.Null()], { description: 'null: never kept open' }),
  },
  { title: 'Door' },
);
const DoorBody = Type.Object(
  {
    unlock_seconds: Type.Integer({ minimum: 1, maximum: 254, description: 'Seconds the lock stays open (Door<n>Drivertime)' }),
    normal_open_schedule_id: Type.Union([Type.Integer({ minimum: 1, maximum: 50 }), Type.Null()], {
      description: 'The schedule during which the door stays open (Door<n>KeepOpenTimeZone); null = never',
    }),
  },
  { additionalProperties: false },
);
const ScheduleParam = Type.Object({ schedule_id: Type.Integer({ minimum: 1, maximum: 50 }) });
const LevelParam = Type.Object({ access_level_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
const ScheduleBody = Type.Object({ name: AREA_NAME, days: DaysInput }, { additionalProperties: false });
const LevelBody = Type.Object(
  {
    name: AREA_NAME,
    schedule_id: Type.Integer({ minimum: 1, maximum: 50, description: 'A schedule of the location (1 = "Always")' }),
    doors: Type.Array(Type.Integer({ minimum: 1, maximum: 4 }), {
      minItems: 1,
      maxItems: 4,
      description: 'Doors 1–4 (AuthorizeDoorId bits 1, 2, 4, 8)',
    }),
    area_id: Type.Union([Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), Type.Null()], {
      description: 'The area whose terminals the level applies to; null = every terminal of the location',
    }),
  },
  { additionalProperties: false },
);

export function accessRoutes(deps: AccessDeps & HolidayDeps & DoorDeps): ApiRoute[] {
  const tags = ['access'];
  // Levels first: the document lists them before the schedules they name (a walk deletes in that order).
  return [
    defineRoute({
      method: 'GET',
      path: '/api/access-levels',
      auth: 'location',
      query: Type.Object(PageQuery),
      doc: { summary: "The location's access levels", tags, responses: { 200: pageOf(AccessLevelView) } },
      handler: async ({ caller, query }) => {
        const page = await deps.store.accessLevels.list(caller.location.id, { offset: (query.page - 1) * query.limit, limit: query.limit });
        return json(200, pageWrapper(page.items.map(accessLevelView), page.total, query.page, query.limit));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/access-levels',
      auth: 'location',
      body: LevelBody,
      doc: {
        summary: 'Create an access level: a schedule, doors and an area',
        description:
          'A user listing levels (`access_levels` of POST /api/users) gets on each v3 terminal one `userauthorize` row per schedule of the levels that apply there, with the union of their doors; none applies: present, opens no door. No level: schedule 1 through every door.',
        tags,
        responses: { 201: AccessLevelView },
        errors: ['VALIDATION_FAILED'],
      },
      handler: async ({ caller, body }) => json(201, accessLevelView(await createLevel(deps, caller.location, body))),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/access-levels/{access_level_id}',
      auth: 'location',
      params: LevelParam,
      doc: { summary: 'One access level', tags, responses: { 200: AccessLevelView }, errors: ['ACCESS_LEVEL_NOT_FOUND'] },
      handler: async ({ caller, params }) => json(200, accessLevelView(await getLevel(deps, caller.location, params.access_level_id))),
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/access-levels/{access_level_id}',
      auth: 'location',
      params: LevelParam,
      body: LevelBody,
      doc: {
        summary: 'Replace an access level; its users are synced again',
        tags,
        responses: { 200: AccessLevelView },
        errors: ['ACCESS_LEVEL_NOT_FOUND', 'VALIDATION_FAILED'],
      },
      handler: async ({ caller, params, body }) =>
        json(200, accessLevelView(await updateLevel(deps, caller.location, params.access_level_id, body))),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/access-levels/{access_level_id}',
      auth: 'location',
      params: LevelParam,
      doc: {
        summary: 'Delete an access level; its users lose it and are synced again',
        tags,
        responses: { 200: EmptyObject },
        errors: ['ACCESS_LEVEL_NOT_FOUND'],
      },
      handler: async ({ caller, params }) => {
        await deleteLevel(deps, caller.location, params.access_level_id);
        return json(200, {});
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/schedules',
      auth: 'location',
      query: Type.Object(PageQuery),
      doc: { summary: 'The location\'s schedules, "Always" (1) first', tags, responses: { 200: pageOf(ScheduleView) } },
      handler: async ({ caller, query }) => {
        const all = await listSchedules(deps, caller.location);
        const offset = (query.page - 1) * query.limit;
        return json(200, pageWrapper(all.slice(offset, offset + query.limit).map(scheduleView), all.length, query.page, query.limit));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/schedules',
      auth: 'location',
      body: ScheduleBody,
      doc: {
        summary: 'Create a schedule (a terminal time zone): per day up to three intervals',
        description: 'Its id is the lowest free number 2–50 (the terminals\' TimezoneId); at most 50 per location, "Always" included.',
        tags,
        responses: { 201: ScheduleView },
        errors: ['VALIDATION_FAILED'],
      },
      handler: async ({ caller, body }) =>
        json(201, scheduleView(await createSchedule(deps, caller.location, body.name, scheduleDays(body.days)))),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/schedules/{schedule_id}',
      auth: 'location',
      params: ScheduleParam,
      doc: { summary: 'One schedule', tags, responses: { 200: ScheduleView }, errors: ['SCHEDULE_NOT_FOUND'] },
      handler: async ({ caller, params }) => json(200, scheduleView(await getSchedule(deps, caller.location, params.schedule_id))),
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/schedules/{schedule_id}',
      auth: 'location',
      params: ScheduleParam,
      body: ScheduleBody,
      doc: {
        summary: 'Replace a schedule; the users whose levels name it are synced again (422 for schedule 1)',
        tags,
        responses: { 200: ScheduleView },
        errors: ['SCHEDULE_NOT_FOUND', 'VALIDATION_FAILED'],
      },
      handler: async ({ caller, params, body }) =>
        json(200, scheduleView(await updateSchedule(deps, caller.location, params.schedule_id, body.name, scheduleDays(body.days)))),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/schedules/{schedule_id}',
      auth: 'location',
      params: ScheduleParam,
      doc: {
        summary: 'Delete a schedule no access level names (422 for schedule 1)',
        tags,
        responses: { 200: EmptyObject },
        errors: ['SCHEDULE_NOT_FOUND', 'SCHEDULE_IN_USE', 'VALIDATION_FAILED'],
      },
      handler: async ({ caller, params }) => {
        await deleteSchedule(deps, caller.location, params.schedule_id);
        return json(200, {});
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/holidays',
      auth: 'location',
      query: Type.Object(PageQuery),
      doc: { summary: "The location's holidays, by start date", tags, responses: { 200: pageOf(HolidayView) } },
      handler: async ({ caller, query }) => {
        const all = await deps.store.holidays.list(caller.location.id);
        const offset = (query.page - 1) * query.limit;
        return json(200, pageWrapper(all.slice(offset, offset + query.limit).map(holidayView), all.length, query.page, query.limit));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/holidays',
      auth: 'location',
      body: HolidayBody,
      doc: {
        summary: 'Create a holiday: on its days the schedules use the intervals of its type',
        description:
          'Sent to the terminals that store the access tables (v3) as their `holiday` table, one row per day; at most 100 holidays per location.',
        tags,
        responses: { 201: HolidayView },
        errors: ['VALIDATION_FAILED'],
      },
      handler: async ({ caller, body }) => json(201, holidayView(await createHoliday(deps, caller.location, body))),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/holidays/{holiday_id}',
      auth: 'location',
      params: HolidayParam,
      doc: { summary: 'One holiday', tags, responses: { 200: HolidayView }, errors: ['HOLIDAY_NOT_FOUND'] },
      handler: async ({ caller, params }) => json(200, holidayView(await getHoliday(deps, caller.location, params.holiday_id))),
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/holidays/{holiday_id}',
      auth: 'location',
      params: HolidayParam,
      body: HolidayBody,
      doc: { summary: 'Replace a holiday', tags, responses: { 200: HolidayView }, errors: ['HOLIDAY_NOT_FOUND', 'VALIDATION_FAILED'] },
      handler: async ({ caller, params, body }) =>
        json(200, holidayView(await updateHoliday(deps, caller.location, params.holiday_id, body))),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/holidays/{holiday_id}',
      auth: 'location',
      params: HolidayParam,
      doc: { summary: 'Delete a holiday', tags, responses: { 200: EmptyObject }, errors: ['HOLIDAY_NOT_FOUND'] },
      handler: async ({ caller, params }) => {
        await deleteHoliday(deps, caller.location, params.holiday_id);
        return json(200, {});
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/devices/{device_serial}/doors',
      auth: 'location',
      params: Type.Object({ device_serial: Serial }),
      doc: {
        summary: "A terminal's doors (1 to its reported lock count) with the settings BioGate gave them",
        tags,
        responses: { 200: Type.Object({ data: Type.Array(DoorView) }, { title: 'DoorList' }) },
        errors: ['DEVICE_NOT_FOUND'],
      },
      handler: async ({ caller, params }) => json(200, { data: await listDoors(deps, caller.location, params.device_serial) }),
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/devices/{device_serial}/doors/{door}',
      auth: 'location',
      params: DoorParams,
      body: DoorBody,
      doc: {
        summary: "Set a door's unlock time and normal-open schedule",
        description:
          'Sent to a terminal that stores the access tables as `SET OPTIONS Door<n>Drivertime=<s>,Door<n>KeepOpenTimeZone=<schedule or 0>`; a door beyond its reported lock count is 422.',
        tags,
        responses: { 200: DoorView },
        errors: ['DEVICE_NOT_FOUND', 'VALIDATION_FAILED'],
      },
      handler: async ({ caller, params, body }) => json(200, await setDoor(deps, caller.location, params.device_serial, params.door, body)),
    }),
  ];
}
