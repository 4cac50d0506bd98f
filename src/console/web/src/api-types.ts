/**
 * The API's records and answers as the console reads them. Every type here is derived from the types
 * openapi-typescript generates from GET /api/openapi.json (./generated/api.d.ts, written by
 * src/console/web/generate-api.mjs at build): none is written by hand, so a change of the API's schemas
 * that the console does not follow fails `tsc -p src/console/web/tsconfig.json`.
 */
import type { components, paths } from './generated/api.js';

type Schemas = components['schemas'];
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Success<R> = R extends { 200: infer A } ? A : R extends { 201: infer A } ? A : never;
type JsonOf<A> = A extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body of an operation's success answer (its 200, else its 201). */
export type Reply<P extends keyof paths, M extends Method> = paths[P][M] extends { responses: infer R } ? JsonOf<Success<R>> : never;

/** The JSON body an operation accepts. */
export type Body<P extends keyof paths, M extends Method> = paths[P][M] extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;

/** The error body every failure answers with: `{detail, code}`. */
export type ErrorBody = Schemas['Error'];
/** One problem of a 422's `detail`. */
export type Problem = Exclude<ErrorBody['detail'], string>[number];

export type Scope = Schemas['Token']['scope'];
/** GET /api/me: the token's location and the token itself. */
export type Me = Reply<'/api/me', 'get'>;

export type Location = Schemas['Location'];
export type Token = Schemas['Token'];
export type User = Schemas['UserResponse'];
export type Device = Schemas['DeviceResponse'];
export type Command = Schemas['CommandResponse'];
export type Attendance = Schemas['Attendance'];
export type DoorEvent = Schemas['DoorEvent'];

/** POST /admin/locations: the new location and its first token, shown once. */
export type CreatedLocation = Reply<'/admin/locations', 'post'>;
/** POST /admin/locations/{id}/tokens: the new token, shown once. */
export type CreatedToken = Reply<'/admin/locations/{id}/tokens', 'post'>;
/** One item of POST /api/users/import (the fields of POST /api/users). */
export type UserInput = Body<'/api/users/import', 'post'>[number];
/** POST /api/users/import: what was imported, and each item refused with its reason. */
export type ImportReply = Reply<'/api/users/import', 'post'>;

/** The paging fields of every page-numbered list (GET /api/devices, /api/users, /api/commands, …). */
type Paging = Omit<Reply<'/api/devices', 'get'>, 'data'>;
/** One page of a page-numbered list. */
export type Page<T> = Paging & { readonly data: T[] };

/** DeviceResponse.sync: a terminal's roster sync state (issue #31). */
export type DeviceSync = NonNullable<Device['sync']>;
export type SyncState = DeviceSync['state'];
/** GET /api/devices/{sn}/sync: the state with the owed PINs, paged (page and limit apply to each list). */
export type SyncDetail = Reply<'/api/devices/{device_serial}/sync', 'get'>;
/** One owed PIN of a SyncDetail list. */
export type OwedPin = SyncDetail['missing']['data'][number];
/** GET /api/sync: the location's terminals per sync state. */
export type SyncSummary = Reply<'/api/sync', 'get'>;

/** An area of the location (GET /api/areas/{id}): a terminal in it holds only the users listing it. */
export type Area = Reply<'/api/areas/{area_id}', 'get'>;
/** DeviceResponse.area: the terminal's area; null = none (it holds every active user). */
export type AreaRef = NonNullable<Device['area']>;

/** A schedule of the location (GET /api/schedules/{id}, a terminal time zone): per day up to three intervals; 1 is "Always". */
export type Schedule = Reply<'/api/schedules/{schedule_id}', 'get'>;
/** A schedule's days, every one present ([] = no interval). */
export type ScheduleDays = Schedule['days'];
export type ScheduleDay = keyof ScheduleDays;
/** One interval of a day: `HH:MM`, start before end. */
export type Interval = ScheduleDays['mon'][number];
/** POST and PUT /api/schedules: a name and the days (an absent day has no interval). */
export type ScheduleInput = Body<'/api/schedules', 'post'>;
/** An access level (GET /api/access-levels/{id}): a schedule, doors and an area (null = every terminal). */
export type AccessLevel = Reply<'/api/access-levels/{access_level_id}', 'get'>;
/** POST and PUT /api/access-levels (PUT takes the whole body). */
export type AccessLevelInput = Body<'/api/access-levels', 'post'>;
