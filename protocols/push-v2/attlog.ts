// ATTLOG uploads [PUSH-v2 §6.2] — also accepted from 3.x terminals [PUSH-v3 §7.5].
import type { AttendanceRecord, RecordSource } from '../events.js';
import type { Decoded } from '../shared/decoded.js';
import { parseKeyValues, pick } from '../shared/key-value.js';
import { splitFields } from '../shared/lines.js';
import { intOrNull } from '../shared/numbers.js';
import { localTime, MAX_PIN_LENGTH } from '../shared/records.js';

// [PUSH-v2 §6.2] space-separated fallback: the time value itself contains one space
const SPACED = /^(\S+)\s+(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})(?:\s+(.*))?$/;
const EMPTY: readonly string[] = [];

export function decodeAttlog(text: string, source: RecordSource): Decoded {
  const records: AttendanceRecord[] = [];
  const rejected: string[] = [];
  for (const piece of text.split('\n')) {
    // [PUSH-v2 §2.3] LF or CR LF, a final separator or none
    const line = piece.endsWith('\r') ? piece.slice(0, -1) : piece;
    if (line === '' || (line.charCodeAt(0) <= 32 && line.trim() === '')) continue;
    const record = attendanceLine(line);
    if (record === undefined) rejected.push(line);
    else records.push(record);
  }
  return { events: records.length > 0 ? [{ type: 'attendance', source, records }] : [], rejected };
}

function attendanceLine(line: string): AttendanceRecord | undefined {
  let fields: string[];
  if (line.includes('\t')) {
    fields = line.split('\t');
    // [PUSH-v2 §2.4] a trailing TAB adds one empty field
    if (fields.length > 1 && fields[fields.length - 1] === '') fields.pop();
  } else {
    const m = SPACED.exec(line.trim());
    if (m === null) return keyValueLine(line);
    fields = [m[1] as string, m[2] as string, ...(m[3] === undefined ? EMPTY : m[3].split(/\s+/))];
  }
  const first = fields[0] as string;
  // [PUSH-v2 §6.2] `PIN=…\tDateTime=…` lines from third-party descriptions, accepted defensively
  if (first.includes('=')) return keyValueLine(line);
  const time = localTime(fields[1]);
  const status = numberField(fields[2]);
  const verify = numberField(fields[3]);
  const pin = first.trim();
  if (!usablePin(pin) || time === undefined || status === undefined || verify === undefined) return undefined;
  return {
    pin,
    time,
    status,
    verify,
    workCode: fields[4] ?? '',
    reserved1: fields[5] ?? '',
    reserved2: fields[6] ?? '',
    extra: fields.length > 7 ? fields.slice(7) : EMPTY,
  };
}

/** A punch needs a PIN of at most MAX_PIN_LENGTH characters: a longer one rejects its line. */
const usablePin = (pin: string): boolean => pin !== '' && pin.length <= MAX_PIN_LENGTH;

/** null for an empty or missing field, undefined for a malformed one. */
function numberField(value: string | undefined): number | null | undefined {
  if (value === undefined || value.trim() === '') return null;
  return intOrNull(value) ?? undefined;
}

function keyValueLine(line: string): AttendanceRecord | undefined {
  const { fields, spaced } = splitFields(line);
  const kv = parseKeyValues(fields, spaced);
  const pin = kv.pin?.trim();
  const time = localTime(pick(kv, 'datetime', 'time'));
  const status = numberField(kv.status);
  const verify = numberField(pick(kv, 'verified', 'verify'));
  if (pin === undefined || !usablePin(pin) || time === undefined || status === undefined || verify === undefined) return undefined;
  return { pin, time, status, verify, workCode: kv.workcode ?? '', reserved1: '', reserved2: '', extra: EMPTY };
}
