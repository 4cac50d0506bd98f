// Attendance PUSH (v2) command words, executed against the terminal's memory [PUSH-v2 §9].
// Return codes [PUSH-v2 §8.5–§8.6]: −1 parameter error / malformed line (also: no ATTLOG rows in
// range, F1), −2 photo size mismatch, −9 template Size ≠ length, −10 PIN not on the device,
// −11 illegal template, −1001 capacity, −1002 unknown or non-vendor syntax, −1004 table not on the model.

import { anyNaN, intField, isValidCard, isValidPin, optIntField, splitWord } from './command-fields.js';
import { admitEnrolment } from './enrolment.js';
import type { EnrolCodes } from './enrolment.js';
import type { DialectResult, ExecutionContext } from './execution.js';
import type { DeviceMemory } from './memory.js';
import { algorithmVersion, deviceParameters, infoLines } from './profile.js';
import { attlogLine, biodataLineV2, fpLine, userLineV2 } from './records.js';
import { runUpgrade } from './upgrade.js';
import { field, isBase64, parseTabFields, wallClockValue } from './wire-text.js';
import type { FieldList } from './wire-text.js';

export const V2_CODES = {
  malformed: -1,
  noRecords: -1,
  photoSize: -2,
  sizeMismatch: -9,
  noUser: -10,
  badTemplate: -11,
  full: -1001,
  unknown: -1002,
  noTable: -1004,
  /** failure injection: "device busy" */
  busy: -1005,
} as const;

const C = V2_CODES;
const ENROL: EnrolCodes = { noUser: C.noUser, noSensor: C.noTable, full: C.full };
/** rows per upload request */
const CHUNK = 100;

const CLEAR_ECHO: Readonly<Record<string, string>> = { LOG: 'CLEAR_LOG', DATA: 'CLEAR_DATA', BIODATA: 'CLEAR_BIODATA' };

/** [PUSH-v2 §8.4] the `CMD` echo is the command word: `DATA` for every DATA command, `CLEAR_LOG`, … */
export function v2Echo(command: string): string {
  const [word, rest] = splitWord(command);
  switch (word.toUpperCase()) {
    case 'CLEAR':
      return CLEAR_ECHO[rest] ?? command;
    case 'SHELL':
      return 'Shell';
    case 'SET':
      return rest.startsWith('OPTION ') ? 'SET OPTION' : word;
    case 'GET':
      return rest.startsWith('OPTION ') ? 'GET OPTION' : word;
    case 'RELOAD':
      return rest === 'OPTIONS' ? 'RELOAD OPTIONS' : word;
    case 'DATA':
    case 'INFO':
    case 'CHECK':
    case 'LOG':
    case 'REBOOT':
    case 'AC_UNLOCK':
    case 'AC_UNALARM':
    case 'UPGRADE':
    case 'ENROLL_FP':
    case 'ENROLL_BIO':
      return word.toUpperCase();
    default:
      return word;
  }
}

/** Execute one v2 command. Command words are matched case-insensitively (a SpeedFace took
 *  `Shell date`, F1); table names must be upper-case as documented. */
