/**
 * Renders a stored command for one device at dispatch time (DESIGN.md "Command
 * delivery"): presets through the device's codec; sync ops from the user's
 * current data, so a queued op always sends the latest state.
 */
import { keepOpenScheduleOf } from '../locations/scenario.js';
import {
  learnedUnsupportedMessage,
  type AttendanceWindow,
  type Codec,
  type DeviceProfile,
  type EncodeContext,
  type EncodeResult,
  type ProtocolVersion,
  type SyncOp,
  type SyncTemplate,
} from '../../protocols/index.js';
import type { PresetId } from '../../protocols/catalog.js';
import type { Store } from '../store/types.js';
import {
  alwaysSchedule,
  holdsUser,
  holidayDays,
  packedSchedule,
  rightsOn,
  type Command,
  type Device,
  type Location,
  type Template,
  type User,
} from '../store/ports/index.js';
import { phaseAt } from '../time/access-window.js';
import { learnedRefusal } from './capabilities.js';
import { photoPart } from './render-photo.js';

/** The system command that sets a terminal's clock; rendered when it leaves, with the time of that moment. */
export const TIME_SYNC_COMMAND = 'time-sync';
/** The system command that replaces a v3 terminal's `holiday` table with the location's holidays (issue #33 item 3). */
export const HOLIDAY_SYNC_COMMAND = 'holiday-sync';
/** The system command that sends one door's settings (`params.door`) as stored when it leaves (issue #33 item 5). */
export const DOOR_SETTINGS_COMMAND = 'door-settings';
/** The system command that writes the location's schedules as the terminal's `timezone` rows, as they are at dispatch. */
export const TIMEZONE_SYNC_COMMAND = 'timezone-sync';
/** The system command that reads a v3 terminal's access tables for the access audit (sync/access-audit.ts). */
export const ACCESS_AUDIT_COMMAND = 'access-audit';

export interface Rendered {
  /** Wire lines; the first carries the command's id. */
  readonly lines: readonly string[];
  readonly note?: string;
  /** v3 load-users of one PIN: keep only that user of the answer [COMMANDS §4.14]. */
  readonly keepPin?: string;
  /** v3 check-attendance: keep only rows inside the window [COMMANDS §4.17]. */
  readonly keepWindow?: AttendanceWindow;
  /** v2 check-attendance fallback: answer `ATTLOGStamp=0` on the next handshake [PUSH-v2 §4.7]. */
  readonly requestFullAttlogUpload?: boolean;
}

export type RenderResult = { ok: true; rendered: Rendered } | { ok: false; reason: string };

export function profileOf(device: Device, version: ProtocolVersion): DeviceProfile {
  return { version, options: device.options ?? {} };
}

/** Algorithm version a device reports for a template type [COMMANDS §3.9]; undefined when unknown. */
function deviceAlgorithm(profile: DeviceProfile, t: Template): number | undefined {
  const key =
    t.bio_type === 'fingerprint'
      ? ['FPVersion', 'ZKFPVersion', '~ZKFPVersion']
      : t.bio_type === 'face'
        ? ['FaceVersion', '~FaceVersion']
        : [];
  for (const k of key) {
    const v = profile.options[k];
    if (v !== undefined && /^\d+/.test(v)) return Number.parseInt(v, 10);
  }
  return undefined;
}

/**
 * Only templates of the device's algorithm version are sent [COMMANDS §3.9, §5.4]; the others are
 * skipped with a reason, never sent as garbage.
 */
export function compatibleTemplates(profile: DeviceProfile, templates: readonly Template[]): { send: Template[]; skipped: string[] } {
  const send: Template[] = [];
  const skipped: string[] = [];
  for (const t of templates) {
    if (t.valid === 0) continue;
    const algo = deviceAlgorithm(profile, t);
    // A BIODATA template names its MajorVer, so a device that reports no version can judge it itself;
    // when the device does report one, a mismatch is skipped here, whatever table would carry it.
    if (algo === undefined && t.source_format === 'biodata') send.push(t);
    else if (algo === undefined) skipped.push(`${t.bio_type} ${t.finger_id}: device algorithm version unknown`);
    else if (t.major_ver !== 0 && algo !== t.major_ver)
      skipped.push(`${t.bio_type} ${t.finger_id}: template v${t.major_ver}, device v${algo}`);
    else send.push(t);
  }
  return { send, skipped };
}

const syncTemplate = (t: Template): SyncTemplate => ({
  pin: t.user_pin,
  type: t.type_index,
  no: t.finger_id,
  index: t.template_index,
  duress: t.duress,
  majorVer: t.major_ver,
  minorVer: t.minor_ver,
  format: t.format,
  data: t.data,
});

