/**
 * Uploads: attendance, door and access records [PUSH-v2 §6; PUSH-v3 §7, §11], templates, users,
 * photos, logs, and tables kept raw or not known. An assigned device's records are stored before the
 * terminal is answered; what BioGate does not keep is acknowledged so the terminal does not resend it.
 */
import { randomUUID } from 'node:crypto';
import { inAttendanceWindow, type RecordSource } from '../../../protocols/index.js';
import type { PresetId } from '../../../protocols/catalog.js';
import type { Device, Location } from '../../store/ports/index.js';
import { afterMove } from '../device-move.js';
import { ACCESS_AUDIT_COMMAND } from '../render.js';
import { MAX_RAW_RECORD_CHARS, textReply } from '../actor-types.js';
import { doorEventBusPayload, doorEventsFromRtlog } from '../door-events.js';
import { SAMPLES_PER_REQUEST, truncateBytes } from '../log-budget.js';
import { MAX_ACCESS_ROWS, MAX_LOADED_USERS, mergeUsers, progressOf } from '../progress.js';
import { addProgress } from '../results.js';
import { fromAttlog, punchFromAccess, punchFromRtlog, recordPunches, recordTemplates, type Punch } from '../uploads.js';
import { nowIso, type Handler, type HandlerContext } from './context.js';

/** The id of this device's oldest sent command of a preset (v2 uploads answering a query carry no id). */
async function outstanding(ctx: HandlerContext, preset: PresetId, device: Device | undefined): Promise<number | undefined> {
  const location = device?.location_id;
  return location === undefined || location === null ? undefined : (await ctx.store.commands.sentOf(location, ctx.sn, preset, 1))[0]?.id;
}

/**
 * The check-attendance an attendance upload answers: v3 names it (querydata cmdid), v2 rows arrive
 * as ordinary ATTLOG uploads while the query is outstanding [COMMANDS §4.17].
 */
async function checkAttendanceFor(ctx: HandlerContext, source: RecordSource | undefined, device: Device) {
  const id =
    source?.kind === 'query'
      ? Number(source.cmdId)
      : source?.table.toUpperCase() === 'ATTLOG'
        ? await outstanding(ctx, 'check-attendance', device)
        : undefined;
  if (id === undefined || !Number.isSafeInteger(id)) return undefined;
  const command = await ctx.store.commands.getById(id);
  if (command?.sn !== device.serial_number || command.command !== 'check-attendance' || command.status !== 'sent') return undefined;
  return { id, window: progressOf(command).keep_window };
}

/**
 * A device moved from another location still holds that location's users until their deletes
 * run: a load-users an integrator asked for does not list them (they are not this location's).
 * The sync-users audit (origin system) sees them all, so that it removes them.
 */
async function notOtherLocations<R extends { readonly pin: string }>(
  ctx: HandlerContext,
  device: Device | undefined,
  location: Location | undefined,
  cmdId: number,
  records: readonly R[],
): Promise<readonly R[]> {
  if (!device?.state?.movedAt || !location || records.length === 0) return records;
  if ((await ctx.store.commands.getById(cmdId))?.origin === 'system') return records;
  const others = new Set((await ctx.store.commands.syncedPinsElsewhere(ctx.sn, location.id)).map(String));
  return records.filter((r) => !others.has(String(Number(r.pin))));
}

