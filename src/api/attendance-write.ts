/**
 * The write path of attendance (issue #35 item 3), full scope only:
 * - POST /api/attendance: a manual punch of a user, with a reason (src/attendance/manual.ts);
 * - POST /api/attendance/{id}/void: voids any record, with a reason. Records are never edited or deleted here.
 */
import { Type } from 'typebox';
import type { ManualAttendance } from '../attendance/manual.js';
import { requireFull } from '../auth/authenticate.js';
import { Pin } from '../users/schemas.js';
import { REAL_DATE_PATTERN } from '../validation/input.js';
import { AttendanceView, attendanceView } from '../views/attendance.js';
import { defineRoute, json, type ApiRoute } from './route.js';

const tags = ['attendance'];
const Reason = (description: string) => Type.String({ minLength: 1, maxLength: 500, description });
const ManualBody = Type.Object(
  {
    pin: Pin,
    timestamp: Type.String({
      maxLength: 40,
      pattern: `^${REAL_DATE_PATTERN}[T ]([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d{1,9})?(Z|[+-](0\\d|1[0-4]):[0-5]\\d)?$`,
      examples: ['2026-03-02T08:00:00+01:00', '2026-03-02 08:00:00'],
      description:
        'When: RFC 3339 with an offset (2026-03-02T08:00:00+01:00), or YYYY-MM-DD HH:MM:SS on the location’s wall clock; ' +
        'not in the future. Stored to the second.',
    }),
    status: Type.Optional(Type.Integer({ minimum: 0, maximum: 255, description: 'Attendance state (default 0, check-in)' })),
    reason: Reason('Why it is entered by hand'),
  },
  { additionalProperties: false },
);
const VoidBody = Type.Object({ reason: Reason('Why it is voided') }, { additionalProperties: false });
const IdParam = Type.Object({ attendance_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

export function attendanceWriteRoutes(manual: ManualAttendance): ApiRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/attendance',
      auth: 'location',
      body: ManualBody,
      doc: {
        summary: 'Enter a manual punch for a user (full scope)',
        description:
          'A record with `source: "manual"`, no terminal (`sn` and `verify` null), the reason and the token that entered it ' +
          '(`created_by`). It is in the cursor feed, the CSV, the time cards and presence, and announced as `attendance.recorded`. ' +
          'The same PIN, time and status twice is a 409 ATTENDANCE_EXISTS.',
        tags,
        responses: { 201: AttendanceView },
        errors: ['SCOPE_DENIED', 'USER_NOT_FOUND', 'ATTENDANCE_EXISTS'],
      },
      handler: async ({ caller, body }) => {
        requireFull(caller, 'A manual punch');
        return json(201, attendanceView(await manual.record(caller, body)));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/attendance/{attendance_id}/void',
      auth: 'location',
      params: IdParam,
      body: VoidBody,
      doc: {
        summary: 'Void an attendance record (full scope)',
        description:
          'Any record, a terminal’s too: it gets `voided_at` and `void_reason`, stays readable (GET, the cursor feed and the CSV show ' +
          'it flagged), leaves the time cards and presence, and is announced as `attendance.voided`. A record is voided once (409).',
        tags,
        responses: { 200: AttendanceView },
        errors: ['SCOPE_DENIED', 'ATTENDANCE_NOT_FOUND', 'ATTENDANCE_VOIDED'],
      },
      handler: async ({ caller, params, body }) => {
        requireFull(caller, 'Voiding a record');
        return json(200, attendanceView(await manual.void(caller, params.attendance_id, body.reason)));
      },
    }),
  ];
}
