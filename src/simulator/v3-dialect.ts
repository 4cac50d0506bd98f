// Security PUSH (v3) command words, executed against the terminal's memory [PUSH-v3 §11]. The DATA
// commands are in v3-data-update.ts and v3-data-select.ts, the return codes in v3-codes.ts.

import { anyNaN, intField, isValidPin, optIntField, splitWord } from './command-fields.js';
import { admitEnrolment } from './enrolment.js';
import type { EnrolCodes } from './enrolment.js';
import type { DialectResult, ExecutionContext } from './execution.js';
import { optionValues } from './profile.js';
import { runUpgrade } from './upgrade.js';
import { executeV2 } from './v2-dialect.js';
import { V3_CODES } from './v3-codes.js';
import { count, query, remove } from './v3-data-select.js';
import { update } from './v3-data-update.js';
import { field, parseCommaFields, parseTabFields } from './wire-text.js';

const C = V3_CODES;
const ENROL: EnrolCodes = { noUser: C.noUser, noSensor: C.param, full: C.full };
/** v2 words some `acc` terminals accept (F1: INFO, CHECK, LOG, Shell; F4: AC_UNLOCK; I3: AC_UNALARM) */
const V2_WORDS = new Set(['INFO', 'CHECK', 'LOG', 'AC_UNLOCK', 'AC_UNALARM', 'SHELL']);

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
