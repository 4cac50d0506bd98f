// The identity and capabilities of one simulated terminal, and the parameter lists it reports:
// INFO result [PUSH-v2 §8.2], `table=options` [PUSH-v2 §5], registry body [PUSH-v3 §3.3, §6],
// GET OPTIONS [PUSH-v3 §10.5] and the INFO heartbeat parameter [PUSH-v2 §7.1].

import type { DeviceMemory } from './memory.js';
import { seedFromText } from './rng.js';
import type { SimProtocol, TemplateTable } from './types.js';

export interface DeviceProfile {
  readonly sn: string;
  readonly protocol: SimProtocol;
  readonly fpVersion: 10 | 12;
  readonly faceSupport: boolean;
  /** visible-light palm (type 10): the MultiBio lists get 11 slots */
  readonly palmSupport: boolean;
  /** keeps user photos and enrols faces from them: BioPhotoFun=1, PhotoFunOn=1 [PUSH-v3 §6.3] */
  readonly photoSupport: boolean;
  /** `language` id of the handshake [PUSH-v2 §4.1] */
  readonly language: string;
  readonly lockCount: number;
  readonly commKey: string | undefined;
  /** protocol version announced on the handshake (`pushver`) */
  readonly pushver: string;
  /** firmware string (v2 `FWVersion`, v3 `FirmVer`); contains a space like real ones (fixture A25) */
  readonly firmware: string;
  /** firmware push-library string (`PushVersion`), not the protocol version [PUSH-v2 §5.3] */
  readonly pushLibrary: string;
  readonly deviceName: string;
  readonly mac: string;
  readonly ip: string;
}

export interface ProfileOptions {
  sn: string;
  protocol: SimProtocol;
  fpVersion?: 10 | 12;
  faceSupport?: boolean;
  palmSupport?: boolean;
  photoSupport?: boolean;
  language?: string;
  lockCount?: number;
  commKey?: string;
}

export function createProfile(opts: ProfileOptions): DeviceProfile {
  const h = seedFromText(opts.sn);
  const b = (shift: number): number => (h >>> shift) & 0xff;
  const hex = (n: number): string => n.toString(16).padStart(2, '0');
  const v3 = opts.protocol === 'v3';
  return {
    sn: opts.sn,
    protocol: opts.protocol,
    fpVersion: opts.fpVersion ?? 10,
    faceSupport: opts.faceSupport ?? false,
    palmSupport: opts.palmSupport ?? false,
    photoSupport: opts.photoSupport ?? false,
    language: opts.language ?? '69',
    lockCount: opts.lockCount ?? 1,
    commKey: opts.commKey,
    pushver: v3 ? '3.1.2' : '2.4.1',
    firmware: v3 ? 'BGSIM Ver3.3.12' : 'Ver 8.0.4.3-BGSIM',
    pushLibrary: v3 ? 'Ver 3.1.2S-20250616' : 'Ver 2.0.33S-20220623',
    deviceName: v3 ? 'BioGate Sim Access' : 'BioGate Sim Attendance',
    mac: `00:17:61:${hex(b(0))}:${hex(b(8))}:${hex(b(16))}`,
    ip: `10.${b(0)}.${b(8)}.${(b(16) % 250) + 2}`,
  };
}

/** Algorithm version [major, minor] the device uses for a biometric type, or undefined when the
 *  device has no such sensor. Fingerprint 10.0 / 12.0, NIR face 7.0, visible-light face 40.1. */
export function algorithmVersion(profile: DeviceProfile, type: number): readonly [number, number] | undefined {
  if (type === 1) return [profile.fpVersion, 0];
  if (type === 2 && profile.faceSupport) return [7, 0];
  if (type === 9 && profile.faceSupport) return [40, 1];
  // [PUSH-v2 §9.4] palm algorithm 1.0; type 10 = visible-light palm (vendor V4.2 revision, 2023)
  if (type === 10 && profile.palmSupport) return [1, 0];
  return undefined;
}