/**
 * The rights of a user with access levels on this terminal (issue #33 item 4): nothing for a user
 * without levels (schedule 1 through every door, as before levels existed). The schedules they name are
 * the terminal's `timezone` table, sent on their own (TIMEZONE_SYNC_COMMAND).
 */
export async function accessOf(store: Store, location: Location, device: Device, user: User): Promise<Pick<SyncUserOp, 'rights'>> {
  if (user.access_levels.length === 0) return {};
  return { rights: rightsOn(device, await store.accessLevels.getMany(location.id, user.access_levels)) ?? [] };
}

type SyncUserOp = Extract<SyncOp, { op: 'user.upsert' }>;

function userLines(codec: Codec, user: User, profile: DeviceProfile, ctx: EncodeContext, access: Pick<SyncUserOp, 'rights'>): EncodeResult {
  return codec.encodeSync(
    {
      op: 'user.upsert',
      ...access,
      user: {
        pin: user.pin,
        firstName: user.first_name,
        lastName: user.last_name,
        cardNo: user.card_no,
        password: user.password,
        privilege: user.privilege,
        group: user.group,
        startTime: user.start_time,
        endTime: user.end_time,
      },
    },
    profile,
    ctx,
  );
}

/** The code that taught BioGate this line's command word is unsupported here, if any [COMMANDS §2.6]. */
const refusalOf = (codec: Codec, device: Device, line: string): number | undefined =>
  learnedRefusal(device.state, codec.capabilityKey(line));

export async function render(
  store: Store,
  codec: Codec,
  command: Command,
  device: Device,
  location: Location,
  now: Date,
): Promise<RenderResult> {
  // [COMMANDS §2.5] a fallback chosen after the first answer is sent as stored (see CommandsPort.retry).
  if (command.origin !== 'sync' && command.attempts > 0 && command.wire !== null)
    return { ok: true, rendered: { lines: command.wire.split('\n') } };
  const profile = profileOf(device, codec.version);
  const ctx: EncodeContext = { timeZone: location.timezone };
  // The location's time at dispatch, in the dialect's form (sync/time-sync.ts).
  if (command.origin === 'system' && command.command === TIME_SYNC_COMMAND) return fromEncode(codec.encodeTimeSync(now, location.timezone));
  // The location's holidays as they are at dispatch: a newer change replaces a pending sync (one sync key).
  if (command.origin === 'system' && command.command === HOLIDAY_SYNC_COMMAND) {
    const days = (await store.holidays.list(location.id)).flatMap((h) =>
      holidayDays(h).map((date) => ({ date, type: h.type, yearly: h.recurring })),
    );
    return fromEncode(codec.encodeSync({ op: 'holiday.replace', days }, profile, ctx));
  }
  if (command.origin === 'system' && command.command === TIMEZONE_SYNC_COMMAND) {
    const schedules = [alwaysSchedule(location.id), ...(await store.schedules.list(location.id))];
    const timezones = schedules.map((s) => ({ id: s.id, values: packedSchedule(s.days) }));
    return fromEncode(codec.encodeSync({ op: 'timezones.set', timezones }, profile, ctx));
  }
  if (command.origin === 'system' && command.command === ACCESS_AUDIT_COMMAND) {
    // The doors BioGate gave settings are read back with the tables (sync/access-audit.ts doorsDiffer).
    const doors = Object.keys(device.doors)
      .map(Number)
      .sort((a, b) => a - b);
    return fromEncode(codec.encodeSync({ op: 'access.query', doors }, profile, ctx));
  }
  if (command.origin === 'system' && command.command === DOOR_SETTINGS_COMMAND) {
    const door = Number(command.params?.['door']);
    const setting = device.doors[String(door)];
    if (!setting) return { ok: false, reason: `door ${door} has no settings` };
    const op = {
      op: 'door.set' as const,
      door,
      unlockSeconds: setting.unlock_seconds,
      keepOpenTimezoneId: keepOpenScheduleOf(location, setting),
    };
    return fromEncode(codec.encodeSync(op, profile, ctx));
  }
  return command.origin === 'sync'
    ? renderSync(store, codec, command, device, location, profile, ctx, now)
    : renderPreset(store, codec, command, device, location, profile, ctx);
}