export async function executeV2(command: string, ctx: ExecutionContext): Promise<DialectResult> {
  const [word, rest] = splitWord(command);
  const cmd = v2Echo(command);
  const r = (code: number, extra: Omit<DialectResult, 'code' | 'cmd'> = {}): DialectResult => ({ code, cmd, ...extra });
  const { memory } = ctx;
  switch (word.toUpperCase()) {
    case 'DATA':
      return r(await data(rest, ctx));
    case 'INFO':
      return r(0, { lines: infoLines(ctx.profile, memory) });
    case 'CHECK':
      // [PUSH-v2 §9.2] re-read the server options (a new handshake) and upload newer data
      return r(0, { effect: 'rehandshake' });
    case 'LOG':
      return r(0, { effect: 'flush' });
    case 'REBOOT':
      // [PUSH-v2 §7.3] anything after REBOOT in the same reply is lost
      return r(0, { effect: 'restart' });
    case 'CLEAR':
      return r(clear(rest, memory));
    case 'AC_UNLOCK': {
      // no door or duration parameter: pulse door 1 for its own drive time (COMMANDS §4.8);
      // a model without a lock (LX35, F4) does not know the word
      const door = memory.doors()[0];
      if (door === undefined) return r(C.unknown);
      memory.updateDoor(1, { pulses: door.pulses + 1 });
      return r(0);
    }
    case 'AC_UNALARM':
      for (const d of memory.doors()) memory.updateDoor(d.door, { alarm: false });
      return r(0);
    case 'SHELL':
      // [PUSH-v2 §8.2] key-per-line result with the output in Content= (fixture A29)
      return rest.trim() === '' ? r(C.malformed, { content: '' }) : r(0, { content: shellOutput(rest.trim(), ctx.now()) });
    case 'UPGRADE': {
      const code = await runUpgrade(rest, ctx.io, { badParams: C.malformed, fetchFailed: -1008 });
      return r(code, code === 0 ? { effect: 'restart' } : {});
    }
    case 'RELOAD':
      return r(rest === 'OPTIONS' ? 0 : C.unknown);
    case 'SET':
      return r(setOption(rest, memory));
    case 'GET': {
      if (!rest.startsWith('OPTION FROM ')) return r(C.unknown);
      const key = rest.slice('OPTION FROM '.length).trim();
      if (key === '') return r(C.malformed);
      return r(0, { lines: [`${key}=${deviceParameters(ctx.profile, memory).get(key) ?? ''}`] });
    }
    case 'ENROLL_FP':
      return enrol(parseTabFields(rest), 'FID', 1, ctx, r);
    case 'ENROLL_BIO':
      return enrol(parseTabFields(rest), undefined, undefined, ctx, r);
    default:
      // [PUSH-v2 §9.5] `USER ADD`, `DATA DEL …` and other non-vendor words: −1002 on a real device (F1)
      return r(C.unknown);
  }
}

function shellOutput(command: string, now: Date): string {
  if (command !== 'date') return `sh: ${command.split(' ')[0]}: simulated terminal`;
  // busybox `date` form, as in fixture A29: `Tue Mar 24 16:12:26 GMT 2026`
  const [day, , month, year, time] = now.toUTCString().replace(',', '').split(' ');
  return `${day} ${month} ${now.getUTCDate()} ${time} GMT ${year}`;
}

function clear(what: string, memory: DeviceMemory): number {
  switch (what) {
    case 'LOG':
      memory.clearAttendance();
      return 0;
    case 'PHOTO':
      memory.clearAttendancePhotos();
      return 0;
    case 'BIODATA':
      // whether FINGERTMP templates go too is open [COMMANDS §8 q10]; the simulator clears all templates
      memory.deleteTemplates(() => true);
      return 0;
    case 'DATA':
      memory.deleteUsers(() => true);
      memory.deleteTemplates(() => true);
      memory.deleteAuthorizations(() => true);
      memory.deleteUserPhotos(() => true);
      memory.deleteBioPhotos(() => true);
      memory.clearAttendance();
      memory.clearAttendancePhotos();
      return 0;
    default:
      return C.unknown;
  }
}

function setOption(rest: string, memory: DeviceMemory): number {
  if (!rest.startsWith('OPTION ')) return C.unknown;
  const pair = rest.slice('OPTION '.length);
  const eq = pair.indexOf('=');
  if (eq <= 0) return C.malformed;
  memory.options.set(pair.slice(0, eq), pair.slice(eq + 1));
  return 0;
}

type Respond = (code: number, extra?: Omit<DialectResult, 'code' | 'cmd'>) => DialectResult;