export const punches: Handler<'attendance' | 'doorEvents' | 'accessRecords'> = async (ctx, state, event) => {
  const { device, location } = state;
  const punches: Punch[] =
    event.type === 'attendance'
      ? event.records.map(fromAttlog)
      : event.type === 'doorEvents'
        ? event.records.flatMap((r) => punchFromRtlog(r) ?? [])
        : event.records.flatMap((r) => punchFromAccess(r) ?? []);
  if (event.type === 'doorEvents' && device && location) {
    // Kept before the terminal is answered, with the outbox marker of their feed events (src/events/outbox.ts);
    // a re-sent line is stored and announced once.
    const feedEvent = randomUUID();
    const stored = await ctx.store.doorEvents.append(doorEventsFromRtlog(ctx.sn, location, event.records), nowIso(ctx), feedEvent);
    for (const e of stored) ctx.bus.emit('door.event', { ...doorEventBusPayload(e), feed_event: feedEvent });
  }
  if (punches.length > 0 && (!device || !location)) {
    // [PUSH-v2 §2.2] a non-200 makes the device keep the records and resend: nothing is lost while unassigned.
    return textReply(503, 'device not assigned');
  }
  if (!device || !location || punches.length === 0) {
    state.accepted += event.records.length;
    return undefined;
  }
  const answering = await checkAttendanceFor(ctx, event.type === 'doorEvents' ? undefined : event.source, device);
  const window = answering?.window;
  // [COMMANDS §4.17] v3 answers the whole table: keep only rows inside the window.
  const inWindow = window ? punches.filter((p) => inAttendanceWindow(p.time.replace('T', ' '), window)) : punches;
  // A device moved from another location: punches stamped before the move are the old
  // location's, never the new one's; acknowledged so the terminal does not resend them.
  const kept = afterMove(inWindow, device.state?.movedAt, location.timezone);
  const r = await recordPunches(ctx.store, ctx.bus, device, location, kept, nowIso(ctx));
  state.accepted += r.accepted + (punches.length - kept.length);
  if (answering) {
    await addProgress(ctx.results, answering.id, (p) => ({
      ...p,
      attendance: { received: (p.attendance?.received ?? 0) + kept.length, stored: (p.attendance?.stored ?? 0) + r.stored },
    }));
  }
  return undefined;
};

export const templates: Handler<'fingerprintTemplates' | 'faceTemplates' | 'fingerVeinTemplates' | 'bioTemplates'> = async (
  ctx,
  state,
  event,
) => {
  const { device, location } = state;
  if (!device || !location) return textReply(503, 'device not assigned');
  const items =
    event.type === 'fingerprintTemplates'
      ? event.records.map((t) => ({ kind: 'fingerprint' as const, t }))
      : event.type === 'faceTemplates'
        ? event.records.map((t) => ({ kind: 'face' as const, t }))
        : event.type === 'fingerVeinTemplates'
          ? event.records.map((t) => ({ kind: 'vein' as const, t }))
          : event.records.map((t) => ({ kind: 'bio' as const, t }));
  const r = await recordTemplates(ctx.store, device, location, items, nowIso(ctx));
  state.accepted += r.accepted + r.skipped;
  if (r.changedPins.length > 0) await ctx.onTemplatesChanged(location.id, r.changedPins, ctx.sn);
  return undefined;
};

/** Users a device reports are recorded for the load-users command that asked, never created [API-CONTRACT §5]. */
export const users: Handler<'users'> = async (ctx, state, event) => {
  const cmdId = event.source.kind === 'query' ? Number(event.source.cmdId) : await outstanding(ctx, 'load-users', state.device);
  if (cmdId !== undefined && Number.isSafeInteger(cmdId)) {
    const records = await notOtherLocations(ctx, state.device, state.location, cmdId, event.records);
    let dropped = 0;
    await addProgress(ctx.results, cmdId, (p) => {
      const merged = mergeUsers(p.users ?? [], records);
      dropped = merged.dropped;
      return { ...p, users: merged.users };
    });
    if (dropped > 0) {
      const suppressed = ctx.logBudget.take(ctx.clock.now().getTime());
      if (suppressed !== undefined)
        ctx.log.warn({ cmd_id: cmdId, dropped, suppressed, max: MAX_LOADED_USERS }, 'load-users: users beyond the cap dropped');
    }
  }
  state.accepted += event.records.length;
  return undefined;
};

/**
 * Access-table rows answering an access audit [PUSH-v3 §10.4] (`userauthorize` has no upload form): kept on
 * the audit's progress (its head: each table answers under its own line's id); an answer beyond
 * MAX_ACCESS_ROWS marks it overflowed and is compared with nothing. Counted once, by their raw records.
 */
export const accessRows: Handler<'userRights' | 'timezoneRows' | 'holidayRows'> = async (ctx, _state, event) => {
  const audit = await accessAuditOf(ctx, event.source);
  if (audit === undefined) return undefined;
  await addProgress(ctx.results, audit, (p) => {
    if (p.access_overflow === true) return p;
    const held = p.access ?? { rights: [], timezones: [], holidays: [] };
    const access =
      event.type === 'userRights'
        ? { ...held, rights: [...held.rights, ...event.records] }
        : event.type === 'timezoneRows'
          ? { ...held, timezones: [...(held.timezones ?? []), ...event.records] }
          : { ...held, holidays: [...(held.holidays ?? []), ...event.records] };
    const rows = access.rights.length + (access.timezones?.length ?? 0) + (access.holidays?.length ?? 0);
    const { access: _dropped, ...rest } = p;
    return rows > MAX_ACCESS_ROWS ? { ...rest, access_overflow: true } : { ...p, access };
  });
  return undefined;
};