/** Where the device keeps a template it enrols itself: fingerprints of algorithm 10 in the legacy table,
 *  everything else as unified BIODATA / biodata [COMMANDS §5.3–§5.4]. */
export function storageTable(profile: DeviceProfile, type: number): TemplateTable {
  const legacy = type === 1 && profile.fpVersion === 10;
  if (profile.protocol === 'v2') return legacy ? 'FINGERTMP' : 'BIODATA';
  return legacy ? 'templatev10' : 'biodata';
}

/** [PUSH-v2 §9.4] colon list by type index 0..9; 0..10 (11 slots) on a palm device. */
function multiBio(profile: DeviceProfile, value: (type: number) => string): string {
  return Array.from({ length: profile.palmSupport ? 11 : 10 }, (_, type) => value(type)).join(':');
}

/** Every parameter the device can report, in a stable order; SET OPTION(S) values override. */
export function deviceParameters(profile: DeviceProfile, memory: DeviceMemory): Map<string, string> {
  const templates = memory.templates();
  const face = profile.faceSupport ? '1' : '0';
  const p = new Map<string, string>([
    ['~SerialNumber', profile.sn],
    ['~DeviceName', profile.deviceName],
    ['DeviceType', profile.protocol === 'v3' ? 'acc' : 'att'],
    ['MAC', profile.mac],
    ['IPAddress', profile.ip],
    ['NetMask', '255.255.255.0'],
    ['GATEIPAddress', profile.ip.replace(/\.\d+$/, '.1')],
    ['~Platform', 'BGSIM_TFT'],
    ['~OEMVendor', 'BIOGATE SIM'],
    ['FWVersion', profile.firmware],
    ['FirmVer', profile.firmware],
    ['PushVersion', profile.pushLibrary],
    ['UserCount', String(memory.users.size)],
    ['FPCount', String(templates.filter((t) => t.type === 1).length)],
    ['FaceCount', String(templates.filter((t) => t.type === 2 || t.type === 9).length)],
    ['TransactionCount', String(memory.attendance().length)],
    ['~MaxUserCount', String(memory.limits.maxUsers)],
    ['~MaxFingerCount', String(memory.limits.maxTemplates)],
    ['~MaxAttLogCount', String(memory.limits.maxAttendance)],
    ['~MaxUserFingerCount', '10'],
    ['FingerFunOn', '1'],
    ['FPVersion', String(profile.fpVersion)],
    ['~ZKFPVersion', String(profile.fpVersion)],
    ['FaceFunOn', face],
    ['FaceVersion', profile.faceSupport ? '40' : ''],
    // fingerprints travel as BIODATA only on algorithms above 10 [COMMANDS §5.3]
    [
      'MultiBioDataSupport',
      multiBio(profile, (t) =>
        (t === 1 && profile.fpVersion > 10) || ((t === 2 || t === 9) && profile.faceSupport) || (t === 10 && profile.palmSupport)
          ? '1'
          : '0',
      ),
    ],
    [
      'MultiBioVersion',
      multiBio(profile, (t) => {
        const v = algorithmVersion(profile, t);
        return v === undefined ? '0' : `${v[0]}.${v[1]}`;
      }),
    ],
    ['LockCount', String(profile.lockCount)],
    ['ReaderCount', String(profile.lockCount * 2)],
    ['AuxInCount', String(profile.lockCount)],
    ['AuxOutCount', String(profile.lockCount)],
    ['MachineType', '101'],
    ['DateFmtFunOn', '0'],
    ['StringPinFunOn', '1'],
    ['UserNameFunOn', '1'],
    ['CmdFormat', '0'],
  ]);
  if (profile.photoSupport) for (const key of PHOTO_KEYS) p.set(key, '1');
  for (const [key, value] of memory.options) p.set(key, value);
  return p;
}

