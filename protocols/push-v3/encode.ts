// Security PUSH command wire strings [COMMANDS §4, §5, §6 column v3; PUSH-v3 §11].
import type {
  DeviceProfile,
  EncodeContext,
  EncodeFailure,
  EncodeResult,
  SyncHoliday,
  SyncOp,
  SyncRight,
  SyncTemplate,
  SyncTimezone,
  SyncUser,
} from '../commands.js';
import { checkAttendanceWindow, custom, doorBeyondLockCount, firmwareUpgrade, loadUsersPin, wire } from '../preset-common.js';
import {
  invalid,
  isFailure,
  type CheckAttendanceParams,
  type CommandTextParams,
  type DoorOpenParams,
  type EnrollParams,
  type FirmwareParams,
  type LoadUsersParams,
  type ValidCommand,
} from '../preset-params.js';
import { doorMask, hexByte } from '../shared/hex.js';
import {
  allDoorsMask,
  faceType,
  hasBiodata,
  hasPhotos,
  lockCount,
  multiBioSupport,
  packedDates,
  supportsBioType,
} from '../shared/profile.js';
import { encodePhoto } from '../shared/photo-lines.js';
import { MAX_BIO_TYPE } from '../shared/records.js';
import { cardText, pinText, userFieldTexts, userWindowText } from '../shared/values.js';
import { zkEncode } from '../shared/zk-time.js';
import { zonedWallClock } from '../shared/zoned-time.js';
import { biodataParts, templateData } from '../template-fields.js';
import { deviceLacks, noWireFormV3, SYNC_USERS_COMPOSITE } from '../unsupported.js';
import { holidayRows, TIMEZONE_FIELDS } from './access-tables.js';

/** [PUSH-v3 §11.5] `CONTROL DEVICE AABBCCDD`, each byte `%02X`. Inputs are range-checked by the caller. */
const control = (aa: number, bb: number, cc: number, dd: number): string =>
  `CONTROL DEVICE ${[aa, bb, cc, dd].map((b) => hexByte(b) as string).join('')}`;

/** [COMMANDS §4.2] */
export const INFO_OPTIONS =
  '~SerialNumber,FirmVer,~DeviceName,MachineType,LockCount,ReaderCount,AuxInCount,AuxOutCount,' +
  '~MaxUserCount,~MaxAttLogCount,~MaxUserFingerCount,IPAddress,NetMask,GATEIPAddress,~ZKFPVersion';

/** [COMMANDS §2.3] presets without a door parameter act on door 1. */
const DOOR_1 = 1;