/** ENROLL_FP `PIN\tFID\tRETRY\tOVERWRITE` (fingerprint) or ENROLL_BIO `TYPE\tPIN\tCardNo\tRETRY\tOVERWRITE`;
 *  v2 ENROLL_BIO has no finger field, so its template is number 0 [COMMANDS §3.9]. */
function enrol(f: FieldList, fidKey: string | undefined, fixedType: number | undefined, ctx: ExecutionContext, r: Respond): DialectResult {
  const pin = field(f, 'PIN');
  const type = fixedType ?? optIntField(f, 'TYPE');
  const no = fidKey === undefined ? 0 : intField(f, fidKey, 0);
  const retry = intField(f, 'RETRY', 3);
  const overwrite = intField(f, 'OVERWRITE', 0);
  if (f.malformed || !isValidPin(pin) || type === undefined || anyNaN(type, no, retry, overwrite) || no < 0 || no > 9) {
    return r(C.malformed);
  }
  const code = admitEnrolment(ctx.profile, ctx.memory, pin, type, no, overwrite, ENROL);
  return code === 0 ? r(0, { enroll: { pin, type, no } }) : r(code);
}

// ---- DATA ----

type TableOp = (pin: string, f: FieldList, ctx: ExecutionContext) => number | Promise<number>;

async function data(rest: string, ctx: ExecutionContext): Promise<number> {
  const [verb, tail] = splitWord(rest);
  const ops = verb === 'UPDATE' ? UPDATE : verb === 'DELETE' ? DELETE : verb === 'QUERY' ? QUERY : undefined;
  if (ops === undefined) return C.unknown; // `DATA DEL USERINFO`, `DATA FP …` (F1)
  const [table, text] = splitWord(tail);
  if (table === '') return C.malformed;
  const op = Object.hasOwn(ops, table) ? ops[table] : undefined;
  if (op === undefined) return C.noTable;
  const f = parseTabFields(text);
  if (f.malformed) return C.malformed;
  const pin = field(f, 'PIN');
  // USERINFO / ATTLOG / BIODATA queries may go without a PIN; every other table needs one
  if (pin === undefined && verb === 'QUERY' && table !== 'FINGERTMP') return op('', f, ctx);
  if (!isValidPin(pin)) return C.malformed;
  return op(pin, f, ctx);
}

function putUser(pin: string, f: FieldList, ctx: ExecutionContext): number {
  const privilege = optIntField(f, 'Pri');
  const group = optIntField(f, 'Grp');
  const verify = optIntField(f, 'Verify');
  const card = field(f, 'Card');
  const tz = field(f, 'TZ');
  if (
    anyNaN(privilege, group, verify) ||
    (card !== undefined && !isValidCard(card)) ||
    (tz !== undefined && tz !== '' && !/^[0-9A-Fa-f]{16}$/.test(tz))
  )
    return C.malformed;
  // [PUSH-v2 §9.5] unknown keys such as `Privilege=` are accepted and ignored, as a real device does (F1)
  const stored = ctx.memory.putUser({
    pin,
    name: field(f, 'Name'),
    privilege,
    password: field(f, 'Passwd'),
    card,
    group,
    tz,
    verify,
    viceCard: field(f, 'ViceCard'),
  });
  return stored === 'ok' ? 0 : C.full;
}

/** Common checks of a template update: −10, −9, −11, then store. */
function putTemplate(
  ctx: ExecutionContext,
  pin: string,
  declaredSize: number | undefined,
  tmp: string,
  usable: boolean,
  make: () => Parameters<typeof ctx.memory.putTemplate>[0],
): number {
  if (!ctx.memory.users.has(pin)) return C.noUser;
  if (declaredSize !== undefined && declaredSize !== tmp.length) return C.sizeMismatch;
  if (!isBase64(tmp) || !usable) return C.badTemplate;
  return ctx.memory.putTemplate(make()) === 'ok' ? 0 : C.full;
}

