// Security PUSH table rows [PUSH-v3 §7.2–§7.4, §10.4]: `rtlog`, `rtstate`, and `tabledata` uploads
// (`${table} key=value\tkey=value…`), which are also the format of DATA QUERY answers.
import type { AttendancePhoto, DeviceEvent, RecordSource } from '../events.js';
import type { Decoded } from '../shared/decoded.js';
import { parseKeyValues, type KeyValues } from '../shared/key-value.js';
import { splitFields, splitLines } from '../shared/lines.js';
import { intOrNull } from '../shared/numbers.js';
import {
  accessRecord,
  bioPhoto,
  bioTemplate,
  doorEvent,
  doorState,
  errorLog,
  fingerprintTemplate,
  userPhoto,
  userRecord,
  userRight,
} from '../shared/records.js';
import { attendancePhoto } from '../push-v2/photo.js';
import { holidayRow, timezoneRow } from './access-tables.js';

/**
 * Rows of a known table: a leading `${table} ` (any case) is stripped [PUSH-v3 §7.4], pairs are parsed
 * by key (field order differs between firmware [PUSH-v3 §7.2]). Tables BioGate does not parse
 * (`userauthorize`, `timezone`, `holiday`, `identitycard`, `workcode`…) are kept raw, one string per
 * record [PUSH-v3 §10.4]; `userauthorize` rows are also typed (`userRights`, a rights audit's answer); a body
 * with NUL bytes is binary and kept whole.
 */
export function decodeRows(table: string, body: Uint8Array, text: string, source: RecordSource): Decoded {
  const t = table.toLowerCase();
  const rows = () => rowMaps(t, text);
  switch (t) {
    case 'user':
      return collect(rows(), userRecord, (records) => ({ type: 'users', source, records }));
    case 'userauthorize':
      return rawAndTyped(
        text,
        source,
        rows().flatMap((row) => userRight(row.kv) ?? []),
        (records) => ({ type: 'userRights', source, records }),
      );
    case 'timezone':
      return rawAndTyped(
        text,
        source,
        rows().flatMap((row) => timezoneRow(row.kv) ?? []),
        (records) => ({ type: 'timezoneRows', source, records }),
      );
    case 'holiday':
      return rawAndTyped(
        text,
        source,
        rows().flatMap((row) => holidayRow(row.kv) ?? []),
        (records) => ({ type: 'holidayRows', source, records }),
      );
    case 'templatev10':
      return collect(rows(), fingerprintTemplate, (records) => ({ type: 'fingerprintTemplates', source, records }));
    case 'biodata':
      return collect(rows(), bioTemplate, (records) => ({ type: 'bioTemplates', source, records }));
    case 'biophoto':
      return collect(rows(), bioPhoto, (records) => ({ type: 'bioPhotos', source, records }));
    case 'userpic':
      return collect(rows(), userPhoto, (records) => ({ type: 'userPhotos', source, records }));
    case 'errorlog':
      return collect(rows(), errorLog, (records) => ({ type: 'errorLogs', source, records }));
    case 'transaction':
      return collect(rows(), accessRecord, (records) => ({ type: 'accessRecords', source, records }));
    case 'attphoto':
      return collect(rows(), attPhotoRow, (records) => ({ type: 'attendancePhotos', source, records }));
    case 'rtlog':
      return collect(rows(), doorEvent, (records) => ({ type: 'doorEvents', source, records }));
    case 'rtstate':
      return collect(rows(), doorState, (records) => ({ type: 'doorStates', source, records }));
    default: {
      if (body.includes(0)) return { events: [{ type: 'unknownTable', source, body }], rejected: [] };
      const records = splitLines(text);
      return { events: records.length > 0 ? [{ type: 'rawRecords', source, records }] : [], rejected: [] };
    }
  }
}

/**
 * The access tables are kept raw like other unparsed tables, and typed too (the access audit compares
 * them): the typed event is the same rows, not counted again (decode.ts receivedRecords, countRecords).
 */
function rawAndTyped<T>(text: string, source: RecordSource, typed: T[], wrap: (records: T[]) => DeviceEvent): Decoded {
  const records = splitLines(text);
  const events: DeviceEvent[] = records.length > 0 ? [{ type: 'rawRecords', source, records }] : [];
  if (typed.length > 0) events.push(wrap(typed));
  return { events, rejected: [] };
}

/** Records of a table body: lines, except that a photo record broken before `content=` is joined. */
export function tableRecords(table: string, text: string): string[] {
  const t = table.toLowerCase();
  return t === 'userpic' || t === 'biophoto' ? joinContinued(splitLines(text), (line) => startsWithWord(line, t)) : splitLines(text);
}

/**
 * [fixture B26] some firmware breaks a `userpic`/`biophoto` record before `content=`: records are split
 * at the record prefix, not at line ends. A line that does not start a record continues the record
 * before it while that record has no `content=` yet; it is joined with one TAB.
 */
export function joinContinued(lines: readonly string[], startsRecord: (line: string) => boolean): string[] {
  const out: string[] = [];
  let open = false;
  for (const line of lines) {
    const last = out.length - 1;
    if (last >= 0 && open && !startsRecord(line)) {
      const prev = out[last] as string;
      out[last] = prev.endsWith('\t') || line.startsWith('\t') ? prev + line : `${prev}\t${line.trimStart()}`;
    } else {
      out.push(line);
    }
    open = !/(^|[\t ])content=/i.test(out[out.length - 1] as string);
  }
  return out;
}

/** Whether `line` starts with `word` (any case) followed by a blank. */
function startsWithWord(line: string, word: string): boolean {
  const head = /^\s*(\S+)[ \t]/.exec(line);
  return head !== null && (head[1] as string).toLowerCase() === word;
}

interface Row {
  readonly line: string;
  readonly kv: KeyValues;
}

function rowMaps(table: string, text: string): Row[] {
  return tableRecords(table, text).map((line) => {
    let rowText = line;
    const head = /^\s*(\S+)[ \t]+/.exec(line);
    if (head !== null && (head[1] as string).toLowerCase() === table) rowText = line.slice(head[0].length);
    const { fields, spaced } = splitFields(rowText);
    return { line, kv: parseKeyValues(fields, spaced) };
  });
}

function collect<T>(rows: readonly Row[], build: (kv: KeyValues) => T | undefined, wrap: (records: T[]) => DeviceEvent): Decoded {
  const records: T[] = [];
  const rejected: string[] = [];
  for (const row of rows) {
    const record = build(row.kv);
    if (record === undefined) rejected.push(row.line);
    else records.push(record);
  }
  return { events: records.length > 0 ? [wrap(records)] : [], rejected };
}

/** [PUSH-v3 §7.4] ATTPHOTO rows have no table-name prefix; `pin` is the file name, `photo` base64. */
function attPhotoRow(kv: KeyValues): AttendancePhoto | undefined {
  const name = kv.pin?.trim() ?? '';
  const photo = kv.photo ?? '';
  return name === '' || photo === '' ? undefined : attendancePhoto(name, intOrNull(kv.size), '', { encoding: 'base64', text: photo });
}
