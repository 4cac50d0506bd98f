// Facts about a device drawn from its reported parameters [PUSH-v2 §5.3, PUSH-v3 §6].
import type { DeviceProfile } from '../commands.js';
import { intOrNull } from './numbers.js';
import { optionValue } from './options.js';

export const option = (profile: DeviceProfile, name: string): string | undefined => optionValue(profile.options, name);

const intOption = (profile: DeviceProfile, name: string): number | null => intOrNull(option(profile, name));

/** `LockCount` when reported and positive. */
export function lockCount(profile: DeviceProfile): number | null {
  const n = intOption(profile, 'LockCount');
  return n !== null && n > 0 ? n : null;
}

/** [COMMANDS §3.2] all doors: `(1 << LockCount) − 1`, or 1 when LockCount is unknown. */
export function allDoorsMask(profile: DeviceProfile): number {
  const n = lockCount(profile);
  return n === null ? 1 : 2 ** Math.min(n, 31) - 1;
}

/** `MultiBioDataSupport` flags by type index [PUSH-v2 §9.4]; empty when not reported (or reported empty). */
export function multiBioSupport(profile: DeviceProfile): readonly string[] {
  const raw = option(profile, 'MultiBioDataSupport')?.trim() ?? '';
  return raw === '' ? [] : raw.split(':').map((f) => f.trim());
}

export const supportsBioType = (profile: DeviceProfile, type: number): boolean => multiBioSupport(profile)[type] === '1';

const flagOn = (profile: DeviceProfile, name: string): boolean => intOption(profile, name) === 1;

/** [COMMANDS §3.9] face type: 9 if MultiBioDataSupport[9] = 1, else 2 if [2] = 1, else 2 when FaceFunOn=1. */
export function faceType(profile: DeviceProfile): 9 | 2 | undefined {
  if (supportsBioType(profile, 9)) return 9;
  if (supportsBioType(profile, 2)) return 2;
  return flagOn(profile, 'FaceFunOn') ? 2 : undefined;
}

/** [COMMANDS §5.3] v2 fingerprints go as BIODATA when FPVersion > 10 or the device takes type 1 as BIODATA. */
export function fingerprintAsBiodata(profile: DeviceProfile): boolean {
  const version = Number.parseFloat(option(profile, 'FPVersion') ?? '');
  return (Number.isFinite(version) && version > 10) || supportsBioType(profile, 1);
}

/** [COMMANDS §5.4] legacy FACE table: FaceFunOn=1 and no MultiBioDataSupport. */
export const legacyFace = (profile: DeviceProfile): boolean => flagOn(profile, 'FaceFunOn') && multiBioSupport(profile).length === 0;

/** Device keeps unified templates: any MultiBioDataSupport flag, BioDataFun=1, or FP as BIODATA. */
export const hasBiodata = (profile: DeviceProfile): boolean =>
  multiBioSupport(profile).includes('1') || flagOn(profile, 'BioDataFun') || fingerprintAsBiodata(profile);

/** [COMMANDS §4.21] devices with comparison photos / user photos. */
export const hasPhotos = (profile: DeviceProfile): boolean => photoTable(profile) !== undefined;

/**
 * Where a user photo goes [PUSH-v3 §6.3, §11.2; PUSH-v2 §9]: `biophoto` (a visible-light face the terminal
 * enrols from) when it reports BioPhotoFun=1 or takes type 9 photos (MultiBioPhotoSupport), `userpic` when
 * it shows user photos (PhotoFunOn=1, UserPicURLFunOn=1); undefined: the terminal reports neither.
 */
export function photoTable(profile: DeviceProfile): 'biophoto' | 'userpic' | undefined {
  const multi = (option(profile, 'MultiBioPhotoSupport') ?? '').split(':');
  if (flagOn(profile, 'BioPhotoFun') || multi[9] === '1') return 'biophoto';
  if (flagOn(profile, 'PhotoFunOn') || flagOn(profile, 'UserPicURLFunOn')) return 'userpic';
  return undefined;
}

/** [PUSH-v3 §6.3] DateFmtFunOn=1 → packed seconds; otherwise (0 or unknown) `YYYYMMDD`. */
export const packedDates = (profile: DeviceProfile): boolean => flagOn(profile, 'DateFmtFunOn');

/** [COMMANDS §5.1] user name length in bytes: 24 unless the device reported another. */
export function maxNameBytes(profile: DeviceProfile): number {
  const n = intOption(profile, 'MaxUserNameLen');
  return n !== null && n > 0 ? n : 24;
}

export const subcontractingUpgrade = (profile: DeviceProfile): boolean => flagOn(profile, 'SubcontractingUpgradeFunOn');
