// Values that go inside command fields [COMMANDS §1, §3.4, §3.6, §3.10]. A value must not contain TAB,
// CR, LF or NUL: such input fails with `invalid character in ${field}`.
import type { DeviceProfile, EncodeFailure, SyncUser } from '../commands.js';
import { maxNameBytes, option } from './profile.js';
import { charBytes, charsetFor, type Charset } from './text.js';
import { parseCard } from './card.js';
import { formatCompactDate, parseWallClock, zkEncode, type WallClock } from './zk-time.js';
import { isTimeZone, zonedWallClock } from './zoned-time.js';

const invalid = (reason: string): EncodeFailure => ({ ok: false, code: 'invalid', reason });
const SEPARATORS = /[\t\r\n\0]/;

/** The value itself, or the failure `invalid character in ${field}` [COMMANDS §1]. */
export function fieldText(field: string, value: string): string | EncodeFailure {
  return SEPARATORS.test(value) ? invalid(`invalid character in ${field}`) : value;
}

/** [COMMANDS §3.10] digits; letters too for devices with StringPinFunOn=1. */
export function pinText(pin: number | string): string | EncodeFailure {
  const text = String(pin).trim();
  return /^[A-Za-z0-9]{1,24}$/.test(text) && text !== '0' ? text : invalid('invalid character in pin');
}

/** [COMMANDS §3.6] decimal on the wire; empty = no card. Bracketed hex is converted. */
export function cardText(card: string | null | undefined): string | EncodeFailure {
  if (card === null || card === undefined || card.trim() === '') return '';
  return parseCard(card) ?? invalid('card_no must be a decimal card number');
}

export function passwordText(password: number | string | null | undefined): string | EncodeFailure {
  if (password === null || password === undefined) return '';
  return fieldText('password', String(password));
}

/** [COMMANDS §5.1] first and last name joined by one space, cut to `maxBytes` bytes of the device's
 *  character set (UTF-8, GBK for language 83 [COMMANDS §3.10]) without splitting a character. */
export function userName(
  first: string | null | undefined,
  last: string | null | undefined,
  maxBytes: number,
  charset: Charset = 'utf-8',
): string | EncodeFailure {
  const joined = [first, last]
    .map((part) => (part ?? '').trim())
    .filter((part) => part !== '')
    .join(' ');
  const checked = fieldText('name', joined);
  if (typeof checked !== 'string') return checked;
  let bytes = 0;
  let out = '';
  for (const ch of checked) {
    const size = charBytes(ch, charset);
    if (bytes + size > maxBytes) break;
    bytes += size;
    out += ch;
  }
  return out;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * [COMMANDS §3.4] an API date or datetime as device-local wall-clock time. A date alone is 00:00:00
 * (start) or 23:59:59 (end); a datetime with an offset is converted to `timeZone`; without one it is
 * already location time. undefined when malformed.
 */
export function apiTimeToLocal(value: string, edge: 'start' | 'end', timeZone: string): WallClock | undefined {
  const text = value.trim();
  const d = DATE.exec(text);
  if (d !== null) return parseWallClock(`${text} ${edge === 'start' ? '00:00:00' : '23:59:59'}`);
  const m = DATE_TIME.exec(text);
  if (m === null) return undefined;
  const local = parseWallClock(`${m[1] as string} ${m[2] as string}:${m[3] ?? '00'}`);
  if (local === undefined || m[4] === undefined) return local;
  const zone = m[4].toUpperCase() === 'Z' ? 'Z' : `${m[4].slice(0, 3)}:${m[4].slice(-2)}`;
  const instant = Date.parse(`${m[1] as string}T${m[2] as string}:${m[3] ?? '00'}${zone}`);
  return Number.isNaN(instant) ? undefined : zonedWallClock(new Date(instant), timeZone);
}

/** [COMMANDS §3.4] v3 user StartTime/EndTime: `0` unlimited, `YYYYMMDD`, or packed seconds (DateFmtFunOn=1). */
export function userWindowText(
  field: string,
  value: string | null | undefined,
  edge: 'start' | 'end',
  timeZone: string,
  packed: boolean,
): string | EncodeFailure {
  if (value === null || value === undefined || value.trim() === '') return '0';
  const local = apiTimeToLocal(value, edge, timeZone);
  if (local === undefined) return invalid(isTimeZone(timeZone) ? `invalid ${field}` : `unknown time zone ${JSON.stringify(timeZone)}`);
  if (!packed) return formatCompactDate(local);
  const seconds = zkEncode(local);
  return seconds === undefined ? invalid(`${field} before 2000 cannot be sent to the device`) : String(seconds);
}

/** The fields both dialects' user records carry, validated once [COMMANDS §5.1, §3.6, §3.7, §3.10]. */
export interface UserFieldTexts {
  readonly pin: string;
  readonly name: string;
  readonly password: string;
  readonly card: string;
  readonly privilege: number;
  readonly group: number;
}

export function userFieldTexts(user: SyncUser, profile: DeviceProfile): UserFieldTexts | EncodeFailure {
  const pin = pinText(user.pin);
  if (typeof pin !== 'string') return pin;
  const name = userName(user.firstName, user.lastName, maxNameBytes(profile), charsetFor(option(profile, 'Language')));
  if (typeof name !== 'string') return name;
  const password = passwordText(user.password);
  if (typeof password !== 'string') return password;
  const card = cardText(user.cardNo);
  if (typeof card !== 'string') return card;
  const privilege = user.privilege ?? 0;
  const group = user.group ?? 0;
  if (!Number.isInteger(privilege) || privilege < 0 || privilege > 255) return invalid('invalid privilege');
  if (!Number.isInteger(group) || group < 0 || group > 99) return invalid('invalid group');
  return { pin, name, password, card, privilege, group };
}
