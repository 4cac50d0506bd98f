// Typed records from key=value maps (keys lower-cased). One builder per record kind serves both
// generations: v2 keys (`PIN`, `Pri`, `Passwd`, `Card`, `Grp`, `FID`, `TMP` [PUSH-v2 §6.4]) and v3 keys
// (`pin`, `privilege`, `password`, `cardno`, `group`, `fingerid`, `template` [PUSH-v3 §7.4]) are aliases.
// A builder returns undefined when the record lacks what makes it usable (a PIN, a template).
import type {
  AccessRecord,
  BioPhoto,
  BioTemplate,
  DoorEvent,
  DoorState,
  ErrorLogRecord,
  FaceTemplate,
  FingerprintTemplate,
  FingerVeinTemplate,
  UserPhoto,
  UserRecord,
  UserRightRecord,
} from '../events.js';
import { isBase64 } from './base64.js';
import { parseCard } from './card.js';
import { pick, rest, type KeyValues } from './key-value.js';
import { flagOrNull, intOrNull } from './numbers.js';
import { formatWallClock, zkDecode } from './zk-time.js';

const str = (value: string | undefined): string => value ?? '';

/**
 * Longest PIN a terminal may send (characters). ZKTeco firmware keeps at most 24 (`PIN2`); a longer
 * one is not a person's PIN, so the line holding it is a rejected line, counted and never stored.
 */
export const MAX_PIN_LENGTH = 24;

/** A record's PIN: trimmed, non-empty, at most MAX_PIN_LENGTH; undefined otherwise. */
const pinOf = (kv: KeyValues): string | undefined => {
  const pin = kv.pin?.trim();
  return pin === undefined || pin === '' || pin.length > MAX_PIN_LENGTH ? undefined : pin;
};
/** An optional PIN (events without a person carry none): '' when absent, undefined when too long. */
const optionalPin = (value: string | undefined): string | undefined =>
  value === undefined ? '' : value.length > MAX_PIN_LENGTH ? undefined : value;
const mismatch = (size: number | null, data: string): boolean => size !== null && size !== data.length;

export function userRecord(kv: KeyValues): UserRecord | undefined {
  const pin = pinOf(kv);
  if (pin === undefined) return undefined;
  const card = str(pick(kv, 'card', 'cardno'));
  return {
    pin,
    name: str(kv.name),
    // [PUSH-v2 §6.10] USERINFO query answers print `Privilege` instead of `Pri`
    privilege: intOrNull(pick(kv, 'pri', 'privilege')),
    password: str(pick(kv, 'passwd', 'password')),
    // [COMMANDS §3.6] decimal or bracketed little-endian hex
    cardNo: parseCard(card) ?? card,
    group: intOrNull(pick(kv, 'grp', 'group')),
    timeZones: str(kv.tz),
    verify: intOrNull(kv.verify),
    viceCard: str(kv.vicecard),
    uid: intOrNull(kv.uid),
    startTime: str(kv.starttime),
    endTime: str(kv.endtime),
    disabled: flagOrNull(kv.disable),
  };
}

/** v3 `userauthorize` [PUSH-v3 §10.4]: a right needs its time zone and door mask (non-negative integers). */
export function userRight(kv: KeyValues): UserRightRecord | undefined {
  const pin = pinOf(kv);
  const timezoneId = intOrNull(kv.authorizetimezoneid);
  const doorMask = intOrNull(kv.authorizedoorid);
  if (pin === undefined || timezoneId === null || doorMask === null || timezoneId < 0 || doorMask < 0) return undefined;
  return { pin, timezoneId, doorMask };
}

/** v2 `FP` / `FINGERTMP` and v3 `templatev10`. */
export function fingerprintTemplate(kv: KeyValues): FingerprintTemplate | undefined {
  const pin = pinOf(kv);
  const template = pick(kv, 'tmp', 'template');
  const finger = intOrNull(pick(kv, 'fid', 'fingerid', 'no'));
  if (pin === undefined || template === undefined || template === '' || finger === null || finger < 0) return undefined;
  const valid = intOrNull(kv.valid);
  const size = intOrNull(kv.size);
  // [PUSH-v3 §7.4] fingerid + 16 marks a duress finger; [COMMANDS §3.9] Valid=3 is duress too
  const duressFinger = finger >= 16;
  return {
    pin,
    template,
    size,
    valid,
    fingerIndex: duressFinger ? finger - 16 : finger,
    duress: duressFinger || valid === 3,
    uid: intOrNull(kv.uid),
    usable: isBase64(template),
    sizeMismatch: mismatch(size, template),
  };
}

/** v2 legacy `FACE` (A omits FID) [PUSH-v2 §6.4]. */
export function faceTemplate(kv: KeyValues): FaceTemplate | undefined {
  const pin = pinOf(kv);
  const template = pick(kv, 'tmp', 'template');
  if (pin === undefined || template === undefined || template === '') return undefined;
  const size = intOrNull(kv.size);
  return {
    pin,
    template,
    size,
    faceIndex: intOrNull(kv.fid),
    valid: intOrNull(kv.valid),
    usable: isBase64(template),
    sizeMismatch: mismatch(size, template),
  };
}

export function fingerVeinTemplate(kv: KeyValues): FingerVeinTemplate | undefined {
  const pin = pinOf(kv);
  const template = pick(kv, 'tmp', 'template');
  const finger = intOrNull(kv.fid);
  if (pin === undefined || template === undefined || template === '' || finger === null) return undefined;
  const size = intOrNull(kv.size);
  return {
    pin,
    template,
    size,
    fingerIndex: finger,
    index: intOrNull(kv.index),
    valid: intOrNull(kv.valid),
    usable: isBase64(template),
    sizeMismatch: mismatch(size, template),
  };
}

