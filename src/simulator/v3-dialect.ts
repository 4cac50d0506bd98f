// Security PUSH (v3) command words, executed against the terminal's memory [PUSH-v3 §11].
// Return codes [PUSH-v3 §12]: −11 data parameter error, −12 execution error (failure injection),
// −13 unknown command (also an all-zero CONTROL DEVICE operand), −18 no space, −26 empty template,
// −27 template PIN not found, −28 door open refused during normal-open, −100 no such table,
// −101 unknown condition field, −102 malformed DATA line, −108 invalid OPTIONS, −621 field not
// supported, −629 bad table name in DATA QUERY, −726 server HTTP error while answering.

import { anyNaN, intField, isValidCard, isValidPin, optIntField, splitWord } from './command-fields.js';
import { admitEnrolment } from './enrolment.js';
import type { EnrolCodes } from './enrolment.js';
import type { DialectResult, ExecutionContext } from './execution.js';
import { algorithmVersion, optionValues } from './profile.js';
import {
  biodataRecordV3,
  biophotoRecord,
  templatev10Record,
  transactionRecord,
  userauthorizeRecord,
  userpicRecord,
  userRecordV3,
} from './records.js';
import type { SimTemplate } from './types.js';
import { runUpgrade } from './upgrade.js';
import { executeV2 } from './v2-dialect.js';
import { field, isBase64, parseCommaFields, parseTabFields } from './wire-text.js';
import type { FieldList } from './wire-text.js';

export const V3_CODES = {
  param: -11,
  /** failure injection: "command execution error" */
  busy: -12,
  unknown: -13,
  full: -18,
  emptyTemplate: -26,
  noUser: -27,
  normalOpen: -28,
  noTable: -100,
  noCondition: -101,
  malformed: -102,
  badOptions: -108,
  badField: -621,
  badQueryTable: -629,
  upgradeFailed: -720,
  httpError: -726,
} as const;

const C = V3_CODES;
const ENROL: EnrolCodes = { noUser: C.noUser, noSensor: C.param, full: C.full };
/** records per querydata packet */
const PACKET = 100;
/** v2 words some `acc` terminals accept (F1: INFO, CHECK, LOG, Shell; F4: AC_UNLOCK; I3: AC_UNALARM) */
const V2_WORDS = new Set(['INFO', 'CHECK', 'LOG', 'AC_UNLOCK', 'AC_UNALARM', 'SHELL']);
/** tables the simulator accepts without keeping their rows */
const OTHER_TABLES = new Set([
  'timezone',
  'holiday',
  'firstcard',
  'multimcard',
  'inoutfun',
  'extuser',
  'mulcarduser',
  'DevProperty',
  'DevParameters',
  'DoorProperty',
  'DoorParameters',
  'ReaderProperty',
  'ReaderParameters',
  'AuxIn',
  'AuxOut',
  'DSTSetting',
  'WGFormat',
]);

/** [PUSH-v3 §9.2] the echo is inconsistent in the vendor document; the simulator echoes the
 *  two-word form (`DATA UPDATE`, `DATA QUERY`, `CONTROL DEVICE`, …). */
export function v3Echo(command: string): string {
  const [word, rest] = splitWord(command);
  switch (word) {
    case 'DATA': {
      const verb = splitWord(rest)[0];
      return ['UPDATE', 'DELETE', 'QUERY', 'COUNT'].includes(verb) ? `DATA ${verb}` : 'DATA';
    }
    case 'CONTROL':
    case 'SET':
    case 'GET':
      return `${word} ${splitWord(rest)[0]}`;
    default:
      return word;
  }
}

