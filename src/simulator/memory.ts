// What a simulated terminal stores: users, templates, access rights, photos, attendance, doors and
// options. Bounded: user and template capacity like a real device, attendance capped (oldest dropped).

import { createHash } from 'node:crypto';
import type { DoorState, SimAttendance, SimAuthorization, SimTemplate, SimUser, TemplateTable } from './types.js';

export interface MemoryLimits {
  readonly maxUsers: number;
  readonly maxTemplates: number;
  readonly maxAttendance: number;
}

export const DEFAULT_LIMITS: MemoryLimits = { maxUsers: 20_000, maxTemplates: 40_000, maxAttendance: 10_000 };

/** Fields to write; undefined ones keep the stored value (or the default for a new user). */
export type UserFields = { readonly pin: string } & {
  readonly [K in Exclude<keyof SimUser, 'pin' | 'uid'>]?: SimUser[K] | undefined;
};

export interface BioPhoto {
  readonly pin: string;
  readonly type: number;
  readonly size: number;
  /** SHA-256 (hex) of the decoded `Content`, so tests can check the bytes that arrived */
  readonly sha256?: string;
}

export interface DeviceMemory {
  readonly limits: MemoryLimits;
  readonly users: ReadonlyMap<string, SimUser>;
  /** insert or merge the given fields over the stored user; 'full' at capacity */
  putUser(fields: UserFields): 'ok' | 'full';
  deleteUsers(match: (user: SimUser) => boolean): number;

  templates(): readonly SimTemplate[];
  readonly templateCount: number;
  templatesOf(pin: string): readonly SimTemplate[];
  /** insert or replace (same table, pin, type, no, index); 'full' at capacity */
  putTemplate(template: SimTemplate): 'ok' | 'full';
  findTemplate(table: TemplateTable, pin: string, type: number, no: number): SimTemplate | undefined;
  deleteTemplates(match: (template: SimTemplate) => boolean): number;

  authorizations(): readonly SimAuthorization[];
  /** replaces the row with the same pin and time zone id */
  putAuthorization(row: SimAuthorization): void;
  /** [PUSH-v3 §11.2] `timezone` rows by TimezoneId: field → packed value. */
  timezones(): ReadonlyMap<number, Readonly<Record<string, number>>>;
  putTimezone(id: number, fields: Readonly<Record<string, number>>): void;
  /** `holiday` rows by date (`YYYYMMDD`): field → value. */
  holidays(): ReadonlyMap<string, Readonly<Record<string, string>>>;
  putHoliday(date: string, fields: Readonly<Record<string, string>>): void;
  clearHolidays(): void;
  deleteAuthorizations(match: (row: SimAuthorization) => boolean): number;

  readonly userPhotos: ReadonlyMap<string, number>;
  /** SHA-256 (hex) of each user photo's decoded content, by PIN */
  readonly userPhotoDigests: ReadonlyMap<string, string>;
  putUserPhoto(pin: string, size: number, sha256?: string): void;
  deleteUserPhotos(match: (pin: string) => boolean): number;
  bioPhotos(): readonly BioPhoto[];
  putBioPhoto(photo: BioPhoto): void;
  deleteBioPhotos(match: (photo: BioPhoto) => boolean): number;
  readonly attendancePhotos: number;
  clearAttendancePhotos(): void;

  /** newest `maxAttendance` records, oldest first */
  attendance(): readonly SimAttendance[];
  addAttendance(pin: string, time: string, status: number, verify: number): SimAttendance;
  clearAttendance(): void;
  /** records after this index have not been uploaded yet (v3 `filter=NewRecord`) */
  readonly uploadedUpTo: number;
  markUploaded(index: number): void;

  doors(): readonly DoorState[];
  updateDoor(door: number, patch: Partial<Omit<DoorState, 'door'>>): void;
  emergency: 'none' | 'dual-open' | 'dual-close';

  /** options set by SET OPTION / SET OPTIONS */
  readonly options: Map<string, string>;
}

const templateKey = (t: { table: string; pin: string; type: number; no: number; index: number }): string =>
  `${t.table}\u0000${t.pin}\u0000${t.type}\u0000${t.no}\u0000${t.index}`;

function removeWhere<K, V>(map: Map<K, V>, match: (value: V) => boolean): number {
  let n = 0;
  for (const [key, value] of map) {
    if (match(value)) {
      map.delete(key);
      n++;
    }
  }
  return n;
}