function putFinger(pin: string, f: FieldList, ctx: ExecutionContext): number {
  const fid = optIntField(f, 'FID');
  const size = optIntField(f, 'Size');
  const valid = intField(f, 'Valid', 1);
  const tmp = field(f, 'TMP') ?? '';
  if (fid === undefined || anyNaN(fid, size, valid) || fid < 0 || fid > 9 || tmp === '') return C.malformed;
  // an algorithm above 10 keeps fingerprints as BIODATA: FINGERTMP is refused as an illegal
  // template, which is one of the triggers of the BIODATA fallback [PUSH-v2 §11.3]
  return putTemplate(ctx, pin, size, tmp, ctx.profile.fpVersion === 10, () => ({
    table: 'FINGERTMP',
    pin,
    type: 1,
    no: fid,
    index: 0,
    valid,
    duress: valid === 3 ? 1 : 0,
    majorVer: 10,
    minorVer: 0,
    format: 0,
    tmp,
  }));
}

function putFace(pin: string, f: FieldList, ctx: ExecutionContext): number {
  if (!ctx.profile.faceSupport) return C.noTable;
  const fid = intField(f, 'FID', 0);
  const size = optIntField(f, 'Size');
  const valid = intField(f, 'Valid', 1);
  const tmp = field(f, 'TMP') ?? '';
  if (anyNaN(fid, size, valid) || tmp === '') return C.malformed;
  return putTemplate(ctx, pin, size, tmp, true, () => ({
    table: 'FACE',
    pin,
    type: 2,
    no: fid,
    index: 0,
    valid,
    duress: 0,
    majorVer: 7,
    minorVer: 0,
    format: 0,
    tmp,
  }));
}

function putBiodata(pin: string, f: FieldList, ctx: ExecutionContext): number {
  const type = optIntField(f, 'Type');
  const no = intField(f, 'No', 0);
  const index = intField(f, 'Index', 0);
  const valid = intField(f, 'Valid', 1);
  const duress = intField(f, 'Duress', 0);
  const major = optIntField(f, 'MajorVer');
  const minor = optIntField(f, 'MinorVer');
  const format = intField(f, 'Format', 0);
  const tmp = field(f, 'Tmp') ?? '';
  if (type === undefined || anyNaN(type, no, index, valid, duress, major, minor, format) || tmp === '') return C.malformed;
  const version = algorithmVersion(ctx.profile, type);
  if (version === undefined) return C.noTable;
  // a template only works on a device with the same algorithm version [PUSH-v2 §6.7]
  return putTemplate(ctx, pin, undefined, tmp, major === undefined || major === version[0], () => ({
    table: 'BIODATA',
    pin,
    type,
    no,
    index,
    valid,
    duress,
    majorVer: major ?? version[0],
    minorVer: minor ?? version[1],
    format,
    tmp,
  }));
}

function putPhoto(pin: string, f: FieldList, ctx: ExecutionContext, type: number | undefined): number {
  const size = optIntField(f, 'Size');
  const content = field(f, 'Content') ?? '';
  if (anyNaN(size, type)) return C.malformed;
  if (!ctx.memory.users.has(pin)) return C.noUser;
  if (content !== '' && size !== undefined && size !== content.length) return C.photoSize;
  const bytes = size ?? content.length;
  if (type === undefined) ctx.memory.putUserPhoto(pin, bytes);
  else ctx.memory.putBioPhoto({ pin, type, size: bytes });
  return 0;
}

const UPDATE: Readonly<Record<string, TableOp>> = {
  USERINFO: putUser,
  FINGERTMP: putFinger,
  FACE: putFace,
  BIODATA: putBiodata,
  USERPIC: (pin, f, ctx) => putPhoto(pin, f, ctx, undefined),
  BIOPHOTO: (pin, f, ctx) => putPhoto(pin, f, ctx, intField(f, 'Type', 9)),
};