/** Execute one v3 command. Words and table names are case-sensitive, keys are not [PUSH-v2 §2.5]. */
export async function executeV3(id: string, command: string, ctx: ExecutionContext): Promise<DialectResult> {
  const [word, rest] = splitWord(command);
  const cmd = v3Echo(command);
  const r = (code: number, extra: Omit<DialectResult, 'code' | 'cmd'> = {}): DialectResult => ({ code, cmd, ...extra });
  if (word === 'DATA') {
    const [verb, tail] = splitWord(rest);
    switch (verb) {
      case 'UPDATE':
        return r(update(tail, ctx));
      case 'DELETE':
        return r(remove(tail, ctx));
      case 'QUERY':
        return r(await query(id, tail, ctx));
      case 'COUNT':
        return r(await count(id, tail, ctx));
      default:
        return r(C.unknown);
    }
  }
  if (command.startsWith('CONTROL DEVICE ')) return control(rest.slice('DEVICE '.length).trim(), ctx, r);
  if (command.startsWith('SET OPTIONS ')) return r(setOptions(rest.slice('OPTIONS '.length), ctx));
  if (command.startsWith('GET OPTIONS ')) return r(await getOptions(id, rest.slice('OPTIONS '.length), ctx));
  if (word === 'ENROLL_BIO') return enrol(rest, ctx, r);
  if (word === 'UPGRADE') {
    const code = await runUpgrade(rest, ctx.io, { badParams: C.param, fetchFailed: C.upgradeFailed });
    return r(code, code === 0 ? { effect: 'restart' } : {});
  }
  // [PUSH-v3 §11.9] v2 words only on terminals known to take them
  if (ctx.acceptV2Words && V2_WORDS.has(word.toUpperCase())) return executeV2(command, ctx);
  return r(C.unknown);
}

// ---- field checks ----

/** Known columns per table; any other key is refused with −621 so a v2 key (`Pri=`) sent to a v3
 *  device shows up instead of being dropped silently. */
const COLUMNS: Readonly<Record<string, readonly string[]>> = {
  user: ['cardno', 'pin', 'password', 'group', 'starttime', 'endtime', 'name', 'privilege', 'disable', 'verify', 'devid'],
  userauthorize: ['pin', 'authorizetimezoneid', 'authorizedoorid', 'devid'],
  templatev10: ['pin', 'fingerid', 'valid', 'template', 'size', 'uid', 'resverd', 'endtag'],
  biodata: ['pin', 'no', 'index', 'valid', 'duress', 'type', 'majorver', 'minorver', 'format', 'tmp'],
  biophoto: ['pin', 'type', 'size', 'content', 'format', 'url', 'postbacktmpflag', 'filename'],
  userpic: ['pin', 'size', 'content', 'format', 'url', 'filename'],
};

/** Condition keys a DATA DELETE / QUERY filter may use per table. */
const CONDITIONS: Readonly<Record<string, readonly string[]>> = {
  user: ['pin', 'cardno'],
  userauthorize: ['pin', 'authorizetimezoneid'],
  templatev10: ['pin', 'fingerid'],
  biodata: ['pin', 'type', 'no', 'index'],
  biophoto: ['pin', 'type'],
  userpic: ['pin'],
  transaction: ['pin'],
};

const unknownKey = (f: FieldList, allowed: readonly string[]): boolean => f.keys.some((k) => !allowed.includes(k.toLowerCase()));

/** `user`-table dates: `0` or `YYYYMMDD`, because the registry says `DateFmtFunOn=0` [COMMANDS §3.4]. */
const validDate = (v: string | undefined): boolean => v === undefined || v === '0' || /^\d{8}$/.test(v);

// ---- DATA UPDATE ----

type Update = (pin: string, f: FieldList, ctx: ExecutionContext) => number;

function update(tail: string, ctx: ExecutionContext): number {
  const [table, text] = splitWord(tail);
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
  const bytes = size ?? (field(f, 'content') ?? '').length;
  if (type === undefined) ctx.memory.putUserPhoto(pin, bytes);
  else ctx.memory.putBioPhoto({ pin, type, size: bytes });
  return 0;
}

// ---- conditions (DATA DELETE / QUERY / COUNT) ----