/** `command` was validated against the catalog (codec-base.ts): params carry their defaults. */
export function encodePresetV3(command: ValidCommand, profile: DeviceProfile, context: EncodeContext): EncodeResult {
  const preset = command.preset;
  switch (preset) {
    // [COMMANDS §4.1] restart this device; ends its batch [PUSH-v3 §8.3]
    case 'reboot':
      return wire(control(3, 0, 0, 0));
    // [COMMANDS §4.2] values arrive on /iclock/querydata?type=options [PUSH-v3 §10.5]
    case 'info':
      return wire(`GET OPTIONS ${INFO_OPTIONS}`);
    // [COMMANDS §4.3] no v3 CHECK: a read-only round trip
    case 'check':
      return wire('GET OPTIONS ~SerialNumber,FirmVer');
    case 'reload-options':
    case 'emergency-off':
    case 'clear-photo':
    case 'shell-command':
      return noWireFormV3(preset);
    case 'door-open': {
      const p = command.params as DoorOpenParams;
      const missing = doorBeyondLockCount(p.door_id, profile);
      // [COMMANDS §4.5] output 01, lock relay 01, DD = seconds 1–254 [§3.3]
      return missing ?? wire(control(1, p.door_id, 1, p.duration));
    }
    // [COMMANDS §4.6] DD=00 closes; also ends a latched normal-open
    case 'door-close':
      return wire(control(1, DOOR_1, 1, 0));
    // [COMMANDS §4.7] lock-down on (needs AccSupportFunList bit 2; learned from the result)
    case 'door-lock':
      return wire(control(6, DOOR_1, 1, 0));
    // [COMMANDS §4.8] lock-down off; does not pulse the relay on v3
    case 'door-unlock':
      return wire(control(6, DOOR_1, 0, 0));
    // [COMMANDS §4.9] DD=FF latches the door open
    case 'normal-open':
      return wire(control(1, DOOR_1, 1, 0xff));
    // [COMMANDS §4.10–§4.11, §6] cancel alarm, BB=00 all doors
    case 'cancel-alarm':
    case 'clear-alarm':
      return wire(control(2, 0, 0, 0));
    // [COMMANDS §4.12] emergency dual-open
    case 'emergency-on':
      return wire(control(7, 1, 0, 0));
    case 'load-users': {
      const pin = loadUsersPin(command.params as LoadUsersParams, context);
      if (isFailure(pin)) return pin;
      // [COMMANDS §4.14] the whole table; one PIN is filtered by the runtime (filter=Pin= is unverified)
      const query = 'DATA QUERY tablename=user,fielddesc=*,filter=*';
      return pin === undefined ? wire(query) : { ok: true, lines: [query], keepPin: pin };
    }
    case 'sync-users':
      return SYNC_USERS_COMPOSITE;
    case 'enroll-biometric':
      return enroll(command.params as EnrollParams, profile, context);
    case 'check-attendance': {
      const w = checkAttendanceWindow(command.params as CheckAttendanceParams);
      // [COMMANDS §4.17] whole table; rows outside the window are dropped by the runtime (attendanceWindow)
      return isFailure(w) ? w : { ok: true, lines: ['DATA QUERY tablename=transaction,fielddesc=*,filter=*'], keepWindow: w };
    }
    // [COMMANDS §4.18] documented `*` = whole table rule
    case 'clear-log':
      return wire('DATA DELETE transaction *');
    // [COMMANDS §4.20]
    case 'clear-biodata':
      return wire('DATA DELETE templatev10 *', 'DATA DELETE biodata *');
    // [COMMANDS §4.21] this order; photos only on devices that keep them
    case 'clear-data':
      return wire(
        'DATA DELETE userauthorize *',
        'DATA DELETE templatev10 *',
        'DATA DELETE biodata *',
        'DATA DELETE user *',
        'DATA DELETE transaction *',
        ...(hasPhotos(profile) ? ['DATA DELETE biophoto *', 'DATA DELETE userpic *'] : []),
      );
    case 'firmware-upgrade':
      return firmwareUpgrade(command.params as FirmwareParams, profile, context, 3);
    case 'custom':
      return custom(command.params as CommandTextParams);
    /* c8 ignore next 2 */
    default:
      return preset satisfies never;
  }
}

/** [COMMANDS §4.16, PUSH-v3 §11.8] `ENROLL_BIO type\tno\tpin[\tcardno]\tretry\toverwrite`. */
function enroll(p: EnrollParams, profile: DeviceProfile, context: EncodeContext): EncodeResult {
  // cardno only when the user has a card (the vendor format line has it, its example omits it)
  const card = cardText(context.userCardNo);
  if (isFailure(card)) return card;
  const cardField = card === '' ? '' : `\tcardno=${card}`;
  const face = p.type === 'face' || p.fid === 111;
  const type = face ? faceType(profile) : 1;
  if (type === undefined) return deviceLacks('enroll-biometric', 3, 'the device reported no face support (MultiBioDataSupport, FaceFunOn)');
  return wire(`ENROLL_BIO type=${type}\tno=${face ? 0 : p.fid}\tpin=${p.pin}${cardField}\tretry=${p.retry}\toverwrite=${p.overwrite}`);
}

