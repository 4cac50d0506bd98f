// Record lines the terminal uploads: v2 ATTLOG / OPERLOG / BIODATA [PUSH-v2 §6], v3 rtlog,
// tabledata and querydata records [PUSH-v3 §7, §10]. Fields are TAB-separated, keys as documented.

import type { Rng } from './rng.js';
import type { BioPhoto } from './memory.js';
import type { SimAttendance, SimAuthorization, SimTemplate, SimUser } from './types.js';
import { zkPackedSeconds } from './wire-text.js';

// ---- v2 ----

/** [PUSH-v2 §6.2] `PIN\tTime\tStatus\tVerify\tWorkCode\tReserved1\tReserved2`. */
export const attlogLine = (r: SimAttendance): string => `${r.pin}\t${r.time}\t${r.status}\t${r.verify}\t0\t0\t0`;

/** [PUSH-v2 §6.4] OPLOG line; object slots as a K40-class device fills them (fixture A10). */
export const oplogLine = (op: number, time: string, objects: readonly [string, string, string, string]): string =>
  `OPLOG ${op}\t0\t${time}\t${objects.join('\t')}`;

/** [PUSH-v2 §6.4, §6.6] 2.4.x USER record. */
export const userLineV2 = (u: SimUser): string =>
  `USER PIN=${u.pin}\tName=${u.name}\tPri=${u.privilege}\tPasswd=${u.password}\tCard=${u.card}\tGrp=${u.group}\tTZ=${u.tz}\tVerify=${u.verify}\tViceCard=${u.viceCard}`;

/** [PUSH-v2 §6.4] FP record; Size is the length of the base64 text. */
export const fpLine = (t: SimTemplate): string => `FP PIN=${t.pin}\tFID=${t.no}\tSize=${t.tmp.length}\tValid=${t.valid}\tTMP=${t.tmp}`;

/** [PUSH-v2 §6.7] unified template record. */
export const biodataLineV2 = (t: SimTemplate): string =>
  `BIODATA Pin=${t.pin}\tNo=${t.no}\tIndex=${t.index}\tValid=${t.valid}\tDuress=${t.duress}\tType=${t.type}` +
  `\tMajorVer=${t.majorVer}\tMinorVer=${t.minorVer}\tFormat=${t.format}\tTmp=${t.tmp}`;

// ---- v3 ----

/** [PUSH-v3 §7.2] real-time event for a verification (event 0 = normal verification open). */
export const rtlogLine = (r: SimAttendance): string =>
  `time=${r.time}\tpin=${r.pin}\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=${r.status}\tverifytype=${r.verify}\tindex=${r.index}`;

/** [PUSH-v3 §7.4] `user` record (fixture B11). */
export const userRecordV3 = (u: SimUser): string =>
  `user uid=${u.uid}\tcardno=${u.card}\tpin=${u.pin}\tpassword=${u.password}\tgroup=${u.group}\tstarttime=${u.startTime}` +
  `\tendtime=${u.endTime}\tname=${u.name}\tprivilege=${u.privilege}\tdisable=${u.disabled ? 1 : 0}\tverify=${u.verify}`;

/** [PUSH-v3 §7.4] `templatev10` record; a duress finger is written as fingerid + 16. */
export const templatev10Record = (t: SimTemplate, uid: number): string =>
  `templatev10 size=${t.tmp.length}\tuid=${uid}\tpin=${t.pin}\tfingerid=${t.valid === 3 ? t.no + 16 : t.no}` +
  `\tvalid=${t.valid}\ttemplate=${t.tmp}\tresverd=\tendtag=`;

/** [PUSH-v3 §7.4] `biodata` record (fixture B13). */
export const biodataRecordV3 = (t: SimTemplate): string =>
  `biodata pin=${t.pin}\tno=${t.no}\tindex=${t.index}\tvalid=${t.valid}\tduress=${t.duress}\ttype=${t.type}` +
  `\tmajorver=${t.majorVer}\tminorver=${t.minorVer}\tformat=${t.format}\ttmp=${t.tmp}`;

/** `timezone` row as a query answer: its id and the intervals as received. */
export const timezoneRecord = (id: number, fields: Readonly<Record<string, number>>): string =>
  [`timezone timezoneid=${id}`, ...Object.entries(fields).map(([k, v]) => `${k.toLowerCase()}=${v}`)].join('\t');

/** `holiday` row as a query answer: its fields as received. */
export const holidayRecord = (fields: Readonly<Record<string, string>>): string =>
  `holiday ${Object.entries(fields)
    .map(([k, v]) => `${k.toLowerCase()}=${v}`)
    .join('\t')}`;

/** `userauthorize` row as a query answer (the table has no upload form, [PUSH-v3 §7.4]). */
export const userauthorizeRecord = (a: SimAuthorization): string =>
  `userauthorize pin=${a.pin}\tauthorizetimezoneid=${a.timezoneId}\tauthorizedoorid=${a.doorMask}`;

/** [PUSH-v3 §7.6] access record; time_second in ZK packed seconds (fixture B17). */
export const transactionRecord = (r: SimAttendance): string =>
  `transaction cardno=0\tpin=${r.pin}\tverified=${r.verify}\tdoorid=1\teventtype=0\tinoutstate=${r.status}` +
  `\ttime_second=${zkPackedSeconds(r.time)}\tindex=${r.index}\tsitecode=0\tdevid=1`;

/** [PUSH-v3 §7.4] photo records as query answers; the simulator keeps sizes, not image bytes. */
export const biophotoRecord = (p: BioPhoto): string =>
  `biophoto pin=${p.pin}\tfilename=${p.pin}.jpg\ttype=${p.type}\tsize=${p.size}\tcontent=`;
export const userpicRecord = (pin: string, size: number): string => `userpic pin=${pin}\tfilename=${pin}.jpg\tsize=${size}\tcontent=`;

/** Seeded stand-in template: base64 of `bytes` random bytes. */
export function generateTemplate(rng: Rng, bytes: number): string {
  const buf = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) buf[i] = rng.int(256);
  return buf.toString('base64');
}