/** A parsed condition: match-all, or key → value pairs that must all hold; or a return code. */
type Condition = ReadonlyMap<string, string> | 'all' | 'new' | number;

function parseCondition(table: string, text: string, allowNew: boolean): Condition {
  if (text === '*') return 'all';
  if (text === 'NewRecord' && allowNew) return 'new';
  if (text === '') return C.malformed;
  const f = parseTabFields(text);
  if (f.malformed) return C.malformed;
  if (unknownKey(f, CONDITIONS[table] ?? [])) return C.noCondition;
  return f.values;
}

/** Does a row satisfy a condition? Values compare as text (numbers are written without padding). */
const matches = (cond: ReadonlyMap<string, string> | 'all', row: Readonly<Record<string, string | number>>): boolean =>
  cond === 'all' || [...cond].every(([k, v]) => String(row[k]) === v);

/** Rows of a table as condition-matchable columns plus their query record. */
function rows(table: string, ctx: ExecutionContext, newOnly: boolean): Array<[Record<string, string | number>, string]> | undefined {
  const m = ctx.memory;
  const uid = (pin: string): number => m.users.get(pin)?.uid ?? 0;
  switch (table) {
    case 'user':
      return [...m.users.values()].map((u) => [{ pin: u.pin, cardno: u.card }, userRecordV3(u)]);
    case 'userauthorize':
      return m.authorizations().map((a) => [{ pin: a.pin, authorizetimezoneid: a.timezoneId }, userauthorizeRecord(a)]);
    case 'templatev10':
      return m
        .templates()
        .filter((t) => t.table === 'templatev10')
        .map((t) => [{ pin: t.pin, fingerid: t.no }, templatev10Record(t, uid(t.pin))]);
    case 'biodata':
      return m
        .templates()
        .filter((t) => t.table === 'biodata')
        .map((t) => [{ pin: t.pin, type: t.type, no: t.no, index: t.index }, biodataRecordV3(t)]);
    case 'biophoto':
      return m.bioPhotos().map((p) => [{ pin: p.pin, type: p.type }, biophotoRecord(p)]);
    case 'userpic':
      return [...m.userPhotos].map(([pin, size]) => [{ pin }, userpicRecord(pin, size)]);
    case 'transaction':
      return m
        .attendance()
        .filter((a) => !newOnly || a.index > m.uploadedUpTo)
        .map((a) => [{ pin: a.pin }, transactionRecord(a)]);
    default:
      return OTHER_TABLES.has(table) ? [] : undefined;
  }
}

// ---- DATA DELETE ----

/** [PUSH-v3 §11.3] `DATA DELETE table k=v[\tk=v…]` or `*`. Deleting a user does not cascade: the
 *  vendor sequence deletes userauthorize and templates first [COMMANDS §5.2]. */
function remove(tail: string, ctx: ExecutionContext): number {
  const [table, text] = splitWord(tail);
  if (table === '') return C.malformed;
  if (OTHER_TABLES.has(table)) return 0;
  if (!Object.hasOwn(CONDITIONS, table)) return C.noTable;
  const cond = parseCondition(table, text, false);
  if (typeof cond === 'number') return cond;
  // 'new' is refused by parseCondition when allowNew is false
  const all = cond as ReadonlyMap<string, string> | 'all';
  const m = ctx.memory;
  switch (table) {
    case 'user':
      m.deleteUsers((u) => matches(all, { pin: u.pin, cardno: u.card }));
      break;
    case 'userauthorize':
      m.deleteAuthorizations((a) => matches(all, { pin: a.pin, authorizetimezoneid: a.timezoneId }));
      break;
    case 'templatev10':
      m.deleteTemplates((t) => t.table === 'templatev10' && matches(all, { pin: t.pin, fingerid: t.no }));
      break;
    case 'biodata':
      m.deleteTemplates((t) => t.table === 'biodata' && matches(all, { pin: t.pin, type: t.type, no: t.no, index: t.index }));
      break;
    case 'biophoto':
      m.deleteBioPhotos((p) => matches(all, { pin: p.pin, type: p.type }));
      break;
    case 'userpic':
      m.deleteUserPhotos((pin) => matches(all, { pin }));
      break;
    default:
      // transaction: only `*` [PUSH-v3 §11.3]; a pin condition clears that user's rows is not
      // documented, so it is refused
      if (all !== 'all') return C.noCondition;
      m.clearAttendance();
  }
  return 0;
}