export function encodeSyncV3(op: SyncOp, profile: DeviceProfile, context: EncodeContext): EncodeResult {
  switch (op.op) {
    case 'user.upsert':
      return op.rights === undefined
        ? upsertUser(op.user, op.doors, op.timezoneId, profile, context)
        : upsertUserRights(op.user, op.rights, profile, context);
    case 'user.delete': {
      const pin = pinText(op.pin);
      if (isFailure(pin)) return pin;
      // [COMMANDS §5.2] vendor order: rights, templates, (biodata, photos), then the user
      return wire(
        `DATA DELETE userauthorize Pin=${pin}`,
        `DATA DELETE templatev10 Pin=${pin}`,
        ...(hasBiodata(profile) ? [`DATA DELETE biodata Pin=${pin}`] : []),
        ...(hasPhotos(profile) ? [`DATA DELETE biophoto PIN=${pin}`, `DATA DELETE userpic pin=${pin}`] : []),
        `DATA DELETE user Pin=${pin}`,
      );
    }
    case 'template.upsert':
      return upsertTemplate(op.template, profile);
    case 'template.delete':
      return deleteTemplates(op.pin, op.type, op.no, profile);
    case 'holiday.replace':
      return replaceHolidays(op.days);
    case 'timezones.set':
      return setTimezones(op.timezones);
    case 'access.query':
      return queryAccessTables(op.doors ?? [], profile);
    case 'door.set':
      return setDoor(op.door, op.unlockSeconds, op.keepOpenTimezoneId, profile);
    case 'photo.upsert':
    case 'photo.delete':
      return encodePhoto(op, profile, 'v3');
    /* c8 ignore next 2 */
    default:
      return op satisfies never;
  }
}

/** [COMMANDS §5.1] `user` + `userauthorize`: without the second row the user opens no door. */
function upsertUser(
  user: SyncUser,
  doors: readonly number[] | undefined,
  timezoneId: number | undefined,
  profile: DeviceProfile,
  context: EncodeContext,
): EncodeResult {
  const fields = userFieldTexts(user, profile);
  if (isFailure(fields)) return fields;
  const { pin, name, password, card, privilege, group } = fields;
  // [COMMANDS §3.4] StartTime/EndTime follow DateFmtFunOn, in the location's wall-clock time
  const start = userWindowText('start_time', user.startTime, 'start', context.timeZone, packedDates(profile));
  if (isFailure(start)) return start;
  const end = userWindowText('end_time', user.endTime, 'end', context.timeZone, packedDates(profile));
  if (isFailure(end)) return end;
  const tzId = timezoneId ?? 1;
  if (!Number.isInteger(tzId) || tzId < 0) return invalid('invalid timezone id');
  const mask = doorMaskFor(doors, profile);
  if (isFailure(mask)) return mask;
  return wire(
    `DATA UPDATE user CardNo=${card}\tPin=${pin}\tPassword=${password}\tGroup=${group}\tStartTime=${start}\tEndTime=${end}\tName=${name}\tPrivilege=${privilege}`,
    `DATA UPDATE userauthorize Pin=${pin}\tAuthorizeTimezoneId=${tzId}\tAuthorizeDoorId=${mask}`,
  );
}

/**
 * [PUSH-v3 §11.2] Access levels: the user, then its `userauthorize` rows replaced (deleted, then one per
 * right; none: present, opens no door). The `timezone` rows they name travel on their own (timezones.set).
 */
function upsertUserRights(user: SyncUser, rights: readonly SyncRight[], profile: DeviceProfile, context: EncodeContext): EncodeResult {
  const base = upsertUser(user, undefined, undefined, profile, context);
  if (!base.ok) return base;
  const pin = String(user.pin);
  const lines: string[] = [base.lines[0] as string, `DATA DELETE userauthorize Pin=${pin}`];
  const rows = userauthorizeRows(rights, profile);
  if (isFailure(rows)) return rows;
  for (const row of rows)
    lines.push(`DATA UPDATE userauthorize Pin=${pin}\tAuthorizeTimezoneId=${row.timezoneId}\tAuthorizeDoorId=${row.doorMask}`);
  return wire(...lines);
}

