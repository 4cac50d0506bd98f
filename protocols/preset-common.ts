// Preset pieces whose wire form is the same on both generations [COMMANDS §4.22, §4.24] and shared checks.
import { CUSTOM_MAX_BYTES } from './catalog.js';
import type { DeviceProfile, EncodeContext, EncodeFailure, EncodeResult } from './commands.js';
import { attendanceWindow, type AttendanceWindow } from './attendance-window.js';
import { invalid, type CheckAttendanceParams, type CommandTextParams, type FirmwareParams, type LoadUsersParams } from './preset-params.js';
import { lockCount, subcontractingUpgrade } from './shared/profile.js';
import { pinText } from './shared/values.js';
import { deviceLacks } from './unsupported.js';
import type { ProtocolMajor } from './catalog.js';

export const wire = (...lines: string[]): EncodeResult => ({ ok: true, lines });

const URL_TEXT = /^[^\s,]+$/;

/** [COMMANDS §4.22] UPGRADE methods 1 (default), 2 (raw file), 3 (ranged download, device must report
 *  SubcontractingUpgradeFunOn=1). */
export function firmwareUpgrade(p: FirmwareParams, profile: DeviceProfile, context: EncodeContext, major: ProtocolMajor): EncodeResult {
  const url = context.firmwareUrl ?? p.url;
  // the option list is comma-separated: a comma or blank in the URL would split it
  if (!URL_TEXT.test(url)) return invalid('invalid character in url');
  switch (context.firmwareMethod ?? 1) {
    case 1:
      return wire(`UPGRADE checksum=${p.checksum},url=${url},size=${p.size}`);
    case 2:
      return wire(`UPGRADE type=1,checksum=${p.checksum},size=${p.size},url=${url}`);
    case 3:
      if (!subcontractingUpgrade(profile))
        return deviceLacks('firmware-upgrade', major, 'upgrade method 3 needs SubcontractingUpgradeFunOn=1');
      return wire(`UPGRADE checksum=${p.checksum},size=${p.size},url=${url},supportsubcontracting=1`);
  }
}

/** [COMMANDS §4.24] the raw command verbatim: no CR/LF/NUL, no leading `C:`, at most 16 KB. */
export function custom(p: CommandTextParams): EncodeResult {
  if (Buffer.byteLength(p.command, 'utf8') > CUSTOM_MAX_BYTES) return invalid('command is longer than 16 KB');
  return wire(p.command);
}

/** [COMMANDS §4.14] params.pin, else the PIN resolved for params.user_id, else all users (undefined). */
export function loadUsersPin(p: LoadUsersParams, context: EncodeContext): string | undefined | EncodeFailure {
  if (p.pin !== null) return pinText(p.pin);
  if (p.user_id === null) return undefined;
  if (context.userPin === undefined) return invalid(`user_id ${p.user_id} could not be resolved to a PIN`);
  return pinText(context.userPin);
}

/** [COMMANDS §4.17] validated window, device-local. */
export function checkAttendanceWindow(p: CheckAttendanceParams): AttendanceWindow | EncodeFailure {
  if (p.startDate !== null && p.endDate !== null && p.startDate > p.endDate) return invalid('startDate is after endDate');
  return attendanceWindow(p);
}

/** [COMMANDS §2.3] doors are 1–4 (catalog) and, when the device reported LockCount, ≤ LockCount. */
export function doorBeyondLockCount(door: number, profile: DeviceProfile): EncodeFailure | undefined {
  const n = lockCount(profile);
  return n !== null && door > n ? invalid(`door ${door} does not exist on this device (LockCount=${n})`) : undefined;
}