// ---- DATA QUERY / DATA COUNT ----

/** Send records as querydata packets [PUSH-v3 §10.2]; false when a packet was not delivered. */
async function sendPackets(id: string, tablename: string, records: readonly string[], ctx: ExecutionContext): Promise<boolean> {
  const packcnt = Math.ceil(records.length / PACKET);
  for (let i = 0; i < packcnt; i++) {
    const chunk = records.slice(i * PACKET, (i + 1) * PACKET);
    const ok = await ctx.io.answer({
      kind: 'querydata',
      type: 'tabledata',
      cmdid: id,
      tablename,
      count: chunk.length,
      packcnt,
      packidx: i + 1,
      body: chunk.join('\n'),
    });
    if (!ok) return false;
  }
  return true;
}

/** [PUSH-v3 §10.4] `DATA QUERY tablename=t,fielddesc=*,filter=f`; Return = number of records. */
async function query(id: string, tail: string, ctx: ExecutionContext): Promise<number> {
  const args = parseCommaFields(tail);
  const table = field(args, 'tablename');
  if (args.malformed || table === undefined || table === '') return C.malformed;
  const cond = parseCondition(table, field(args, 'filter') ?? '*', table === 'transaction');
  const all = rows(table, ctx, cond === 'new');
  if (all === undefined) return C.badQueryTable;
  if (typeof cond === 'number') return cond;
  const selected = all.filter(([cols]) => cond === 'new' || matches(cond, cols));
  if (
    !(await sendPackets(
      id,
      table,
      selected.map(([, record]) => record),
      ctx,
    ))
  )
    return C.httpError;
  // a full answer counts as uploaded for a later `filter=NewRecord`
  if (table === 'transaction' && typeof cond === 'string') ctx.memory.markUploaded(ctx.memory.attendance().at(-1)?.index ?? 0);
  return selected.length;
}

/** [PUSH-v3 §10.3] `DATA COUNT table[ cond]`: the count travels in the querydata body; Return 0. */
async function count(id: string, tail: string, ctx: ExecutionContext): Promise<number> {
  const [table, text] = splitWord(tail);
  if (table === '') return C.malformed;
  const all = rows(table, ctx, false);
  if (all === undefined) return C.noTable;
  const cond = parseCondition(table, text === '' ? '*' : text, false);
  if (typeof cond === 'number') return cond;
  const n = all.filter(([cols]) => matches(cond as ReadonlyMap<string, string> | 'all', cols)).length;
  const ok = await ctx.io.answer({
    kind: 'querydata',
    type: 'count',
    cmdid: id,
    tablename: table,
    count: 1,
    packcnt: 1,
    packidx: 1,
    body: `${table}=${n}`,
  });
  return ok ? 0 : C.httpError;
}

// ---- options ----

/** [PUSH-v3 §11.6] `SET OPTIONS k=v[,k=v…]`; `DateTime` is ZK packed seconds. */
function setOptions(text: string, ctx: ExecutionContext): number {
  const f = parseCommaFields(text);
  const dateTime = field(f, 'DateTime');
  if (f.malformed || f.keys.length === 0 || (dateTime !== undefined && !/^\d+$/.test(dateTime))) return C.badOptions;
  for (const key of f.keys) ctx.memory.options.set(key, field(f, key) as string);
  return 0;
}

