/**
 * The roster audit (issue #31 item 2): what a terminal holds, read from it, against what its location
 * says it should hold, and the difference repaired.
 *
 * Invariants:
 * - An audit is a `load-users` command of origin `system` (v2 `DATA QUERY USERINFO`, v3 `DATA QUERY
 *   tablename=user,fielddesc=*,filter=*` [PUSH-v2 §6.10, PUSH-v3 §10.4]); its answer is compared in
 *   `reconcile`, as is the answer of a `sync-users` command's own query.
 * - One audit per terminal is outstanding at a time, across nodes: started by compare-and-set on the
 *   terminal's record (`claimAudit`); a query that never answers frees the claim after STALE_MS.
 * - The comparison leaves alone every PIN with a line owed (pending or sent): that line settles it.
 *   Of the rest, a user held that the location does not want is deleted (one BioGate synced for another
 *   location as an op of no location, so neither location's commands show the other's PINs); a wanted
 *   user not held, or held with other data, is sent again.
 * - The wanted roster: the location's active users; on a terminal that cannot store an access window,
 *   only those inside it now [API-CONTRACT §6].
 * - Started once a terminal's first roster after its assignment is delivered (nothing owed, no audit since
 *   the assignment: what it held before BioGate, keypad enrolments, is found at once rather than an
 *   interval later), on schedule (BIOGATE_AUDIT_INTERVAL_S after the last one, or after assignment), when a v2
 *   heartbeat's user count disagrees with the wanted roster while nothing is owed [PUSH-v2 §7.1], and on
 *   demand (POST /api/devices/{sn}/audit).
 */
import { codecOfDevice, effectiveVersion, heldUserDiffers, type UserRecord } from '../../protocols/index.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import { BioGateError } from '../errors.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { Command, Device, DeviceBrief, Location, NewCommand, OwedCounts, TerminalSyncRecord } from '../store/ports/index.js';
import { profileOf } from '../devices/render.js';
import { phaseAt } from '../time/access-window.js';
import { SYNC_PRIORITY } from './lanes.js';
import type { SyncQueue } from './queue.js';
import { auditsRights, doorsDiffer, holidaysDiffer, staleRights, timezonesDiffer } from './access-audit.js';
import type { AccessTablesHeld } from '../devices/progress.js';
import type { TerminalState } from './terminal-state.js';

/** An audit query unanswered this long no longer holds the terminal's claim. */
const STALE_MS = 15 * 60_000;
/** An API request waits this long for the query of an audit another caller just claimed. */
const JOIN_WAIT_MS = 2_000;
const JOIN_POLL_MS = 50;
/** Below every sync op: the table is read once the lines owed before it were handed out. */
export const AUDIT_PRIORITY = SYNC_PRIORITY.audit;
/** A heartbeat count equal to the last one checked is checked again only after this long. */
const RECHECK_MS = 3_600_000;
/**
 * An audit whose query failed (its result lost, refused) goes again a quarter interval after it started, at most this
 * long: not an interval later (a day by default without an audit).
 */
const RETRY_MAX_MS = 15 * 60_000;
/** Terminals whose scheduled audit one run starts at most (the next run takes the rest). */
const PER_RUN = 500;
const PAGE = 5_000;

/**
 * Revocations on their way to a terminal defer its scheduled audit: a terminal reading out its table takes the
 * next line one poll later, and a revocation must not wait for an audit. Not for long (DEFER_MS since the oldest
 * line owed), and not for a refused line (an audit does not hold up what the terminal answered).
 */
const DEFER_MS = 10 * 60_000;
const revoking = (o: OwedCounts | undefined, deferBefore: string): boolean =>
  o !== undefined && o.revocations > 0 && o.refused === 0 && o.oldest !== null && o.oldest >= deferBefore;

/** The latest of some ISO instants (they order as strings); null when none is given. */
const latest = (times: readonly (string | null | undefined)[]): string | null =>
  times.filter((t): t is string => typeof t === 'string').reduce<string | null>((a, b) => (a === null || b > a ? b : a), null);

