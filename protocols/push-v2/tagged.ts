// Tagged record lines: `OPERLOG` multiplexes `OPLOG`, `USER`, `FP`, `FACE`, `FVEIN`, `USERPIC`,
// `BIOPHOTO` [PUSH-v2 §6.4]; `BIODATA` [§6.7] and `ERRORLOG` [§6.9] lines carry their own tag; query
// answers may arrive as `table=USERINFO` lines without the `USER ` prefix [§6.10].
import type {
  BioPhoto,
  BioTemplate,
  DeviceEvent,
  ErrorLogRecord,
  FaceTemplate,
  FingerprintTemplate,
  FingerVeinTemplate,
  OperationLog,
  RecordSource,
  UserPhoto,
  UserRecord,
} from '../events.js';
import type { Decoded } from '../shared/decoded.js';
import { parseKeyValues, type KeyValues } from '../shared/key-value.js';
import { splitFields, splitLines } from '../shared/lines.js';
import { intOrNull } from '../shared/numbers.js';
import {
  bioPhoto,
  bioTemplate,
  errorLog,
  faceTemplate,
  fingerprintTemplate,
  fingerVeinTemplate,
  localTime,
  userPhoto,
  userRecord,
} from '../shared/records.js';
import { TAGS, type Tag } from './tables.js';

interface Buckets {
  operationLogs: OperationLog[];
  users: UserRecord[];
  fingerprintTemplates: FingerprintTemplate[];
  faceTemplates: FaceTemplate[];
  fingerVeinTemplates: FingerVeinTemplate[];
  bioTemplates: BioTemplate[];
  userPhotos: UserPhoto[];
  bioPhotos: BioPhoto[];
  errorLogs: ErrorLogRecord[];
  unknownRecords: string[];
}

/** Decode a body of tagged lines; `defaultTag` applies to lines without a tag (USERINFO → USER …). */
export function decodeTagged(text: string, source: RecordSource, defaultTag?: Tag): Decoded {
  const b: Buckets = {
    operationLogs: [],
    users: [],
    fingerprintTemplates: [],
    faceTemplates: [],
    fingerVeinTemplates: [],
    bioTemplates: [],
    userPhotos: [],
    bioPhotos: [],
    errorLogs: [],
    unknownRecords: [],
  };
  const rejected: string[] = [];
  for (const line of photoRecordsJoined(splitLines(text), defaultTag)) {
    const head = tagOf(line);
    const tag = head === undefined ? undefined : TAGS.get(head.word.toUpperCase());
    if (tag !== undefined && head !== undefined) {
      if (!addRecord(b, tag, line.slice(head.end))) rejected.push(line);
    } else if (defaultTag !== undefined && line.includes('=')) {
      if (!addRecord(b, defaultTag, line)) rejected.push(line);
    } else if (head !== undefined) {
      // [PUSH-v2 §6.4] unknown tags are kept raw
      b.unknownRecords.push(line);
    } else {
      rejected.push(line);
    }
  }
  const events: DeviceEvent[] = [];
  if (b.operationLogs.length > 0) events.push({ type: 'operationLogs', source, records: b.operationLogs });
  if (b.users.length > 0) events.push({ type: 'users', source, records: b.users });
  if (b.fingerprintTemplates.length > 0) events.push({ type: 'fingerprintTemplates', source, records: b.fingerprintTemplates });
  if (b.faceTemplates.length > 0) events.push({ type: 'faceTemplates', source, records: b.faceTemplates });
  if (b.fingerVeinTemplates.length > 0) events.push({ type: 'fingerVeinTemplates', source, records: b.fingerVeinTemplates });
  if (b.bioTemplates.length > 0) events.push({ type: 'bioTemplates', source, records: b.bioTemplates });
  if (b.userPhotos.length > 0) events.push({ type: 'userPhotos', source, records: b.userPhotos });
  if (b.bioPhotos.length > 0) events.push({ type: 'bioPhotos', source, records: b.bioPhotos });
  if (b.errorLogs.length > 0) events.push({ type: 'errorLogs', source, records: b.errorLogs });
  if (b.unknownRecords.length > 0) events.push({ type: 'unknownRecords', source, lines: b.unknownRecords });
  return { events, rejected };
}

