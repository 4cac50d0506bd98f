// Attendance PUSH command wire strings [COMMANDS §4, §5, §6 column v2; PUSH-v2 §9].
import type { DeviceProfile, EncodeContext, EncodeResult, SyncOp, SyncTemplate, SyncUser, WireLines } from '../commands.js';
import { syncFingerprintFallbackApplies } from '../fallbacks.js';
import { checkAttendanceWindow, custom, firmwareUpgrade, loadUsersPin, wire } from '../preset-common.js';
import {
  invalid,
  isFailure,
  type CheckAttendanceParams,
  type CommandTextParams,
  type EnrollParams,
  type FirmwareParams,
  type LoadUsersParams,
  type ValidCommand,
} from '../preset-params.js';
import { faceType, fingerprintAsBiodata, hasBiodata, legacyFace, supportsBioType } from '../shared/profile.js';
import { encodePhoto } from '../shared/photo-lines.js';
import { MAX_BIO_TYPE } from '../shared/records.js';
import { cardText, pinText, userFieldTexts } from '../shared/values.js';
import { deviceLacks, noWireFormV2, SYNC_USERS_COMPOSITE } from '../unsupported.js';
import { biodataParts, templateData } from '../template-fields.js';

/** `command` was validated against the catalog (codec-base.ts): params carry their defaults. */
export function encodePresetV2(command: ValidCommand, profile: DeviceProfile, context: EncodeContext): EncodeResult {
  const preset = command.preset;
  switch (preset) {
    // [COMMANDS §4.1] must be the last command of its reply [PUSH-v2 §7.3]
    case 'reboot':
      return wire('REBOOT');
    // [COMMANDS §4.2] parameters arrive in the multi-line result [PUSH-v2 §8.2]
    case 'info':
      return wire('INFO');
    case 'check':
      return wire('CHECK');
    case 'reload-options':
      return wire('RELOAD OPTIONS');
    // [COMMANDS §2.2, §2.4] v3-only presets
    case 'door-open':
    case 'door-close':
    case 'door-lock':
    case 'normal-open':
    case 'cancel-alarm':
    case 'emergency-on':
    case 'emergency-off':
      return noWireFormV2(preset);
    // [COMMANDS §4.8] pulses the lock for the device's own lock-drive time
    case 'door-unlock':
      return wire('AC_UNLOCK');
    case 'clear-alarm':
      return wire('AC_UNALARM');
    case 'load-users': {
      const pin = loadUsersPin(command.params as LoadUsersParams, context);
      if (isFailure(pin)) return pin;
      // [COMMANDS §4.14] without PIN = all users
      return wire(pin === undefined ? 'DATA QUERY USERINFO' : `DATA QUERY USERINFO PIN=${pin}`);
    }
    case 'sync-users':
      return SYNC_USERS_COMPOSITE;
    case 'enroll-biometric':
      return enroll(command.params as EnrollParams, profile);
    case 'check-attendance': {
      const w = checkAttendanceWindow(command.params as CheckAttendanceParams);
      if (isFailure(w)) return w;
      // [COMMANDS §4.17] `YYYY-MM-DD HH:MM:SS` first; the `T` form is the -1 fallback
      return wire(`DATA QUERY ATTLOG StartTime=${w.start}\tEndTime=${w.end}`);
    }
    case 'clear-log':
      return wire('CLEAR LOG');
    case 'clear-photo':
      return wire('CLEAR PHOTO');
    case 'clear-biodata':
      return wire('CLEAR BIODATA');
    case 'clear-data':
      return wire('CLEAR DATA');
    case 'firmware-upgrade':
      return firmwareUpgrade(command.params as FirmwareParams, profile, context, 2);
    // [COMMANDS §4.23] output in the result's Content= [PUSH-v2 §8.2]
    case 'shell-command':
      return wire(`SHELL ${(command.params as CommandTextParams).command}`);
    case 'custom':
      return custom(command.params as CommandTextParams);
    /* c8 ignore next 2 */
    default:
      return preset satisfies never;
  }
}