/** [PUSH-v3 §11.2] `timezone` rows, one per schedule: each value `(startHHMM << 16) | endHHMM`, 0 for no interval. */
function setTimezones(timezones: readonly SyncTimezone[]): EncodeResult {
  const lines: string[] = [];
  for (const tz of timezones) {
    if (
      !Number.isInteger(tz.id) ||
      tz.id < 1 ||
      tz.values.length !== TIMEZONE_FIELDS.length ||
      tz.values.some((v) => !Number.isInteger(v) || v < 0)
    )
      return invalid('invalid timezone row');
    lines.push(`DATA UPDATE timezone TimezoneId=${tz.id}\t${TIMEZONE_FIELDS.map((f, i) => `${f}=${tz.values[i]}`).join('\t')}`);
  }
  return lines.length === 0 ? invalid('no timezone rows') : wire(...lines);
}

/**
 * The `userauthorize` rows a user upsert leaves on the terminal [COMMANDS §3.2]: without rights (no access
 * level) schedule 1 through every door; otherwise one row per right, doors the terminal lacks (beyond its
 * LockCount) left out and a right with none left giving no row. The rights audit compares with these.
 */
export function userauthorizeRows(
  rights: readonly SyncRight[] | undefined,
  profile: DeviceProfile,
): { timezoneId: number; doorMask: number }[] | EncodeFailure {
  if (rights === undefined) return [{ timezoneId: 1, doorMask: allDoorsMask(profile) }];
  const limit = lockCount(profile) ?? 4;
  const rows: { timezoneId: number; doorMask: number }[] = [];
  for (const right of rights) {
    if (!Number.isInteger(right.timezoneId) || right.timezoneId < 1) return invalid('invalid timezone id');
    const doors = right.doors.filter((d) => d <= limit);
    if (doors.length === 0) continue;
    const mask = doorMaskFor(doors, profile);
    if (isFailure(mask)) return mask;
    rows.push({ timezoneId: right.timezoneId, doorMask: mask });
  }
  return rows;
}

/**
 * The `holiday` table replaced [PUSH-v3 §11.3 `DATA DELETE holiday *`]: one row per day, `Holiday` the date
 * (`YYYYMMDD`), `HolidayType` 1–3 (which `HolNTime` intervals of a schedule apply), `Loop` 1 yearly / 2 once
 * (the vendor SDK's holiday table; PUSH-v3 §11.2 names the table, not its fields).
 */
function replaceHolidays(days: readonly SyncHoliday[]): EncodeResult {
  const lines = ['DATA DELETE holiday *'];
  for (const d of holidayRows(days)) {
    if (!/^\d{8}$/.test(d.date) || ![1, 2, 3].includes(d.type)) return invalid('invalid holiday row');
    lines.push(`DATA UPDATE holiday Holiday=${d.date}\tHolidayType=${d.type}\tLoop=${d.loop}`);
  }
  return wire(...lines);
}

/** [PUSH-v3 §11.6] `SET OPTIONS Door<n>Drivertime=<s>,Door<n>KeepOpenTimeZone=<id>`: a door the terminal has, 1–254 s. */
function setDoor(door: number, seconds: number, timezoneId: number, profile: DeviceProfile): EncodeResult {
  const limit = lockCount(profile) ?? 1;
  if (!Number.isInteger(door) || door < 1 || door > limit) return invalid(`door must be 1 to ${limit}`);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 254) return invalid('unlock seconds must be 1 to 254');
  if (!Number.isInteger(timezoneId) || timezoneId < 0 || timezoneId > 50) return invalid('invalid timezone id');
  const [time, keepOpen] = doorOptionKeys(door);
  return wire(`SET OPTIONS ${time}=${seconds},${keepOpen}=${timezoneId}`);
}

/**
 * [PUSH-v3 §10.4] each table answers in querydata packets under its own line's id; [PUSH-v3 §10.5] the doors'
 * settings (the keys setDoor writes) answer as one options packet.
 */