async function renderSync(
  store: Store,
  codec: Codec,
  command: Command,
  device: Device,
  location: Location,
  profile: DeviceProfile,
  ctx: EncodeContext,
  now: Date,
): Promise<RenderResult> {
  const params = command.params ?? {};
  const pin = params['pin'] as number;
  // A delete of a moved device's previous users (no location, sync/queue.ts): a delete whatever the
  // device's current location holds under that PIN; that location's own op sends its user afterwards.
  if (command.location_id === null) return fromEncode(codec.encodeSync({ op: 'user.delete', pin }, profile, ctx));
  // An op says which user, not what to send: it renders the user's state at dispatch. Whatever order
  // a terminal receives a user's ops in (a re-queued op whose result was lost can arrive after a newer
  // one), the last one it executes carries the newest state, so it converges. Not active
  // in the location (deleted, deactivated, another location's PIN) means revoke; a device that cannot
  // hold the access window does not hold the user outside it [API-CONTRACT §6].
  // A terminal in an area holds only the users of that area [issue #33].
  const user = await store.users.get(location.id, pin);
  const outside = user !== undefined && !codec.storesUserWindow && phaseAt(user, location.timezone, now.getTime()) !== 'inside';
  if (!user || !holdsUser(device, user) || outside) return fromEncode(codec.encodeSync({ op: 'user.delete', pin }, profile, ctx));
  // A photo set again since the delete was queued is sent with the user (below), not deleted.
  if (params['op'] === 'photo.delete' && user.photo === null)
    return fromEncode(codec.encodeSync({ op: 'photo.delete', pin }, profile, ctx));
  const templates = await store.templates.listForUser(location.id, pin);
  if (params['op'] === 'template.delete') {
    const type = params['type'] as number;
    const no = params['no'] as number;
    // A slot filled again since the delete was queued is sent as it is now (below), not deleted.
    if (!templates.some((t) => t.type_index === type && t.finger_id === no))
      return fromEncode(codec.encodeSync({ op: 'template.delete', pin, type, no }, profile, ctx));
  }
  const base = userLines(codec, user, profile, ctx, await accessOf(store, location, device, user));
  if (!base.ok) return { ok: false, reason: base.reason };
  const refused = base.lines.map((l) => refusalOf(codec, device, l)).find((c) => c !== undefined);
  if (refused !== undefined) return { ok: false, reason: learnedUnsupportedMessage(refused) };
  const { send, skipped } = compatibleTemplates(profile, templates);
  const lines = [...base.lines];
  for (const t of send) {
    const template = { op: 'template.upsert' as const, template: syncTemplate(t) };
    const r = codec.encodeSync(template, profile, ctx);
    if (!r.ok) {
      skipped.push(`${t.bio_type} ${t.finger_id}: ${r.reason}`);
      continue;
    }
    const code = r.lines.map((l) => refusalOf(codec, device, l)).find((c) => c !== undefined);
    // [COMMANDS §2.5] v2 FINGERTMP refused before: the BIODATA form, if the dialect has one.
    const fallback = code === undefined ? r : codec.syncFallback(template, code, profile);
    if (fallback) lines.push(...fallback.lines);
    else skipped.push(`${t.bio_type} ${t.finger_id}: ${learnedUnsupportedMessage(code as number)}`);
  }
  const photo = await photoPart(store, codec, device, location, user, profile, ctx);
  lines.push(...photo.lines);
  const notes = [...(skipped.length > 0 ? [`templates skipped: ${skipped.join('; ')}`] : []), ...(photo.skipped ? [photo.skipped] : [])];
  return { ok: true, rendered: { lines, ...(notes.length > 0 ? { note: notes.join('; ') } : {}) } };
}

async function renderPreset(
  store: Store,
  codec: Codec,
  command: Command,
  device: Device,
  location: Location,
  profile: DeviceProfile,
  ctx: EncodeContext,
): Promise<RenderResult> {
  const preset = command.command as PresetId;
  const params = command.params ?? {};
  let context = ctx;
  if (preset === 'enroll-biometric') {
    const user = await store.users.get(location.id, params['pin'] as number);
    if (user?.card_no) context = { ...ctx, userCardNo: user.card_no };
  }
  const r = codec.encodePreset({ preset, params }, profile, context);
  if (!r.ok) return fromEncode(r);
  const code = r.lines.map((l) => refusalOf(codec, device, l)).find((c) => c !== undefined);
  if (code === undefined) return fromEncode(r);
  // [COMMANDS §2.3] learned unsupported: fail at once unless a fallback exists (and is not refused too).
  const fallback = codec.presetFallback({ preset, params }, code);
  if (!fallback || fallback.lines.some((l) => refusalOf(codec, device, l) !== undefined))
    return { ok: false, reason: learnedUnsupportedMessage(code) };
  return fromEncode(fallback);
}

function fromEncode(r: EncodeResult): RenderResult {
  if (!r.ok) return { ok: false, reason: r.reason };
  return {
    ok: true,
    rendered: {
      lines: r.lines,
      ...(r.note ? { note: r.note } : {}),
      ...(r.keepPin !== undefined ? { keepPin: r.keepPin } : {}),
      ...(r.keepWindow !== undefined ? { keepWindow: r.keepWindow } : {}),
      ...(r.requestFullAttlogUpload ? { requestFullAttlogUpload: true } : {}),
    },
  };
}
