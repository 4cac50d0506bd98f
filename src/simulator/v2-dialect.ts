// Attendance PUSH (v2) command words, executed against the terminal's memory [PUSH-v2 §9]; the DATA
// commands are in v2-data.ts, the return codes in v2-codes.ts.

import { anyNaN, intField, isValidPin, optIntField, splitWord } from './command-fields.js';
import { admitEnrolment } from './enrolment.js';
import type { EnrolCodes } from './enrolment.js';
import type { DialectResult, ExecutionContext } from './execution.js';
import type { DeviceMemory } from './memory.js';
import { deviceParameters, infoLines } from './profile.js';
import { runUpgrade } from './upgrade.js';
import { V2_CODES } from './v2-codes.js';
import { executeData } from './v2-data.js';
import { field, parseTabFields } from './wire-text.js';
import type { FieldList } from './wire-text.js';

const C = V2_CODES;
const ENROL: EnrolCodes = { noUser: C.noUser, noSensor: C.noTable, full: C.full };

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
      return r(await executeData(rest, ctx));
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