/** [PUSH-v3 §10.5] values go to `/iclock/querydata?type=options`, then Return 0. */
async function getOptions(id: string, text: string, ctx: ExecutionContext): Promise<number> {
  const keys = text
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
  if (keys.length === 0) return C.badOptions;
  const body = optionValues(ctx.profile, ctx.memory, keys);
  const ok = await ctx.io.answer({
    kind: 'querydata',
    type: 'options',
    cmdid: id,
    tablename: 'options',
    count: 1,
    packcnt: 1,
    packidx: 1,
    body,
  });
  return ok ? 0 : C.httpError;
}

// ---- CONTROL DEVICE ----

type Respond = (code: number, extra?: Omit<DialectResult, 'code' | 'cmd'>) => DialectResult;

/** [PUSH-v3 §11.5] `CONTROL DEVICE AABBCCDD[EE]`, each byte two hex digits. */
function control(operand: string, ctx: ExecutionContext, r: Respond): DialectResult {
  if (!/^(?:[0-9A-Fa-f]{2}){4,5}$/.test(operand)) return r(C.param);
  const [op, bb, cc, dd] = (operand.match(/../g) as RegExpMatchArray).map((h) => parseInt(h, 16)) as [number, number, number, number];
  if (op === 0 && bb === 0 && cc === 0 && dd === 0) return r(C.unknown); // all-zero operand (I6)
  const m = ctx.memory;
  // BB: door number, 00 = all doors
  const doors = m.doors().filter((d) => bb === 0 || d.door === bb);
  const needsDoor = op === 1 || op === 2 || op === 4 || op === 6;
  if (needsDoor && doors.length === 0) return r(C.param);
  switch (op) {
    case 1: {
      if (cc !== 1) return r(0); // CC 02: auxiliary output, no state kept
      if (dd !== 0 && dd !== 0xff && doors.some((d) => d.relay === 'normal-open')) return r(C.normalOpen);
      for (const d of doors) {
        m.updateDoor(
          d.door,
          dd === 0 ? { relay: 'closed' } : dd === 0xff ? { relay: 'normal-open' } : { relay: 'open', lastOpenSeconds: dd },
        );
      }
      return r(0);
    }
    case 2:
      for (const d of doors) m.updateDoor(d.door, { alarm: false });
      return r(0);
    case 3:
      return r(0, { effect: 'restart' });
    case 4:
      for (const d of doors) m.updateDoor(d.door, { normalOpenZoneEnabled: cc === 1 });
      return r(0);
    case 6:
      for (const d of doors) m.updateDoor(d.door, { lockedDown: cc === 1 });
      return r(0);
    case 7:
      if (bb !== 1 && bb !== 2) return r(C.param);
      m.emergency = bb === 1 ? 'dual-open' : 'dual-close';
      return r(0);
    default:
      // 05 differs between document editions; 08–12 are hardware tests the simulator takes as done
      return r(op >= 8 && op <= 0x12 ? 0 : C.unknown);
  }
}

// ---- ENROLL_BIO ----

/** [PUSH-v3 §11.8] `ENROLL_BIO type=t\tno=n\tpin=p[\tcardno=c]\tretry=r\toverwrite=o`. */
function enrol(text: string, ctx: ExecutionContext, r: Respond): DialectResult {
  const f = parseTabFields(text);
  const pin = field(f, 'pin');
  const type = optIntField(f, 'type');
  const no = intField(f, 'no', 0);
  const retry = intField(f, 'retry', 3);
  const overwrite = intField(f, 'overwrite', 0);
  if (f.malformed || !isValidPin(pin) || type === undefined || anyNaN(type, no, retry, overwrite) || no < 0 || no > 9) {
    return r(C.malformed);
  }
  const code = admitEnrolment(ctx.profile, ctx.memory, pin, type, no, overwrite, ENROL);
  return code === 0 ? r(0, { enroll: { pin, type, no } }) : r(code);
}
