// Attendance PUSH (v2) `DATA` commands: UPDATE, DELETE and QUERY per table, against the terminal's
// memory [PUSH-v2 §9.2–§9.4, COMMANDS §4.17].

import { anyNaN, intField, isValidCard, isValidPin, optIntField, splitWord } from './command-fields.js';
import type { ExecutionContext } from './execution.js';
import { keepPhoto } from './memory.js';
import { algorithmVersion } from './profile.js';
import { attlogLine, biodataLineV2, fpLine, userLineV2 } from './records.js';
import { V2_CODES as C } from './v2-codes.js';
import { field, isBase64, parseTabFields, wallClockValue } from './wire-text.js';
import type { FieldList } from './wire-text.js';

/** rows per upload request */
const CHUNK = 100;

type TableOp = (pin: string, f: FieldList, ctx: ExecutionContext) => number | Promise<number>;

/** [PUSH-v2 §9.2–§9.4] `DATA UPDATE|DELETE|QUERY table k=v\t…`. */
export async function executeData(rest: string, ctx: ExecutionContext): Promise<number> {
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
  keepPhoto(ctx.memory, pin, type, size ?? content.length, content);
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