/** Highest biometric type kept: 10 is the visible-light palm [PUSH-v2 §9.4]; types above it are
 *  future ones, stored and synced as opaque templates. */
export const MAX_BIO_TYPE = 255;

/** `BIODATA` / `biodata` [PUSH-v2 §6.7, §9.4]. */
export function bioTemplate(kv: KeyValues): BioTemplate | undefined {
  const pin = pinOf(kv);
  const template = pick(kv, 'tmp', 'template');
  const type = intOrNull(kv.type);
  if (pin === undefined || template === undefined || template === '' || type === null || type < 0 || type > MAX_BIO_TYPE) return undefined;
  return {
    pin,
    type,
    template,
    no: intOrNull(kv.no) ?? 0,
    index: intOrNull(kv.index) ?? 0,
    valid: intOrNull(kv.valid),
    duress: flagOrNull(kv.duress) ?? false,
    majorVer: str(kv.majorver),
    minorVer: str(kv.minorver),
    format: intOrNull(kv.format),
    usable: isBase64(template),
  };
}

export function userPhoto(kv: KeyValues): UserPhoto | undefined {
  const pin = pinOf(kv);
  const content = kv.content;
  if (pin === undefined || content === undefined || content === '') return undefined;
  return { pin, content, fileName: str(kv.filename), size: intOrNull(kv.size), usable: isBase64(content) };
}

export function bioPhoto(kv: KeyValues): BioPhoto | undefined {
  const photo = userPhoto(kv);
  return photo === undefined ? undefined : { ...photo, type: intOrNull(kv.type) };
}

export function errorLog(kv: KeyValues): ErrorLogRecord | undefined {
  const errCode = kv.errcode;
  if (errCode === undefined || errCode === '') return undefined;
  return {
    errCode,
    errMsg: str(kv.errmsg),
    dataOrigin: str(kv.dataorigin),
    cmdId: str(kv.cmdid),
    additional: str(kv.additional),
  };
}

const digit = (s: string, i: number): number => {
  const c = s.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : Number.NaN;
};
const two = (s: string, i: number): number => digit(s, i) * 10 + digit(s, i + 1);

/**
 * Device-local `YYYY-MM-DD HH:MM:SS`, normalising a `T` separator; undefined when malformed. Checked by
 * character codes: this runs once per attendance record (hot path of 10,000-line uploads).
 */
export function localTime(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const s = text.length === 19 ? text : text.trim();
  if (s.length !== 19 || s[4] !== '-' || s[7] !== '-' || s[13] !== ':' || s[16] !== ':') return undefined;
  const sep = s[10];
  const year = two(s, 0) * 100 + two(s, 2);
  const month = two(s, 5);
  const day = two(s, 8);
  const hour = two(s, 11);
  const minute = two(s, 14);
  const second = two(s, 17);
  // NaN fails every comparison below
  if (!(year >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 60)) return undefined;
  if (sep === ' ') return s;
  return sep === 'T' ? `${s.slice(0, 10)} ${s.slice(11)}` : undefined;
}

const DOOR_EVENT_KEYS = new Set(['time', 'pin', 'cardno', 'eventaddr', 'event', 'inoutstatus', 'verifytype', 'index']);

/** v3 `rtlog`, by key — field order differs between firmware [PUSH-v3 §7.2]. */
export function doorEvent(kv: KeyValues): DoorEvent | undefined {
  const time = localTime(kv.time);
  const event = intOrNull(kv.event);
  const pin = optionalPin(kv.pin);
  if (time === undefined || event === null || pin === undefined) return undefined;
  return {
    time,
    event,
    pin,
    cardNo: str(kv.cardno),
    door: intOrNull(kv.eventaddr),
    inOutStatus: intOrNull(kv.inoutstatus),
    verifyType: str(kv.verifytype),
    index: intOrNull(kv.index),
    extra: rest(kv, DOOR_EVENT_KEYS),
  };
}

const DOOR_STATE_KEYS = new Set(['time', 'sensor', 'relay', 'alarm', 'door']);

/** v3 `rtstate` [PUSH-v3 §7.3]; unknown keys (`door=`) accepted. */
export function doorState(kv: KeyValues): DoorState | undefined {
  const time = localTime(kv.time);
  if (time === undefined) return undefined;
  return {
    time,
    sensor: str(kv.sensor),
    relay: str(kv.relay),
    alarm: str(kv.alarm),
    door: str(kv.door),
    extra: rest(kv, DOOR_STATE_KEYS),
  };
}

const ACCESS_KEYS = new Set(['pin', 'cardno', 'verified', 'doorid', 'eventtype', 'inoutstate', 'time_second', 'index']);

/** v3 `transaction` row; `time_second` is ZK packed seconds [PUSH-v3 §7.6, §13.1]. */
export function accessRecord(kv: KeyValues): AccessRecord | undefined {
  const timeSecond = intOrNull(kv.time_second);
  const wall = timeSecond === null ? undefined : zkDecode(timeSecond);
  const pin = optionalPin(kv.pin);
  if (timeSecond === null || wall === undefined || pin === undefined) return undefined;
  return {
    timeSecond,
    time: formatWallClock(wall),
    pin,
    cardNo: str(kv.cardno),
    verified: intOrNull(kv.verified),
    doorId: intOrNull(kv.doorid),
    eventType: intOrNull(kv.eventtype),
    inOutState: intOrNull(kv.inoutstate),
    index: intOrNull(kv.index),
    extra: rest(kv, ACCESS_KEYS),
  };
}