function queryAccessTables(doors: readonly number[], profile: DeviceProfile): EncodeResult {
  const limit = lockCount(profile) ?? 1;
  if (doors.some((d) => !Number.isInteger(d) || d < 1 || d > limit)) return invalid(`doors must be 1 to ${limit}`);
  const tables = ['userauthorize', 'timezone', 'holiday'].map((t) => `DATA QUERY tablename=${t},fielddesc=*,filter=*`);
  if (doors.length === 0) return wire(...tables);
  return wire(...tables, `GET OPTIONS ${doors.flatMap((d) => doorOptionKeys(d)).join(',')}`);
}

/** [PUSH-v3 §11.6] the options that hold door `n`'s settings: relay time, kept open by schedule. */
export const doorOptionKeys = (n: number): readonly [string, string] => [`Door${n}Drivertime`, `Door${n}KeepOpenTimeZone`];

/** [COMMANDS §3.2] Σ 2^(door−1); default all doors. */
function doorMaskFor(doors: readonly number[] | undefined, profile: DeviceProfile): number | EncodeFailure {
  if (doors === undefined) return allDoorsMask(profile);
  const limit = lockCount(profile) ?? 4;
  if (doors.length === 0 || doors.some((d) => !Number.isInteger(d) || d < 1 || d > limit)) return invalid(`doors must be 1 to ${limit}`);
  return doorMask(doors);
}

/** [COMMANDS §5.3–§5.4] templatev10 for fingerprints unless the device takes type 1 as biodata; biodata otherwise. */
function upsertTemplate(template: SyncTemplate, profile: DeviceProfile): EncodeResult {
  const t = templateData(template);
  if (isFailure(t)) return t;
  if (t.type === 1 && !supportsBioType(profile, 1)) {
    return wire(`DATA UPDATE templatev10 Pin=${t.pin}\tFingerID=${t.no}\tValid=${template.duress === true ? 3 : 1}\tTemplate=${t.data}`);
  }
  if (multiBioSupport(profile).length > 0 && !supportsBioType(profile, t.type)) {
    return deviceLacks('sync-users', 3, `the device does not accept biometric type ${t.type}`);
  }
  const b = biodataParts(template);
  if (isFailure(b)) return b;
  // [COMMANDS §5.4] lower-case keys as in the vendor example
  return wire(
    `DATA UPDATE biodata pin=${t.pin}\tno=${t.no}\tindex=${b.index}\tvalid=1\tduress=${b.duress}\ttype=${t.type}` +
      `\tmajorver=${b.majorVer}\tminorver=${b.minorVer}\tformat=${b.format}\ttmp=${t.data}`,
  );
}

function deleteTemplates(
  pinValue: number | string,
  type: number | undefined,
  no: number | undefined,
  profile: DeviceProfile,
): EncodeResult {
  const pin = pinText(pinValue);
  if (isFailure(pin)) return pin;
  if (no !== undefined && (!Number.isInteger(no) || no < 0)) return invalid('invalid template number');
  // [COMMANDS §5.4] all types: `DATA DELETE biodata Pin=`; templatev10 holds the legacy fingerprints
  if (type === undefined) return wire(`DATA DELETE templatev10 Pin=${pin}`, `DATA DELETE biodata Pin=${pin}`);
  if (!Number.isInteger(type) || type < 0 || type > MAX_BIO_TYPE) return invalid('invalid biometric type');
  if (type === 1 && !supportsBioType(profile, 1)) {
    return wire(`DATA DELETE templatev10 Pin=${pin}${no === undefined ? '' : `\tFingerID=${no}`}`);
  }
  return wire(`DATA DELETE biodata Type=${type}\tPin=${pin}${no === undefined ? '' : `\tNo=${no}`}`);
}

/** [PUSH-v3 §11.6] `SET OPTIONS DateTime=${packed}` in the location's wall-clock time. */
export function timeSyncV3(now: Date, timeZone: string): EncodeResult {
  const local = zonedWallClock(now, timeZone);
  if (local === undefined) return invalid(`unknown time zone ${JSON.stringify(timeZone)}`);
  const packed = zkEncode(local);
  return packed === undefined ? invalid('times before 2000 cannot be sent to the device') : wire(`SET OPTIONS DateTime=${packed}`);
}
