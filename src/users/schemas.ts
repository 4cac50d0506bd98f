/**
 * What a user write may hold [API-CONTRACT §5 Users]: POST /api/users,
 * and each item of an import (REST or CLI).
 */
import { Type } from 'typebox';
import { Nullable } from '../views/common.js';
import { REAL_DATE_PATTERN } from '../validation/input.js';

export const PIN_MAX = 99_999_999;
export const Pin = Type.Integer({ minimum: 1, maximum: PIN_MAX, description: 'User PIN, 1 to 99999999' });
export const Privilege = Type.Union([Type.Literal(0), Type.Literal(2), Type.Literal(6), Type.Literal(14)], {
  description: '0 User, 2 Enroller, 6 Manager, 14 Super Admin',
});
// [COMMANDS §1] values travel in TAB-separated device records: no TAB, CR, LF or NUL.
const TEXT = '^[^\\t\\r\\n\\u0000]*$';
const text = (max: number, description: string) =>
  Type.String({ maxLength: max, pattern: TEXT, description: `${description}; no tabs or line breaks` });
/**
 * `YYYY-MM-DD` or an ISO 8601 datetime (with `Z` or an offset; without one it is read as UTC): a real
 * date, hours 00-23, minutes and seconds 00-59, so every string the pattern admits is one the server takes.
 */
export const DATE_OR_DATETIME = `^${REAL_DATE_PATTERN}([T ]([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d{1,9})?)?(Z|[+-]([01]\\d|2[0-3]):?[0-5]\\d)?)?$`;
/** Kept by BioGate alone (never sent to a terminal): trimmed when stored, so at least one character that is not a space. */
const orgName = (description: string) =>
  Nullable(
    Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[^\\t\\r\\n\\u0000]*[^\\s][^\\t\\r\\n\\u0000]*$',
      description: `${description}, up to 100 characters, trimmed; no tabs or line breaks; null clears it. Never sent to a terminal`,
    }),
  );
const when = (description: string) =>
  Nullable(Type.String({ pattern: DATE_OR_DATETIME, description: `${description}: YYYY-MM-DD or ISO datetime` }));

export const userFieldSchemas = {
  first_name: Nullable(text(100, 'First name')),
  last_name: Nullable(text(100, 'Last name')),
  card_no: Nullable(Type.String({ maxLength: 32, pattern: '^[0-9]*$', description: 'Card number, decimal digits' })),
  password: Nullable(Type.Integer({ minimum: 0, maximum: 99_999_999, description: 'Numeric keypad password (up to 8 digits)' })),
  is_active: Type.Boolean({ default: true }),
  start_time: when('Access validity start'),
  end_time: when('Access validity end'),
  privilege: Privilege,
  group: Type.Integer({ minimum: 0, maximum: 99, description: 'Access control group 0 to 99' }),
  super_authorize: Type.Union([Type.Literal(0), Type.Literal(1)]),
  areas: Type.Array(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), {
    maxItems: 100,
    description:
      'Ids of the areas (GET /api/areas) whose terminals hold the user; [] = only terminals without an area. Replaces the stored list',
  }),
  access_levels: Type.Array(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), {
    maxItems: 100,
    description: 'Ids of the access levels (GET /api/access-levels); [] = schedule 1 through every door. Replaces the stored list',
  }),
  department: orgName('Department'),
  position: orgName('Position (job title)'),
};

export const UserWrite = Type.Object({
  pin: Pin,
  first_name: Type.Optional(userFieldSchemas.first_name),
  last_name: Type.Optional(userFieldSchemas.last_name),
  card_no: Type.Optional(userFieldSchemas.card_no),
  password: Type.Optional(userFieldSchemas.password),
  is_active: Type.Optional(Type.Boolean()),
  start_time: Type.Optional(userFieldSchemas.start_time),
  end_time: Type.Optional(userFieldSchemas.end_time),
  privilege: Type.Optional(Privilege),
  group: Type.Optional(userFieldSchemas.group),
  super_authorize: Type.Optional(userFieldSchemas.super_authorize),
  areas: Type.Optional(userFieldSchemas.areas),
  access_levels: Type.Optional(userFieldSchemas.access_levels),
  department: Type.Optional(userFieldSchemas.department),
  position: Type.Optional(userFieldSchemas.position),
});

/** Import items: like UserWrite, but `pin` may be a string of digits [API-CONTRACT §5 Users]. */
export const ImportItem = Type.Object({
  ...UserWrite.properties,
  pin: Type.Union([Pin, Type.String({ pattern: '^\\s*[0-9]{1,8}\\s*$', description: 'PIN as a string of digits' })], {
    description: 'an integer from 1 to 99999999, or a string of up to 8 digits',
  }),
});