/** Reported only by a terminal with photos (a terminal without them does not name them at all). */
const PHOTO_KEYS = ['BioPhotoFun', 'PhotoFunOn'];
const withPhotos = (profile: DeviceProfile, keys: readonly string[]): readonly string[] =>
  profile.photoSupport ? [...keys, ...PHOTO_KEYS] : keys;

const INFO_KEYS = [
  '~DeviceName',
  'MAC',
  'TransactionCount',
  'FPCount',
  'UserCount',
  'FaceCount',
  '~MaxUserCount',
  '~MaxAttLogCount',
  'FingerFunOn',
  'FaceFunOn',
  'FPVersion',
  'FaceVersion',
  'IPAddress',
  '~Platform',
  '~OEMVendor',
  'FWVersion',
  'PushVersion',
  'MultiBioDataSupport',
  'MultiBioVersion',
];

const REGISTRY_KEYS = [
  'DeviceType',
  '~DeviceName',
  'FirmVer',
  'PushVersion',
  'MAC',
  'IPAddress',
  'NetMask',
  'GATEIPAddress',
  'LockCount',
  'ReaderCount',
  'AuxInCount',
  'AuxOutCount',
  'MachineType',
  '~MaxUserCount',
  '~MaxAttLogCount',
  '~MaxUserFingerCount',
  '~ZKFPVersion',
  'FingerFunOn',
  'FPVersion',
  'FaceFunOn',
  'FaceVersion',
  'MultiBioDataSupport',
  'MultiBioVersion',
  'DateFmtFunOn',
  'StringPinFunOn',
  'UserNameFunOn',
  'CmdFormat',
];

const pick = (params: ReadonlyMap<string, string>, keys: readonly string[]): string[] => keys.map((k) => `${k}=${params.get(k) ?? ''}`);

/** [PUSH-v2 §8.2] the parameter lines of an INFO result, one `Key=Value` per line. */
export function infoLines(profile: DeviceProfile, memory: DeviceMemory): string[] {
  return pick(deviceParameters(profile, memory), withPhotos(profile, INFO_KEYS));
}

/** [PUSH-v2 §5.1] `table=options` body: comma list; keys the server asked for (`PushOptions`) are added. */
export function optionsBody(profile: DeviceProfile, memory: DeviceMemory, requested: readonly string[]): string {
  const info = withPhotos(profile, INFO_KEYS);
  const keys = [...info, ...requested.filter((k) => !info.includes(k))];
  return pick(deviceParameters(profile, memory), keys).join(',');
}

/** [PUSH-v3 §3.3] registry body: one line of comma-separated parameters (fixture B4). */
export function registryBody(profile: DeviceProfile, memory: DeviceMemory): string {
  const items = [
    ...pick(deviceParameters(profile, memory), withPhotos(profile, REGISTRY_KEYS)),
    'CommType=ethernet',
    'MaxPackageSize=2048000',
  ];
  if (profile.commKey !== undefined) items.push(`authKey=${profile.commKey}`);
  return items.join(',');
}

/** [PUSH-v3 §10.5] GET OPTIONS answer for the requested keys (unknown keys come back empty). */
export function optionValues(profile: DeviceProfile, memory: DeviceMemory, keys: readonly string[]): string {
  return pick(deviceParameters(profile, memory), keys).join(',');
}

/** [PUSH-v2 §7.1] 10-field INFO heartbeat value (not yet URL-encoded). */
export function infoHeartbeat(profile: DeviceProfile, memory: DeviceMemory): string {
  const p = deviceParameters(profile, memory);
  const flags = `1${profile.faceSupport ? '1' : '0'}0`;
  return [
    profile.firmware,
    p.get('UserCount'),
    p.get('FPCount'),
    p.get('TransactionCount'),
    profile.ip,
    String(profile.fpVersion),
    profile.faceSupport ? '7' : '0',
    profile.faceSupport ? '12' : '0',
    p.get('FaceCount'),
    flags,
  ].join(',');
}