const PHOTO_TAGS: ReadonlySet<Tag | undefined> = new Set<Tag>(['USERPIC', 'BIOPHOTO']);

/**
 * [fixture A41] some firmware breaks a `USERPIC`/`BIOPHOTO` record before `Content=`: for those records
 * the next record starts at a tag (or, in a table without tags, at `PIN=`), not at a line end. A line
 * that starts neither continues the photo record before it while that record has no `Content=` yet.
 */
function photoRecordsJoined(lines: readonly string[], defaultTag: Tag | undefined): string[] {
  const out: string[] = [];
  let open = false;
  for (const line of lines) {
    const head = tagOf(line);
    const tag = head === undefined ? undefined : TAGS.get(head.word.toUpperCase());
    const starts = tag !== undefined || /^\s*pin=/i.test(line);
    if (open && !starts && out.length > 0) {
      const prev = out.pop() as string;
      out.push(prev.endsWith('\t') || line.startsWith('\t') ? prev + line : `${prev}\t${line.trimStart()}`);
    } else {
      out.push(line);
      open = PHOTO_TAGS.has(tag ?? (starts ? defaultTag : undefined));
    }
    if (open && /(^|[\t ])content=/i.test(out[out.length - 1] as string)) open = false;
  }
  return out;
}

/** A leading word of letters followed by blanks: the tag and where the record body starts. */
function tagOf(line: string): { word: string; end: number } | undefined {
  let start = 0;
  while (line[start] === ' ' || line[start] === '\t') start++;
  let i = start;
  for (let c = line.charCodeAt(i); (c >= 65 && c <= 90) || (c >= 97 && c <= 122); c = line.charCodeAt(++i));
  if (i === start || (line[i] !== ' ' && line[i] !== '\t')) return undefined;
  const word = line.slice(start, i);
  while (line[i] === ' ' || line[i] === '\t') i++;
  return { word, end: i };
}

/** false when the record is malformed. */
function addRecord(b: Buckets, tag: Tag, body: string): boolean {
  if (tag === 'OPLOG') return push(b.operationLogs, operationLog(body));
  const { fields, spaced } = splitFields(body);
  const kv: KeyValues = parseKeyValues(fields, spaced);
  switch (tag) {
    case 'USER':
      return push(b.users, userRecord(kv));
    case 'FP':
      return push(b.fingerprintTemplates, fingerprintTemplate(kv));
    case 'FACE':
      return push(b.faceTemplates, faceTemplate(kv));
    case 'FVEIN':
      return push(b.fingerVeinTemplates, fingerVeinTemplate(kv));
    case 'BIODATA':
      return push(b.bioTemplates, bioTemplate(kv));
    case 'USERPIC':
      return push(b.userPhotos, userPhoto(kv));
    case 'BIOPHOTO':
      return push(b.bioPhotos, bioPhoto(kv));
    case 'ERRORLOG':
      return push(b.errorLogs, errorLog(kv));
    /* c8 ignore next 2 */
    default:
      return tag satisfies never;
  }
}

function push<T>(list: T[], record: T | undefined): boolean {
  if (record === undefined) return false;
  list.push(record);
  return true;
}

/** `OPLOG ${OpType}\t${Operator}\t${OpTime}\t${Obj1}…${Obj4}` [PUSH-v2 §6.4]; objects kept raw [§6.5]. */
function operationLog(body: string): OperationLog | undefined {
  const split = splitFields(body);
  let fields = split.fields;
  // [PUSH-v2 §2.4] space-separated: the time value is two tokens
  if (split.spaced && fields.length >= 4)
    fields = [fields[0] as string, fields[1] as string, `${fields[2] as string} ${fields[3] as string}`, ...fields.slice(4)];
  const opType = intOrNull(fields[0]);
  const time = localTime(fields[2]);
  if (opType === null || time === undefined) return undefined;
  // a valid time means fields 0–2 exist
  return { opType, operator: fields[1] as string, time, objects: fields.slice(3) };
}