export type AuditTrigger = 'initial' | 'schedule' | 'count' | 'api';

export interface AuditDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly log: Logger;
  readonly sync: SyncQueue;
  readonly terminals: TerminalState;
  readonly intervalS: number;
  /** Scheduled (and initial) audits outstanding at once, deployment-wide (BIOGATE_AUDIT_MAX_OUTSTANDING). */
  readonly maxOutstanding: number;
  /** Creates and announces a command, its event owed by the outbox (devices/lifecycle.ts `create`). */
  readonly create: (input: NewCommand, at: string) => Promise<Command>;
  /** Counts an audit started, and each repair it queued. */
  readonly onAudit?: (trigger: AuditTrigger) => void;
  readonly onRepair?: (kind: 'extra' | 'missing' | 'stale' | 'rights' | 'timezones' | 'holidays' | 'doors', n: number) => void;
}

/** What a v2 heartbeat reports of the terminal's tables [PUSH-v2 §7.1]. */
export interface ReportedCounts {
  readonly users: number | null;
}

export function createAudit(deps: AuditDeps) {
  const { store, clock, log, sync } = deps;
  /**
   * The last user count checked per terminal, and when: a count seen again is not checked again soon.
   * Entries older than RECHECK_MS decide nothing; they are dropped whenever the map has grown by
   * its own size since the last drop, so it holds about the terminals heard from in an hour.
   */
  const checked = new Map<string, { users: number; at: number }>();
  let dropAt = 1_024;
  const remember = (sn: string, users: number, nowMs: number): void => {
    checked.set(sn, { users, at: nowMs });
    if (checked.size < dropAt) return;
    for (const [key, entry] of checked) if (nowMs - entry.at >= RECHECK_MS) checked.delete(key);
    dropAt = Math.max(1_024, checked.size * 2);
  };

  async function wantedPins(location: Location, device: Device): Promise<Set<number>> {
    const active = new Set(await store.users.activePins(location.id, device.area_id));
    if (codecOfDevice(device).storesUserWindow) return active;
    const now = clock.now().getTime();
    for (const u of await store.users.withAccessWindow(location.id))
      if (phaseAt(u, location.timezone, now) !== 'inside') active.delete(u.pin);
    return active;
  }

  async function owedPins(sn: string): Promise<Set<number>> {
    const owed = new Set<number>();
    for (const op of ['user.upsert', 'user.delete'] as const) {
      for (let offset = 0; ; offset += PAGE) {
        const page = await store.terminalSync.owedPins(sn, op, { offset, limit: PAGE });
        for (const p of page.items) owed.add(p.pin);
        if (page.items.length < PAGE) break;
      }
    }
    return owed;
  }

  /** Queues the query of an audit unless one is outstanding; the command, or undefined when not started. */
  async function start(device: Pick<Device, 'serial_number' | 'location_id'>, trigger: AuditTrigger): Promise<Command | undefined> {
    const locationId = device.location_id;
    if (locationId === null) return undefined;
    const sn = device.serial_number;
    const now = clock.now();
    const claimed = await store.terminalSync.claimAudit(
      sn,
      locationId,
      new Date(now.getTime() - STALE_MS).toISOString(),
      now.toISOString(),
    );
    if (!claimed) {
      const [record] = await store.terminalSync.get([sn]);
      const commandId = record?.audit_command_id ?? null;
      const outstanding = commandId === null ? undefined : await store.commands.getById(commandId);
      if (outstanding && (outstanding.status === 'pending' || outstanding.status === 'sent')) return outstanding;
      // Still being created by whoever claimed it a moment ago: that one goes ahead (see `request`).
      if (commandId === null) return undefined;
      // The claimed query ended without an answer to compare (failed: its result lost, cancelled,
      // expired; or pruned): claimed anew by compare-and-set on that query (of several nodes one wins).
      if (!(await store.terminalSync.reclaimAudit(sn, commandId, now.toISOString()))) return undefined;
    }
    const command = await deps.create(
      {
        location_id: locationId,
        sn,
        command: 'load-users',
        params: { user_id: null, pin: null },
        priority: AUDIT_PRIORITY,
        origin: 'system',
        expires_at: new Date(now.getTime() + Math.max(deps.intervalS * 1000, STALE_MS)).toISOString(),
      },
      now.toISOString(),
    );
    await store.terminalSync.auditCommand(sn, command.id);
    deps.bus.emit('mailbox.changed', { location_id: locationId, sn });
    deps.onAudit?.(trigger);
    log.info({ sn, id: command.id, trigger }, 'audit: reading the terminal user table');
    return command;
  }

  /**
   * Compares the users a terminal reported (an audit's or a sync-users command's query) with what it
   * should hold, and queues the repairs (`groupId`: the sync-users command they then belong to).
   */
  async function reconcile(locationId: number, sn: string, held: readonly UserRecord[], groupId: number | null): Promise<void> {
    const device = await store.devices.getBySerial(sn);
    const location = await store.locations.get(locationId);
    if (!device || !location || device.location_id !== locationId) return;
    const [wanted, owed, elsewhere] = await Promise.all([
      wantedPins(location, device),
      owedPins(sn),
      store.commands.syncedPinsElsewhere(sn, locationId, true).then((pins) => new Set(pins)),
    ]);
    const heldByPin = new Map<number, UserRecord>();
    for (const u of held) if (/^\d{1,8}$/.test(u.pin) && Number(u.pin) > 0) heldByPin.set(Number(u.pin), u);
    const settled = (pin: number) => !owed.has(pin);
    const extra = [...heldByPin.keys()].filter((pin) => !wanted.has(pin) && settled(pin));
    const missing = [...wanted].filter((pin) => !heldByPin.has(pin) && settled(pin));
    const both = [...wanted].filter((pin) => heldByPin.has(pin) && settled(pin));
    const profile = profileOf(device, effectiveVersion(device));
    const stale: number[] = [];
    for (let i = 0; i < both.length; i += PAGE) {
      for (const user of await store.users.getMany(locationId, both.slice(i, i + PAGE))) {
        const record = heldByPin.get(user.pin);
        const wantedUser = {
          pin: user.pin,
          firstName: user.first_name,
          lastName: user.last_name,
          cardNo: user.card_no,
          privilege: user.privilege,
        };
        if (record && heldUserDiffers(record, wantedUser, profile).length > 0) stale.push(user.pin);
      }
    }
    const theirs = extra.filter((pin) => elsewhere.has(pin));
    const ours = extra.filter((pin) => !elsewhere.has(pin));
    const group = { groupId };
    await sync.deleteUnowned(locationId, sn, theirs);
    await sync.queueTo(locationId, sn, ours, 'user.delete', group);
    await sync.queueTo(locationId, sn, [...missing, ...stale], 'user.upsert', group);
    await store.terminalSync.audited(sn, clock.now().toISOString());
    deps.terminals.audited(sn);
    // An audit's access tables follow its roster: read once the repairs above were handed out (access-audit.ts).
    // A sync-users command's own query (groupId) is not an audit: it ends with its group.
    if (groupId === null && auditsRights(device)) await sync.queueAccessAudit(locationId, sn);
    if (extra.length > 0) deps.onRepair?.('extra', extra.length);
    if (missing.length > 0) deps.onRepair?.('missing', missing.length);
    if (stale.length > 0) deps.onRepair?.('stale', stale.length);
    const repairs = { held: heldByPin.size, extra: extra.length, missing: missing.length, stale: stale.length };
    if (extra.length + missing.length + stale.length > 0)
      log.info({ sn, ...repairs }, 'audit: the terminal differs from its roster; repairs queued');
    else log.debug({ sn, ...repairs }, 'audit: the terminal holds its roster');
  }

  /**
   * An access audit's answer: users whose `userauthorize` rows differ from their levels' are sent again,
   * and a `timezone` or `holiday` table that differs from the location's is sent again whole.
   */
  async function reconcileAccess(locationId: number, sn: string, held: AccessTablesHeld): Promise<void> {
    const device = await store.devices.getBySerial(sn);
    const location = await store.locations.get(locationId);
    if (!device || !location || device.location_id !== locationId) return;
    const [wanted, owed] = await Promise.all([wantedPins(location, device), owedPins(sn)]);
    const stale = await staleRights(
      store,
      location,
      device,
      [...wanted].filter((pin) => !owed.has(pin)),
      held.rights,
    );
    await sync.queueTo(locationId, sn, stale, 'user.upsert');
    const timezones = held.timezones !== undefined && (await timezonesDiffer(store, location, held.timezones));
    const holidays = held.holidays !== undefined && (await holidaysDiffer(store, location, held.holidays));
    const doors = held.doorOptions === undefined ? [] : doorsDiffer(device, location, held.doorOptions);
    if (timezones) await sync.queueTimezones(locationId, sn);
    if (holidays) await sync.queueHolidays(locationId, sn);
    for (const door of doors) await sync.queueDoor(locationId, sn, door);
    const found = { rights: stale.length, timezones: timezones ? 1 : 0, holidays: holidays ? 1 : 0, doors: doors.length };
    for (const [kind, n] of Object.entries(found)) if (n > 0) deps.onRepair?.(kind as keyof typeof found, n);
    if (stale.length > 0 || timezones || holidays || doors.length > 0)
      log.info({ sn, ...found }, 'audit: the access tables differ from the location; repairs queued');
    else log.debug({ sn, rows: held.rights.length }, 'audit: the terminal holds the access tables of its location');
  }

  /**
   * An audit on request (the API): started now, or the one outstanding. A caller that claimed it a
   * moment ago may still be creating its query: its command is waited for up to JOIN_WAIT_MS.
   * @throws AUDIT_STARTING when none appeared by then (its claimer died mid-way; free after STALE_MS)
   */
  async function request(device: Device): Promise<Command | undefined> {
    if (device.location_id === null) return undefined;
    const deadline = Date.now() + JOIN_WAIT_MS;
    for (;;) {
      const command = await start(device, 'api');
      if (command) return command;
      if (Date.now() >= deadline)
        throw new BioGateError('AUDIT_STARTING', `An audit of ${device.serial_number} is being started: retry shortly`);
      await sleep(JOIN_POLL_MS);
    }
  }

  /** A v2 heartbeat's counts: an audit when the user count disagrees with the roster and nothing is owed. */
  async function onCounts(device: Device, counts: ReportedCounts): Promise<void> {
    const users = counts.users;
    const locationId = device.location_id;
    if (users === null || locationId === null) return;
    const sn = device.serial_number;
    const nowMs = clock.now().getTime();
    const last = checked.get(sn);
    if (last && last.users === users && nowMs - last.at < RECHECK_MS) return;
    // Lines owed: the count is on its way to change; compared (and remembered) once nothing is owed.
    const owed = (await store.terminalSync.owed([sn])).get(sn);
    if (owed && owed.owed > 0) return;
    remember(sn, users, nowMs);
    const location = await store.locations.get(locationId);
    if (!location) return;
    const wanted = (await wantedPins(location, device)).size;
    if (wanted === users) return;
    log.info({ sn, reported: users, wanted }, 'audit: the heartbeat user count disagrees with the roster');
    await start(device, 'count');
  }

  /**
   * Of the audits started and not yet compared, not stale: how many are outstanding (their query has not ended), and
   * the terminals whose query ended without an answer compared (failed: its result lost, refused, cancelled, expired)
   * started before `retryBefore`. A query that ended holds no place: the next start claims the terminal again.
   */
  async function unfinished(records: Iterable<TerminalSyncRecord>, staleBefore: string, retryBefore: string) {
    let outstanding = 0;
    const retry = new Set<string>();
    for (const r of records) {
      if (r.audit_started_at === null || r.audit_started_at < staleBefore) continue;
      if (r.last_audit_at !== null && r.last_audit_at >= r.audit_started_at) continue;
      const query = r.audit_command_id === null ? undefined : await store.commands.getById(r.audit_command_id);
      if (query?.status === 'failed') {
        if (r.audit_started_at < retryBefore) retry.add(r.sn);
      } else if (query?.status !== 'success') outstanding++;
    }
    return { outstanding, retry };
  }

  /**
   * The scheduled audits: terminals whose last audit (or assignment) is an interval old, whose audit query failed a
   * quarter interval ago (RETRY_MAX_MS at most), and terminals not audited since their assignment once nothing is
   * owed to them (their first roster delivered).
   * At most `maxOutstanding` of them are outstanding at once across the deployment (the job is a
   * singleton): an audit reads a whole user table, and a thousand terminals assigned together must not
   * read theirs at once ahead of the revocations and roster lines the store and the gateway owe. The places go
   * to the terminals audited (or assigned) longest ago first. A scheduled audit waits while revocations are on
   * their way to the terminal (`revoking`).
   */
  async function runSchedule(): Promise<number> {
    const now = clock.now().getTime();
    const dueBefore = new Date(now - deps.intervalS * 1000).toISOString();
    const staleBefore = new Date(now - STALE_MS).toISOString();
    const deferBefore = new Date(now - DEFER_MS).toISOString();
    const retryBefore = new Date(now - Math.min((deps.intervalS * 1000) / 4, RETRY_MAX_MS)).toISOString();
    const candidates: { device: DeviceBrief; trigger: AuditTrigger; since: string }[] = [];
    let outstanding = 0;
    for (const location of await store.locations.list()) {
      if (!location.is_active) continue;
      const devices = (await store.devices.listAssignedBrief(location.id)).filter((d) => d.last_seen !== null);
      const records = new Map((await store.terminalSync.get(devices.map((d) => d.serial_number))).map((r) => [r.sn, r]));
      const ended = await unfinished(records.values(), staleBefore, retryBefore);
      outstanding += ended.outstanding;
      const audited = (d: DeviceBrief) => {
        const record = records.get(d.serial_number);
        return latest([record?.last_audit_at, record?.audit_started_at]);
      };
      const unaudited = new Set(
        devices.filter((d) => {
          const at = audited(d);
          return d.assigned_at !== null && (at === null || at < d.assigned_at);
        }),
      );
      const due = new Set(
        devices.filter((d) => {
          const last = latest([audited(d), d.assigned_at]);
          return last === null || last < dueBefore || ended.retry.has(d.serial_number);
        }),
      );
      const asked = devices.filter((d) => unaudited.has(d) || due.has(d)).map((d) => d.serial_number);
      const owed = asked.length > 0 ? await store.terminalSync.owed(asked) : new Map<string, OwedCounts>();
      for (const d of devices) {
        const o = owed.get(d.serial_number);
        const since = latest([audited(d), d.assigned_at]) ?? '';
        if (due.has(d) && !revoking(o, deferBefore)) candidates.push({ device: d, trigger: 'schedule', since });
        else if (!due.has(d) && unaudited.has(d) && (o?.owed ?? 0) === 0) candidates.push({ device: d, trigger: 'initial', since });
      }
    }
    // Longest unaudited first, across locations: under the cap a fixed order would audit the first terminals
    // listed again and again while the last ones are never reached.
    candidates.sort((a, b) => (a.since < b.since ? -1 : a.since > b.since ? 1 : 0));
    let started = 0;
    for (const { device, trigger } of candidates) {
      if (started >= PER_RUN || outstanding + started >= deps.maxOutstanding) break;
      if (await start(device, trigger)) started++;
    }
    return started;
  }

  return {
    start,
    request,
    reconcile,
    reconcileAccess,
    onCounts,
    /** The scheduled audits as a singleton job (one node runs it at a time). */
    job: { name: 'sync-audit', everyMs: Math.min(Math.max((deps.intervalS * 1000) / 4, 2_500), 60_000), run: runSchedule },
    /** How many terminals' counts are remembered (tests: the map stays bounded). */
    remembered: (): number => checked.size,
  };
}

export type Audit = ReturnType<typeof createAudit>;