/** Template delete by table, with optional integer filters. */
function deleteTemplates(ctx: ExecutionContext, table: string, pin: string, filters: Array<[number | undefined, 'type' | 'no']>): number {
  if (anyNaN(...filters.map(([v]) => v))) return C.malformed;
  ctx.memory.deleteTemplates((t) => t.table === table && t.pin === pin && filters.every(([v, k]) => v === undefined || t[k] === v));
  return 0;
}

const DELETE: Readonly<Record<string, TableOp>> = {
  // [PUSH-v2 §9.3] also removes the user's templates and photos
  USERINFO: (pin, _f, { memory }) => {
    memory.deleteUsers((u) => u.pin === pin);
    memory.deleteTemplates((t) => t.pin === pin);
    memory.deleteUserPhotos((p) => p === pin);
    memory.deleteBioPhotos((p) => p.pin === pin);
    return 0;
  },
  FINGERTMP: (pin, f, ctx) => deleteTemplates(ctx, 'FINGERTMP', pin, [[optIntField(f, 'FID'), 'no']]),
  FACE: (pin, _f, ctx) => deleteTemplates(ctx, 'FACE', pin, []),
  BIODATA: (pin, f, ctx) =>
    deleteTemplates(ctx, 'BIODATA', pin, [
      [optIntField(f, 'Type'), 'type'],
      [optIntField(f, 'No'), 'no'],
    ]),
  USERPIC: (pin, _f, { memory }) => {
    memory.deleteUserPhotos((p) => p === pin);
    return 0;
  },
  BIOPHOTO: (pin, _f, { memory }) => {
    memory.deleteBioPhotos((p) => p.pin === pin);
    return 0;
  },
};

async function uploadRows(ctx: ExecutionContext, table: string, lines: readonly string[]): Promise<void> {
  for (let i = 0; i < lines.length; i += CHUNK) {
    await ctx.io.upload({ kind: 'table', table, lines: lines.slice(i, i + CHUNK) });
  }
}

const QUERY: Readonly<Record<string, TableOp>> = {
  // [PUSH-v2 §6.10] users come back as OPERLOG `USER …` lines, then the result
  USERINFO: async (pin, _f, ctx) => {
    const users = [...ctx.memory.users.values()].filter((u) => pin === '' || u.pin === pin);
    await uploadRows(ctx, 'OPERLOG', users.map(userLineV2));
    return 0;
  },
  // [COMMANDS §4.17] either time form; rows come back as ordinary ATTLOG uploads.
  // An empty range answers −1, as a SpeedFace did on an empty log (F1)
  ATTLOG: async (_pin, f, ctx) => {
    const start = wallClockValue(field(f, 'StartTime') ?? '');
    const end = wallClockValue(field(f, 'EndTime') ?? '');
    if (start === undefined || end === undefined) return C.malformed;
    // stored times were checked on the way in (punch)
    const rows = ctx.memory.attendance().filter((a) => {
      const t = wallClockValue(a.time) as number;
      return t >= start && t <= end;
    });
    if (rows.length === 0) return C.noRecords;
    await uploadRows(ctx, 'ATTLOG', rows.map(attlogLine));
    return 0;
  },
  FINGERTMP: async (pin, f, ctx) => {
    const fid = optIntField(f, 'FID');
    if (anyNaN(fid)) return C.malformed;
    const rows = ctx.memory.templatesOf(pin).filter((t) => t.table === 'FINGERTMP' && (fid === undefined || t.no === fid));
    await uploadRows(ctx, 'OPERLOG', rows.map(fpLine));
    return 0;
  },
  BIODATA: async (pin, f, ctx) => {
    const type = optIntField(f, 'Type');
    const no = optIntField(f, 'No');
    if (type === undefined || anyNaN(type, no)) return C.malformed;
    const rows = ctx.memory
      .templates()
      .filter((t) => t.table === 'BIODATA' && t.type === type && (pin === '' || t.pin === pin) && (no === undefined || t.no === no));
    await uploadRows(ctx, 'BIODATA', rows.map(biodataLineV2));
    return 0;
  },
};