/** [COMMANDS §4.16] ENROLL_FP for fingers; ENROLL_BIO with the face type of §3.9 for faces (or fid 111). */
function enroll(p: EnrollParams, profile: DeviceProfile): EncodeResult {
  if (p.type === 'fingerprint' && p.fid !== 111)
    return wire(`ENROLL_FP PIN=${p.pin}\tFID=${p.fid}\tRETRY=${p.retry}\tOVERWRITE=${p.overwrite}`);
  const type = faceType(profile);
  if (type === undefined) return deviceLacks('enroll-biometric', 2, 'the device reported no face support (MultiBioDataSupport, FaceFunOn)');
  // [COMMANDS §3.9] fid 111 = face; ENROLL_BIO has no finger field
  return wire(`ENROLL_BIO TYPE=${type}\tPIN=${p.pin}\tCardNo=\tRETRY=${p.retry}\tOVERWRITE=${p.overwrite}`);
}

export function encodeSyncV2(op: SyncOp, profile: DeviceProfile): EncodeResult {
  switch (op.op) {
    case 'user.upsert':
      return upsertUser(op.user, profile);
    case 'user.delete': {
      const pin = pinText(op.pin);
      // [COMMANDS §5.2] also removes the user's templates and photo
      return isFailure(pin) ? pin : wire(`DATA DELETE USERINFO PIN=${pin}`);
    }
    case 'template.upsert':
      return upsertTemplate(op.template, profile, false);
    case 'template.delete':
      return deleteTemplates(op.pin, op.type, op.no, profile);
    case 'photo.upsert':
    case 'photo.delete':
      return encodePhoto(op, profile, 'v2');
    case 'holiday.replace':
    case 'timezones.set':
    case 'door.set':
    case 'access.query':
      return invalid(`${op.op}: needs a terminal with the access tables (Security PUSH)`);
    /* c8 ignore next 2 */
    default:
      return op satisfies never;
  }
}

const DEFAULT_TZ = '0000000100000000';

/** [COMMANDS §5.1] `DATA UPDATE USERINFO PIN\tName\tPri\tPasswd\tCard\tGrp\tTZ[\tVerify][\tViceCard]`. */
function upsertUser(user: SyncUser, profile: DeviceProfile): EncodeResult {
  const fields = userFieldTexts(user, profile);
  if (isFailure(fields)) return fields;
  const { pin, name, password, card, privilege, group } = fields;
  // [COMMANDS §3.8] 16 hex digits
  const tz = user.timeZones ?? DEFAULT_TZ;
  if (!/^[0-9A-Fa-f]{16}$/.test(tz)) return invalid('invalid TZ');
  let line =
    `DATA UPDATE USERINFO PIN=${pin}\tName=${name}\tPri=${privilege}\tPasswd=${password}\tCard=${card}` +
    // [COMMANDS §5.1] the API default group 0 is sent as the firmware default Grp=1
    `\tGrp=${group === 0 ? 1 : group}\tTZ=${tz}`;
  if (user.verify !== null && user.verify !== undefined) {
    if (!Number.isInteger(user.verify)) return invalid('invalid verify');
    line += `\tVerify=${user.verify}`;
  }
  if (user.viceCard !== null && user.viceCard !== undefined && user.viceCard !== '') {
    const vice = cardText(user.viceCard);
    if (isFailure(vice)) return vice;
    line += `\tViceCard=${vice}`;
  }
  return wire(line);
}

/**
 * [COMMANDS §5.3–§5.4] fingerprints: FINGERTMP while FPVersion ≤ 10, BIODATA Type=1 above (or when
 * `forceBiodata`, the -1002/-11/-12 fallback); other types: BIODATA when the device takes the type,
 * legacy FACE (type 2) on FaceFunOn devices without MultiBioDataSupport.
 */