const ACCESS_TABLES = new Set(['userauthorize', 'timezone', 'holiday']);

/** The access audit (its head command's id) an access-table query answer belongs to (sync/access-audit.ts), if it is one. */
async function accessAuditOf(ctx: HandlerContext, source: RecordSource): Promise<number | undefined> {
  if (source.kind !== 'query' || !ACCESS_TABLES.has(source.table.toLowerCase())) return undefined;
  const id = Number(source.cmdId);
  if (!Number.isSafeInteger(id)) return undefined;
  const line = await ctx.store.commands.getById(id);
  if (line?.origin !== 'system' || line.command !== ACCESS_AUDIT_COMMAND || line.sn !== ctx.sn) return undefined;
  return line.parent_id ?? line.id;
}

/**
 * Acknowledged, not stored (README "Device protocol"): operation logs, and the photos a terminal uploads of its
 * users (BioGate's user photos are the API's, sent to terminals; punch photos: ./photos.ts).
 */
export const notKept: Handler<'userPhotos' | 'bioPhotos' | 'operationLogs'> = (ctx, state, event) => {
  state.accepted += event.records.length;
  ctx.log.debug({ type: event.type, count: event.records.length }, 'upload acknowledged, not stored');
  return undefined;
};

/** An ERRORLOG flood is one summary line: the count and the first few, truncated, rate-limited. */
export const errorLogs: Handler<'errorLogs'> = (ctx, state, event) => {
  state.accepted += event.records.length;
  const suppressed = ctx.logBudget.take(ctx.clock.now().getTime());
  if (suppressed !== undefined) {
    const errors = event.records.slice(0, SAMPLES_PER_REQUEST).map((r) => truncateBytes(JSON.stringify(r)));
    ctx.log.warn({ count: event.records.length, errors, suppressed }, 'device reported errors');
  }
  return undefined;
};

export const unknownRecords: Handler<'unknownRecords'> = (ctx, state, event) => {
  state.accepted += event.lines.length;
  ctx.onUnknownTable(event.source.table);
  ctx.log.info({ table: event.source.table, lines: event.lines.length }, 'unknown record tags acknowledged');
  return undefined;
};

/**
 * Tables kept unparsed: stored raw per record, counted per record. An unassigned device's are
 * acknowledged and dropped (a 503 could stall a controller's registration, which sends
 * `DeviceAuthorize` this way [PUSH-v3 §7.4]).
 */
export const rawRecords: Handler<'rawRecords'> = async (ctx, state, event) => {
  state.accepted += event.records.length;
  if (event.unknown) ctx.onUnknownTable(event.source.table);
  // An access audit's answer is compared (accessRows), not kept: a daily read of every right would crowd the records.
  if ((await accessAuditOf(ctx, event.source)) !== undefined) return undefined;
  const { device, location } = state;
  if (!device || !location) {
    ctx.log.debug({ table: event.source.table, records: event.records.length }, 'records of an unassigned device acknowledged, not stored');
    return undefined;
  }
  const records = event.records.filter((r) => r.length <= MAX_RAW_RECORD_CHARS);
  if (records.length < event.records.length)
    ctx.log.warn({ table: event.source.table, dropped: event.records.length - records.length }, 'oversized raw records not stored');
  const source = event.source;
  await ctx.store.deviceRecords.append(
    {
      location_id: location.id,
      sn: ctx.sn,
      table: source.table,
      source: source.kind,
      cmd_id: source.kind === 'query' ? source.cmdId : null,
      records,
    },
    nowIso(ctx),
  );
  return undefined;
};

export const unknownTable: Handler<'unknownTable'> = (ctx, state, event) => {
  state.accepted += 1;
  ctx.onUnknownTable(event.source.table);
  ctx.log.info({ table: event.source.table, bytes: event.body.length }, 'unknown table acknowledged');
  return undefined;
};
