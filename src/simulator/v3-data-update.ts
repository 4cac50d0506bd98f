// Security PUSH (v3) `DATA UPDATE table k=v\t…`: one row into the terminal's memory per table
// [PUSH-v3 §11.2, COMMANDS §5].

import { anyNaN, intField, isValidCard, isValidPin, optIntField, splitWord } from './command-fields.js';
import type { ExecutionContext } from './execution.js';
import { keepPhoto } from './memory.js';
import { algorithmVersion } from './profile.js';
import type { SimTemplate } from './types.js';
import { V3_CODES as C } from './v3-codes.js';
import { COLUMNS, OTHER_TABLES, unknownKey } from './v3-tables.js';
import { field, isBase64, parseTabFields } from './wire-text.js';
import type { FieldList } from './wire-text.js';

/** `user`-table dates: `0` or `YYYYMMDD`, because the registry says `DateFmtFunOn=0` [COMMANDS §3.4]. */
const validDate = (v: string | undefined): boolean => v === undefined || v === '0' || /^\d{8}$/.test(v);

type Update = (pin: string, f: FieldList, ctx: ExecutionContext) => number;

/** [PUSH-v3 §11.2] `DATA UPDATE table k=v[\tk=v…]`; unknown columns answer −621. */
export function update(tail: string, ctx: ExecutionContext): number {
  const [table, text] = splitWord(tail);
  if (table === 'timezone') return putTimezone(parseTabFields(text), ctx);
  if (table === 'holiday') return putHoliday(parseTabFields(text), ctx);
  if (OTHER_TABLES.has(table)) return 0;
  const op = Object.hasOwn(UPDATES, table) ? UPDATES[table] : undefined;
  const columns = COLUMNS[table];
  if (op === undefined || columns === undefined) return table === '' ? C.malformed : C.noTable;
  const f = parseTabFields(text);
  const pin = field(f, 'pin');
  if (f.malformed || !isValidPin(pin)) return C.malformed;
  if (unknownKey(f, columns)) return C.badField;
  return op(pin, f, ctx);
}

/** A `timezone` row: `TimezoneId` and up to 30 packed intervals (`SunTime1` … `Hol3Time3`), kept as received. */
function putTimezone(f: FieldList, ctx: ExecutionContext): number {
  const id = intField(f, 'TimezoneId', Number.NaN);
  if (f.malformed || !Number.isInteger(id) || id < 1) return C.malformed;
  const values: Record<string, number> = {};
  for (const key of f.keys) {
    if (key.toLowerCase() === 'timezoneid') continue;
    const value = field(f, key) ?? '';
    if (!/^(Sun|Mon|Tue|Wed|Thu|Fri|Sat|Hol[1-3])Time[1-3]$/i.test(key) || !/^\d+$/.test(value)) return C.badField;
    values[key] = Number(value);
  }
  ctx.memory.putTimezone(id, values);
  return 0;
}

/** A `holiday` row (`Holiday=YYYYMMDD`, `HolidayType`, `Loop`), kept as received. */
function putHoliday(f: FieldList, ctx: ExecutionContext): number {
  const date = field(f, 'Holiday');
  if (f.malformed || date === undefined || !/^\d{8}$/.test(date)) return C.malformed;
  ctx.memory.putHoliday(date, Object.fromEntries(f.keys.map((k) => [k, field(f, k) ?? ''])));
  return 0;
}

function putTemplate(ctx: ExecutionContext, t: SimTemplate): number {
  if (!ctx.memory.users.has(t.pin)) return C.noUser;
  if (t.tmp === '') return C.emptyTemplate;
  if (!isBase64(t.tmp)) return C.param;
  return ctx.memory.putTemplate(t) === 'ok' ? 0 : C.full;
}

const UPDATES: Readonly<Record<string, Update>> = {
  user(pin, f, { memory }) {
    const group = optIntField(f, 'Group');
    const privilege = optIntField(f, 'Privilege');
    const disable = optIntField(f, 'Disable');
    const verify = optIntField(f, 'Verify');
    const card = field(f, 'CardNo');
    const startTime = field(f, 'StartTime');
    const endTime = field(f, 'EndTime');
    if (
      anyNaN(group, privilege, disable, verify) ||
      (card !== undefined && !isValidCard(card)) ||
      !validDate(startTime) ||
      !validDate(endTime)
    )
      return C.param;
    const stored = memory.putUser({
      pin,
      card,
      password: field(f, 'Password'),
      group,
      startTime,
      endTime,
      name: field(f, 'Name'),
      privilege,
      disabled: disable === undefined ? undefined : disable !== 0,
      verify,
    });
    return stored === 'ok' ? 0 : C.full;
  },
  userauthorize(pin, f, ctx) {
    const timezoneId = intField(f, 'AuthorizeTimezoneId', 1);
    const doorMask = intField(f, 'AuthorizeDoorId', (1 << ctx.profile.lockCount) - 1);
    if (anyNaN(timezoneId, doorMask)) return C.param;
    ctx.memory.putAuthorization({ pin, timezoneId, doorMask });
    return 0;
  },
  templatev10(pin, f, ctx) {
    // a device whose fingerprints are biodata type 1 has no templatev10 table [COMMANDS §5.3]
    if (ctx.profile.fpVersion !== 10) return C.noTable;
    const fid = optIntField(f, 'FingerID');
    const valid = intField(f, 'Valid', 1);
    if (fid === undefined || anyNaN(fid, valid) || !((fid >= 0 && fid <= 9) || (fid >= 16 && fid <= 25))) return C.param;
    // [PUSH-v3 §7.4] fingerid + 16 marks a duress finger
    const duress = fid >= 16 || valid === 3;
    return putTemplate(ctx, {
      table: 'templatev10',
      pin,
      type: 1,
      no: fid % 16,
      index: 0,
      valid: duress ? 3 : valid,
      duress: duress ? 1 : 0,
      majorVer: 10,
      minorVer: 0,
      format: 0,
      tmp: field(f, 'Template') ?? '',
    });
  },
  biodata(pin, f, ctx) {
    const type = optIntField(f, 'type');
    const major = optIntField(f, 'majorver');
    const minor = optIntField(f, 'minorver');
    const nums = [
      intField(f, 'no', 0),
      intField(f, 'index', 0),
      intField(f, 'valid', 1),
      intField(f, 'duress', 0),
      intField(f, 'format', 0),
    ] as const;
    if (type === undefined || anyNaN(type, major, minor, ...nums)) return C.param;
    const version = algorithmVersion(ctx.profile, type);
    // no sensor for the type, or another algorithm version [PUSH-v2 §6.7]
    if (version === undefined || (major !== undefined && major !== version[0])) return C.param;
    const [no, index, valid, duress, format] = nums;
    return putTemplate(ctx, {
      table: 'biodata',
      pin,
      type,
      no,
      index,
      valid,
      duress,
      majorVer: major ?? version[0],
      minorVer: minor ?? version[1],
      format,
      tmp: field(f, 'tmp') ?? '',
    });
  },
  biophoto: (pin, f, ctx) => putPhoto(pin, f, ctx, intField(f, 'type', 9)),
  userpic: (pin, f, ctx) => putPhoto(pin, f, ctx, undefined),
};

function putPhoto(pin: string, f: FieldList, ctx: ExecutionContext, type: number | undefined): number {
  const size = optIntField(f, 'size');
  if (anyNaN(size, type)) return C.param;
  if (!ctx.memory.users.has(pin)) return C.noUser;
  const content = field(f, 'content') ?? '';
  keepPhoto(ctx.memory, pin, type, size ?? content.length, content);
  return 0;
}