export function createDeviceMemory(lockCount: number, limits: MemoryLimits = DEFAULT_LIMITS): DeviceMemory {
  const users = new Map<string, SimUser>();
  const templates = new Map<string, SimTemplate>();
  const authorizations = new Map<string, SimAuthorization>();
  const timezones = new Map<number, Readonly<Record<string, number>>>();
  const holidays = new Map<string, Readonly<Record<string, string>>>();
  const userPhotos = new Map<string, number>();
  const userPhotoDigests = new Map<string, string>();
  const bioPhotos = new Map<string, BioPhoto>();
  let log: SimAttendance[] = [];
  let nextUid = 1;
  let nextIndex = 1;
  let attendancePhotos = 0;
  let uploadedUpTo = 0;
  const doors: DoorState[] = Array.from({ length: lockCount }, (_, i) => ({
    door: i + 1,
    relay: 'closed',
    lockedDown: false,
    alarm: false,
    normalOpenZoneEnabled: true,
    lastOpenSeconds: 0,
    pulses: 0,
  }));
  // trimming in slices keeps punch() O(1) amortised; attendance() shows the newest maxAttendance
  const trimSlack = Math.max(1, Math.floor(limits.maxAttendance / 10));

  const memory: DeviceMemory = {
    limits,
    users,
    putUser(fields) {
      const old = users.get(fields.pin);
      if (old === undefined && users.size >= limits.maxUsers) return 'full';
      const base: SimUser = old ?? {
        pin: fields.pin,
        name: '',
        privilege: 0,
        password: '',
        card: '',
        group: 1,
        tz: '',
        verify: 0,
        viceCard: '',
        startTime: '0',
        endTime: '0',
        disabled: false,
        uid: nextUid++,
      };
      const merged: Record<string, unknown> = { ...base };
      for (const [key, value] of Object.entries(fields)) if (value !== undefined) merged[key] = value;
      users.set(fields.pin, merged as unknown as SimUser);
      return 'ok';
    },
    deleteUsers: (match) => removeWhere(users, match),

    templates: () => [...templates.values()],
    get templateCount() {
      return templates.size;
    },
    templatesOf: (pin) =>
      [...templates.values()]
        .filter((t) => t.pin === pin)
        .sort((a, b) => a.type - b.type || a.no - b.no || a.index - b.index || a.table.localeCompare(b.table)),
    putTemplate(template) {
      const key = templateKey(template);
      if (!templates.has(key) && templates.size >= limits.maxTemplates) return 'full';
      templates.set(key, template);
      return 'ok';
    },
    findTemplate(table, pin, type, no) {
      for (const t of templates.values()) {
        if (t.table === table && t.pin === pin && t.type === type && t.no === no) return t;
      }
      return undefined;
    },
    deleteTemplates: (match) => removeWhere(templates, match),

    authorizations: () => [...authorizations.values()],
    putAuthorization(row) {
      authorizations.set(`${row.pin}\u0000${row.timezoneId}`, row);
    },
    deleteAuthorizations: (match) => removeWhere(authorizations, match),
    timezones: () => timezones,
    putTimezone(id, fields) {
      timezones.set(id, fields);
    },
    holidays: () => holidays,
    putHoliday(date, fields) {
      holidays.set(date, fields);
    },
    clearHolidays() {
      holidays.clear();
    },

    userPhotos,
    userPhotoDigests,
    putUserPhoto(pin, size, sha256) {
      userPhotos.set(pin, size);
      if (sha256 === undefined) userPhotoDigests.delete(pin);
      else userPhotoDigests.set(pin, sha256);
    },
    deleteUserPhotos(match) {
      let n = 0;
      for (const pin of [...userPhotos.keys()]) {
        if (match(pin)) {
          userPhotos.delete(pin);
          userPhotoDigests.delete(pin);
          n++;
        }
      }
      return n;
    },
    bioPhotos: () => [...bioPhotos.values()],
    putBioPhoto(photo) {
      bioPhotos.set(`${photo.pin}\u0000${photo.type}`, photo);
    },
    deleteBioPhotos: (match) => removeWhere(bioPhotos, match),
    get attendancePhotos() {
      return attendancePhotos;
    },
    clearAttendancePhotos() {
      attendancePhotos = 0;
    },

    attendance: () => (log.length > limits.maxAttendance ? log.slice(-limits.maxAttendance) : log),
    addAttendance(pin, time, status, verify) {
      const record: SimAttendance = { pin, time, status, verify, index: nextIndex++ };
      log.push(record);
      if (log.length >= limits.maxAttendance + trimSlack) log = log.slice(-limits.maxAttendance);
      return record;
    },
    clearAttendance() {
      log = [];
    },
    get uploadedUpTo() {
      return uploadedUpTo;
    },
    markUploaded(index) {
      if (index > uploadedUpTo) uploadedUpTo = index;
    },

    doors: () => doors,
    updateDoor(door, patch) {
      const at = door - 1;
      const old = doors[at];
      if (old !== undefined) doors[at] = { ...old, ...patch };
    },
    emergency: 'none',

    options: new Map(),
  };
  return memory;
}

/** Keeps a received photo (`type` undefined: a `userpic`): its size as sent, the SHA-256 of its decoded content. */
export function keepPhoto(memory: DeviceMemory, pin: string, type: number | undefined, size: number, content: string): void {
  const sha256 = content === '' ? undefined : createHash('sha256').update(Buffer.from(content, 'base64')).digest('hex');
  if (type === undefined) memory.putUserPhoto(pin, size, sha256);
  else memory.putBioPhoto({ pin, type, size, ...(sha256 === undefined ? {} : { sha256 }) });
}
