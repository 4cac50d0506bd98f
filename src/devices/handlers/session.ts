/**
 * Session and registration events: the handshake [PUSH-v2 §4], registration and configuration
 * [PUSH-v3 §3], options, heartbeats and the exchanges that only keep the terminal seen, time requests.
 */
import { randomBytes } from 'node:crypto';
import { codecFor, codecOfDevice, detectVersion, PROTOCOL_V3, registryCodeFrom, sessionIdFrom } from '../../../protocols/index.js';
import type { Device, Location } from '../../store/ports/index.js';
import { finishCommand } from '../results.js';
import { nowIso, type Handler, type HandlerContext } from './context.js';

/** [COMMANDS §4.1] a device may restart before posting its result: a new handshake completes the reboot. */
async function restarted(ctx: HandlerContext, location: Location): Promise<void> {
  const sent = await ctx.store.commands.sentOf(location.id, ctx.sn, 'reboot', 10);
  for (const command of sent) await finishCommand(ctx.results, command, { status: 'success', result: { note: 'device restarted' } });
}

/** Issue #33: a terminal assigned before it was known to store the access tables (first seen as v3) gets them now. */
async function tablesLearned(ctx: HandlerContext, before: boolean, device: Device | undefined): Promise<void> {
  const locationId = device?.location_id ?? null;
  if (!before && locationId !== null && codecOfDevice(device).storesAccessTables) await ctx.onAccessTablesStored(locationId, ctx.sn);
}

export const handshake: Handler<'handshake'> = async (ctx, state, event) => {
  const { session } = ctx;
  let device = state.device;
  const tablesBefore = codecOfDevice(device).storesAccessTables;
  const version = detectVersion(state.req.wire, device?.version_override ?? undefined);
  const pushver = event.pushVersion;
  // [PUSH-v3 §3.2] a terminal whose first contact speaks Security PUSH registers next: allowed.
  const opensRegistration = state.firstContact && detectVersion(state.req.wire) === PROTOCOL_V3;
  device = await session.update({
    version,
    ...(device?.registered_at ? {} : { registered_at: nowIso(ctx) }),
    ...(opensRegistration ? { registration_accepted_at: nowIso(ctx) } : {}),
    options: {
      ...(pushver ? { PushVersion: pushver } : {}),
      ...(event.deviceType ? { DeviceType: event.deviceType } : {}),
      ...(event.language ? { Language: event.language } : {}),
    },
  });
  await tablesLearned(ctx, tablesBefore, device);
  const location = await session.location(device);
  if (location) await restarted(ctx, location);
  const registration =
    device?.registry_code && device.session_id ? { registryCode: device.registry_code, sessionId: device.session_id } : undefined;
  // [PUSH-v2 §4.7] a full attendance re-upload was requested (check-attendance fallback): once.
  const reupload = device?.state?.attlogReupload === true;
  if (reupload) device = await session.update({ state: { ...device?.state, attlogReupload: false } });
  state.device = device;
  state.location = location;
  return session.codec.replies.handshake({
    sn: ctx.sn,
    timeZone: await session.timeZone(device, location),
    now: ctx.clock.now(),
    ...(registration ? { registration } : {}),
    ...(pushver === null ? { legacyStamps: true } : {}),
    ...(reupload ? { fullAttlogReupload: true } : {}),
  });
};

/**
 * [PUSH-v3 §3.3] Registration issues a registry code only when it is allowed for the serial: the terminal
 * registered before, its first contact spoke Security PUSH (or is this request), or an operator accepted
 * it (POST /api/devices/{sn}/accept-registration). Otherwise 406, and nothing of the record changes: a
 * terminal seen polling as v2 is neither switched to v3 nor bound to a token by whoever knows its serial.
 */
export const registration: Handler<'registration'> = async (ctx, state, event) => {
  const device = state.device;
  const first = state.firstContact;
  if (device && !first && device.registry_code === null && device.registration_accepted_at === null) {
    ctx.log.warn('registration refused: not accepted for this terminal (POST /api/devices/{sn}/accept-registration)');
    return codecFor(PROTOCOL_V3).replies.registryRefused();
  }
  const registry_code = device?.registry_code ?? registryCodeFrom(randomBytes(10));
  // [PUSH-v3 §3.6] terminals re-register on every connection but fetch the configuration (and its
  // SessionID, the input of their token [PUSH-v3 §5]) once: keep the session stable.
  const session_id = device?.session_id ?? sessionIdFrom(randomBytes(16));
  // [PUSH-v3 §3] a terminal that registers speaks Security PUSH, unless an operator said otherwise.
  const version = device?.version_override ?? PROTOCOL_V3;
  const tablesBefore = codecOfDevice(device).storesAccessTables;
  state.device = await ctx.session.update({
    registry_code,
    session_id,
    version,
    ...(device?.registered_at ? {} : { registered_at: nowIso(ctx) }),
    ...(first ? { registration_accepted_at: nowIso(ctx) } : {}),
    options: event.options.values,
  });
  await tablesLearned(ctx, tablesBefore, state.device);
  return codecFor(version).replies.registry(registry_code);
};

/** [PUSH-v3 §3.4] the configuration is a Security PUSH reply, whatever the device was believed to speak. */
export const configRequest: Handler<'configRequest'> = async (ctx, state) => {
  const sessionId = state.device?.session_id ?? sessionIdFrom(randomBytes(16));
  if (!state.device?.session_id) state.device = await ctx.session.update({ session_id: sessionId });
  return codecFor(PROTOCOL_V3).replies.config({ sessionId });
};

export const options: Handler<'options'> = async (ctx, state, event) => {
  state.device = await ctx.session.update({ options: event.options.values });
  state.accepted++;
  return undefined;
};

/** [PUSH-v2 §7.1] a poll: answered with the mailbox's commands. */
export const heartbeat: Handler<'heartbeat'> = (ctx, state, event) => {
  state.hold = true;
  // [PUSH-v2 §7.1] INFO's user count, compared with the roster off the poll's path (sync/audit.ts).
  const device = state.device;
  if (event.info && device?.location_id != null)
    ctx
      .onReportedCounts(device, { users: event.info.users })
      .catch((err: unknown) => ctx.log.warn({ err }, 'audit: reported counts not checked'));
  return undefined;
};

/** [PUSH-v2 §7.6, §12; PUSH-v3 §3.7, §16] pings, key exchanges and service polls only keep the terminal seen. */
export const keepAlive: Handler<'ping' | 'keyExchange' | 'serviceControl'> = () => undefined;

export const timeRequest: Handler<'timeRequest'> = async (ctx, state, event) =>
  ctx.session.codec.replies.time(ctx.clock.now(), await ctx.session.timeZone(state.device, state.location), event.flavor);
