// Enrolment at the terminal (remote ENROLL_FP / ENROLL_BIO, or a local one): admission checks,
// the new template, and the uploads that announce it [COMMANDS §4.16, PUSH-v2 §6.4, §6.7, PUSH-v3 §7.4].

import type { DeviceMemory } from './memory.js';
import type { DeviceProfile } from './profile.js';
import { algorithmVersion, storageTable } from './profile.js';
import {
  biodataLineV2,
  biodataRecordV3,
  fpLine,
  generateTemplate,
  oplogLine,
  templatev10Record,
  userLineV2,
  userRecordV3,
} from './records.js';
import type { Rng } from './rng.js';
import type { SimTemplate, SimUser } from './types.js';
import type { Upload } from './uploads.js';

export interface EnrolCodes {
  /** the PIN is not on the device */
  readonly noUser: number;
  /** the device has no sensor for this biometric type */
  readonly noSensor: number;
  /** template capacity reached */
  readonly full: number;
}

/** 0 when the enrolment may start, else the `Return` code [PUSH-v2 §8.6]: 2 the finger is already
 *  enrolled, 5 the (face) template already exists, when OVERWRITE is not 1. */
export function admitEnrolment(
  profile: DeviceProfile,
  memory: DeviceMemory,
  pin: string,
  type: number,
  no: number,
  overwrite: number,
  codes: EnrolCodes,
): number {
  if (!memory.users.has(pin)) return codes.noUser;
  if (algorithmVersion(profile, type) === undefined) return codes.noSensor;
  const existing = memory.findTemplate(storageTable(profile, type), pin, type, no);
  if (existing !== undefined && overwrite !== 1) return type === 1 ? 2 : 5;
  if (existing === undefined && memory.templateCount >= memory.limits.maxTemplates) return codes.full;
  return 0;
}

/** The template a finished enrolment produces (seeded content). */
export function enrolledTemplate(profile: DeviceProfile, rng: Rng, pin: string, type: number, no: number): SimTemplate {
  const [majorVer, minorVer] = algorithmVersion(profile, type) ?? [0, 0];
  return {
    table: storageTable(profile, type),
    pin,
    type,
    no,
    index: 0,
    valid: 1,
    duress: 0,
    majorVer,
    minorVer,
    format: 0,
    tmp: generateTemplate(rng, type === 1 ? 384 : 1200),
  };
}

/** Uploads announcing an enrolment: the new user first when the enrolment created one, then the
 *  template — v2 OPERLOG `OPLOG`/`USER`/`FP` lines or BIODATA (fixture A10), v3 tabledata. */
export function enrolmentUploads(profile: DeviceProfile, template: SimTemplate, owner: SimUser, newUser: boolean, time: string): Upload[] {
  const { pin } = template;
  if (profile.protocol === 'v2') {
    const operlog = newUser ? [oplogLine(30, time, [pin, '0', '0', '0']), userLineV2(owner)] : [];
    if (template.table === 'FINGERTMP') {
      operlog.push(oplogLine(6, time, [pin, '0', String(template.no), String(template.tmp.length)]), fpLine(template));
      return [{ kind: 'table', table: 'OPERLOG', lines: operlog }];
    }
    const biodata: Upload = { kind: 'table', table: 'BIODATA', lines: [biodataLineV2(template)] };
    return newUser ? [{ kind: 'table', table: 'OPERLOG', lines: operlog }, biodata] : [biodata];
  }
  const uploads: Upload[] = newUser ? [{ kind: 'tabledata', tablename: 'user', lines: [userRecordV3(owner)] }] : [];
  uploads.push(
    template.table === 'templatev10'
      ? { kind: 'tabledata', tablename: 'templatev10', lines: [templatev10Record(template, owner.uid)] }
      : { kind: 'tabledata', tablename: 'biodata', lines: [biodataRecordV3(template)] },
  );
  return uploads;
}