function upsertTemplate(template: SyncTemplate, profile: DeviceProfile, forceBiodata: boolean): EncodeResult {
  const t = templateData(template);
  if (isFailure(t)) return t;
  const biodata = (): EncodeResult => {
    const b = biodataParts(template);
    if (isFailure(b)) return b;
    return wire(
      `DATA UPDATE BIODATA Pin=${t.pin}\tNo=${t.no}\tIndex=${b.index}\tValid=1\tDuress=${b.duress}\tType=${t.type}` +
        `\tMajorVer=${b.majorVer}\tMinorVer=${b.minorVer}\tFormat=${b.format}\tTmp=${t.data}`,
    );
  };
  if (t.type === 1) {
    if (forceBiodata || fingerprintAsBiodata(profile)) return biodata();
    // [COMMANDS §3.9] Valid 1 normal, 3 duress; Size = base64 length
    return wire(
      `DATA UPDATE FINGERTMP PIN=${t.pin}\tFID=${t.no}\tSize=${t.data.length}\tValid=${template.duress === true ? 3 : 1}\tTMP=${t.data}`,
    );
  }
  if (supportsBioType(profile, t.type)) return biodata();
  if (t.type === 2 && legacyFace(profile))
    return wire(`DATA UPDATE FACE PIN=${t.pin}\tFID=${t.no}\tValid=1\tSize=${t.data.length}\tTMP=${t.data}`);
  return deviceLacks('sync-users', 2, `the device does not accept biometric type ${t.type}`);
}

/** [COMMANDS §5.3–§5.4] per-user template deletes; without `type`, every table the device keeps. */
function deleteTemplates(
  pinValue: number | string,
  type: number | undefined,
  no: number | undefined,
  profile: DeviceProfile,
): EncodeResult {
  const pin = pinText(pinValue);
  if (isFailure(pin)) return pin;
  if (no !== undefined && (!Number.isInteger(no) || no < 0)) return invalid('invalid template number');
  const fpBiodata = fingerprintAsBiodata(profile);
  if (type === undefined) {
    return wire(
      ...(fpBiodata ? [] : [`DATA DELETE FINGERTMP PIN=${pin}`]),
      ...(hasBiodata(profile) ? [`DATA DELETE BIODATA Pin=${pin}`] : []),
      ...(legacyFace(profile) ? [`DATA DELETE FACE PIN=${pin}`] : []),
    );
  }
  if (!Number.isInteger(type) || type < 0 || type > MAX_BIO_TYPE) return invalid('invalid biometric type');
  const number = no === undefined ? '' : `\tNo=${no}`;
  if (type === 1) {
    if (fpBiodata) return wire(`DATA DELETE BIODATA Pin=${pin}\tType=1${number}`);
    return wire(`DATA DELETE FINGERTMP PIN=${pin}${no === undefined ? '' : `\tFID=${no}`}`);
  }
  if (supportsBioType(profile, type)) return wire(`DATA DELETE BIODATA Pin=${pin}\tType=${type}${number}`);
  if (type === 2 && legacyFace(profile)) return wire(`DATA DELETE FACE PIN=${pin}`);
  return deviceLacks('sync-users', 2, `the device does not accept biometric type ${type}`);
}

/** [COMMANDS §2.5, PUSH-v2 §11.3] fingerprint sync answered -1002 / -11 / -12 → BIODATA Type=1 once. */
export function syncFallbackV2(op: SyncOp, returnCode: number, profile: DeviceProfile): WireLines | undefined {
  if (op.op !== 'template.upsert' || op.template.type !== 1 || fingerprintAsBiodata(profile)) return undefined;
  if (!syncFingerprintFallbackApplies(returnCode)) return undefined;
  const result = upsertTemplate(op.template, profile, true);
  return result.ok ? result : undefined;
}
