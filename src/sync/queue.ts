/**
 * Turns user changes into per-device sync ops, in batches and coalesced
 * (DESIGN.md "Sync"). An op names what to do, not the wire text: the device
 * runtime renders it at dispatch time from the user's current data.
 */
import { codecOfDevice } from '../../protocols/index.js';
import type { Clock } from '../clock.js';
import type { EventBus } from '../events/bus.js';
import type { Store } from '../store/types.js';
import { holdsUser, type Device, type NewCommand } from '../store/ports/index.js';
import { crossedEdge, phaseAt } from '../time/access-window.js';
import { enqueueAnnounced } from './enqueue.js';
import { isRevocation, priorityOf, SYNC_EXPIRY_S, SYNC_PRIORITY, syncKeyOf, type SyncOp } from './lanes.js';
import { DOOR_SETTINGS_COMMAND, HOLIDAY_SYNC_COMMAND, ACCESS_AUDIT_COMMAND, TIMEZONE_SYNC_COMMAND } from '../devices/render.js';

export interface QueueUsersOptions {
  /** Leave this device out (the one a template came from). */
  readonly exceptSn?: string;
  /** Only devices this accepts. */
  readonly only?: (device: Device) => boolean;
  /** Only the (device, PIN) pairs this accepts (areas, issue #33: a user reaches the terminals that hold it). */
  readonly pairs?: (device: Device, pin: number) => boolean;
  /** Only the terminals that hold each user (holdsUser; read here): a template's upsert, say. */
  readonly heldOnly?: boolean;
}

export interface SyncQueue {
  /** Queues `op` for each pin on every assigned device of the location; returns the counts. */
  queueUsers(
    locationId: number,
    pins: readonly number[],
    op: 'user.upsert' | 'user.delete',
    options?: QueueUsersOptions,
  ): Promise<SyncCounts>;
  /** Queues the roster the device holds (the location's active users, of its area if it has one) for it (sync-users; its ops join the composite's group). */
  queueRoster(locationId: number, sn: string, options?: GroupOption): Promise<SyncCounts>;
  /**
   * A device newly assigned to the location [API-CONTRACT §6]: users BioGate synced to it for another
   * location are deleted from it first, then the location's roster follows.
   */
  queueAssignment(locationId: number, sn: string): Promise<SyncCounts>;
  /**
   * A terminal moved from area `from` to area `to` (null: no area, every active user) [issue #33]: the
   * users only the old roster holds are deleted from it, then those only the new one holds are sent.
   */
  queueAreaMove(locationId: number, sn: string, from: number | null, to: number | null): Promise<SyncCounts>;
  /**
   * The location's holidays to its terminals that store the access tables (all, or `sn` alone): one
   * pending `holiday-sync` per terminal, rendered from the holidays at dispatch (issue #33 item 3).
   */
  queueHolidays(locationId: number, sn?: string): Promise<SyncCounts>;
  /**
   * The location's schedules to its terminals that store the access tables (all, or `sn` alone): one pending
   * `timezone-sync` per terminal, rendered from the schedules at dispatch (issue #33 item 2).
   */
  queueTimezones(locationId: number, sn?: string): Promise<SyncCounts>;
  /** One door's settings to the terminal: one pending `door-settings` per door, rendered from the device at dispatch. */
  queueDoor(locationId: number, sn: string, door: number): Promise<SyncCounts>;
  /**
   * The location's tables a terminal stores besides its roster (holidays, its doors' settings), when it
   * is assigned or is first known to store them (a terminal assigned before it ever registered as v3).
   */
  queueAccessTables(locationId: number, sn: string): Promise<SyncCounts>;
  /** A read of the terminal's `userauthorize` table (sync/access-audit.ts): one pending per terminal, below every sync op. */
  queueAccessAudit(locationId: number, sn: string): Promise<SyncCounts>;
  /** A user's template slot removed (issue #35 item 5): `template.delete` to the terminals holding the user, keyed by slot. */
  queueTemplateDelete(locationId: number, pin: number, type: number, no: number): Promise<SyncCounts>;
  /** A user's photo removed (issue #35 item 4): `photo.delete` to the terminals holding the user. */
  queuePhotoDelete(locationId: number, pin: number): Promise<SyncCounts>;
  /** Queues `op` for these PINs on one device of the location (an audit's repairs). */
  queueTo(
    locationId: number,
    sn: string,
    pins: readonly number[],
    op: 'user.upsert' | 'user.delete',
    options?: GroupOption,
  ): Promise<SyncCounts>;
  /**
   * Deletes users of another location from one device of this one as ops of no location (as a move's
   * deletes, without holding anything back): neither location's commands show the other's PINs.
   */
  deleteUnowned(locationId: number, sn: string, pins: readonly number[]): Promise<SyncCounts>;
  /**
   * v2 access windows [API-CONTRACT §6]: users whose start_time or end_time fell in (since, until]
   * are synced again to the location's devices that cannot hold the window, where rendering adds or
   * removes them by the window (render.ts).
   */
  sweepAccessWindows(since: Date, until: Date): Promise<SyncCounts>;
}

/** A template's slot on the wire: biometric type and number [COMMANDS §3.9]. */
interface TemplateSlot {
  readonly type: number;
  readonly no: number;
}

export interface GroupOption {
  /** The composite command (sync-users) these ops belong to: it is done when they are. */
  readonly groupId?: number | null;
}

export interface SyncCounts {
  readonly devices: number;
  /** Ops created or refreshed (a coalesced op counts once). */
  readonly commands: number;
}

const BATCH = 2_000;

export function createSyncQueue(store: Store, clock: Clock, bus: EventBus): SyncQueue {
  const opFor = (
    locationId: number,
    sn: string,
    pin: number,
    op: SyncOp,
    expires_at: string,
    group_id: number | null = null,
    slot?: TemplateSlot,
  ): NewCommand => ({
    location_id: locationId,
    sn,
    command: 'sync-users',
    params: { op, pin, ...slot },
    priority: priorityOf(op),
    origin: 'sync',
    // Issue #31: only upserts expire by age; a revocation is owed until confirmed or the device is unassigned.
    expires_at: isRevocation(op) ? null : expires_at,
    sync_key: syncKeyOf(op, pin, slot),
    group_id,
  });

  /** A delete of a moved device's previous users: no location, a key of its own (never merged with this location's ops). */
  const moveDelete = (sn: string, pin: number, expires_at: string): NewCommand => ({
    location_id: null,
    sn,
    command: 'sync-users',
    params: { op: 'user.delete', pin },
    priority: SYNC_PRIORITY.moved,
    origin: 'sync',
    expires_at,
    sync_key: `moved:${pin}`,
  });

  async function enqueue(ops: NewCommand[]): Promise<number> {
    let total = 0;
    const now = clock.now().toISOString();
    for (let i = 0; i < ops.length; i += BATCH) {
      // Each new op is a command record: announced once, like every transition (devices/lifecycle.ts).
      const { created, replaced } = await enqueueAnnounced({ store, bus }, ops.slice(i, i + BATCH), now);
      total += created + replaced;
    }
    return total;
  }

  const expiry = () => new Date(clock.now().getTime() + SYNC_EXPIRY_S * 1000).toISOString();
  const wake = (locationId: number, sns: readonly string[]) => {
    for (const sn of sns) bus.emit('mailbox.changed', { location_id: locationId, sn });
  };

  async function queueUsers(
    locationId: number,
    pins: readonly number[],
    op: SyncOp,
    options: QueueUsersOptions & { readonly slot?: TemplateSlot } = {},
  ): Promise<SyncCounts> {
    const devices = (await store.devices.listAssigned(locationId)).filter(
      (d) => d.serial_number !== options.exceptSn && (options.only?.(d) ?? true),
    );
    if (devices.length === 0 || pins.length === 0) return { devices: devices.length, commands: 0 };
    const expires = expiry();
    const ops: NewCommand[] = [];
    const reached = new Set<string>();
    const users = options.heldOnly ? new Map((await store.users.getMany(locationId, pins)).map((u) => [u.pin, u])) : undefined;
    const held = (d: Device, pin: number) => {
      const user = users?.get(pin);
      return user !== undefined && holdsUser(d, user);
    };
    for (const d of devices)
      for (const pin of pins) {
        if (options.pairs && !options.pairs(d, pin)) continue;
        if (users && !held(d, pin)) continue;
        ops.push(opFor(locationId, d.serial_number, pin, op, expires, null, options.slot));
        reached.add(d.serial_number);
      }
    const commands = await enqueue(ops);
    wake(locationId, [...reached]);
    return { devices: options.pairs || users ? reached.size : devices.length, commands };
  }

  async function queueRoster(locationId: number, sn: string, options: GroupOption = {}): Promise<SyncCounts> {
    // A terminal in an area holds that area's users only [issue #33].
    const pins = await store.users.activePins(locationId, (await store.devices.getBySerial(sn))?.area_id ?? null);
    const expires = expiry();
    const commands = await enqueue(pins.map((pin) => opFor(locationId, sn, pin, 'user.upsert', expires, options.groupId)));
    if (commands > 0) wake(locationId, [sn]);
    return { devices: 1, commands };
  }

  async function queueTo(
    locationId: number,
    sn: string,
    pins: readonly number[],
    op: 'user.upsert' | 'user.delete',
    groupId: number | null = null,
  ): Promise<number> {
    const expires = expiry();
    const commands = await enqueue(pins.map((pin) => opFor(locationId, sn, pin, op, expires, groupId)));
    if (commands > 0) wake(locationId, [sn]);
    return commands;
  }

  /**
   * A device moved here holds users BioGate synced to it for another location: they are deleted from
   * it in a group of their own, with no location (neither location's commands, feed or webhooks show
   * the other's PINs), above every lane. The device records the group (`moveGroup`) before anything
   * of the new location is queued, and its delivery hands out nothing else while the group is
   * outstanding (devices/delivery.ts). `movedAt`: reports from before the move are not the new
   * location's (attendance, actor.ts). A first assignment writes nothing.
   */
  async function queueMoveDeletes(locationId: number, sn: string, pins: readonly number[]): Promise<number> {
    const device = await store.devices.getBySerial(sn);
    if (!device || device.location_id !== locationId) return 0;
    if (pins.length === 0 && device.state?.movedAt === undefined && device.state?.moveGroup === undefined) return 0;
    const now = clock.now().toISOString();
    const expires = expiry();
    const group =
      pins.length === 0
        ? undefined
        : await store.commands.create(
            { ...moveDelete(sn, 0, expires), params: { op: 'user.delete', pins: pins.length }, sync_key: null, composite: true },
            now,
          );
    const { movedAt: _previous, moveGroup: _group, ...state } = device.state ?? {};
    const moved = group ? { movedAt: device.assigned_at ?? now, moveGroup: group.id } : {};
    await store.devices.updateSession(sn, { state: { ...state, ...moved } }, now);
    if (!group) return 0;
    const { created, replaced } = await store.commands.enqueueSync(
      pins.map((pin) => ({ ...moveDelete(sn, pin, expires), group_id: group.id })),
      clock.now().toISOString(),
    );
    wake(locationId, [sn]);
    return created + replaced;
  }

  /** System commands of the access tables, one pending per terminal and key (a newer one replaces it). */
  async function queueSystem(
    locationId: number,
    devices: readonly Device[],
    command: string,
    params: Record<string, unknown> | null,
    syncKey: string,
    priority: number = SYNC_PRIORITY.time,
  ): Promise<SyncCounts> {
    if (devices.length === 0) return { devices: 0, commands: 0 };
    const expires_at = expiry();
    const commands = await enqueue(
      devices.map((d) => ({
        location_id: locationId,
        sn: d.serial_number,
        command,
        params,
        priority,
        origin: 'system' as const,
        expires_at,
        sync_key: syncKey,
      })),
    );
    wake(
      locationId,
      devices.map((d) => d.serial_number),
    );
    return { devices: devices.length, commands };
  }

  /** Assigned terminals of the location (all, or `sn` alone: one read) that store the access tables. */
  async function tableHolders(locationId: number, sn?: string): Promise<Device[]> {
    const devices = sn === undefined ? await store.devices.listAssigned(locationId) : [await store.devices.get(locationId, sn)];
    return devices.filter((d): d is Device => d !== undefined && codecOfDevice(d).storesAccessTables);
  }

  const holidaySync = (locationId: number, devices: readonly Device[]) =>
    queueSystem(locationId, devices, HOLIDAY_SYNC_COMMAND, null, 'system:holiday-sync');
  const timezoneSync = (locationId: number, devices: readonly Device[]) =>
    queueSystem(locationId, devices, TIMEZONE_SYNC_COMMAND, null, 'system:timezone-sync');

  async function doorSettings(locationId: number, device: Device, doors?: readonly number[]): Promise<SyncCounts> {
    let commands = 0;
    for (const door of doors ?? Object.keys(device.doors).map(Number))
      commands += (await queueSystem(locationId, [device], DOOR_SETTINGS_COMMAND, { door }, `system:door:${door}`)).commands;
    return { devices: 1, commands };
  }

  async function queueAccessTables(locationId: number, sn: string): Promise<SyncCounts> {
    const [device] = await tableHolders(locationId, sn);
    if (!device) return { devices: 0, commands: 0 };
    // Schedule 1 ("Always") is the terminal's own default: the table is sent once the location has others.
    const timezones = (await store.schedules.list(locationId)).length > 0 ? await timezoneSync(locationId, [device]) : { commands: 0 };
    const holidays = (await store.holidays.list(locationId)).length > 0 ? await holidaySync(locationId, [device]) : { commands: 0 };
    const doors = await doorSettings(locationId, device);
    return { devices: 1, commands: timezones.commands + holidays.commands + doors.commands };
  }

  return {
    queueRoster,
    queueHolidays: async (locationId, sn) => holidaySync(locationId, await tableHolders(locationId, sn)),
    queueTimezones: async (locationId, sn) => timezoneSync(locationId, await tableHolders(locationId, sn)),
    async queueDoor(locationId, sn, door) {
      const device = await store.devices.get(locationId, sn);
      return device ? doorSettings(locationId, device, [door]) : { devices: 0, commands: 0 };
    },
    queueAccessTables,
    async queueAccessAudit(locationId, sn) {
      const device = await store.devices.get(locationId, sn);
      return queueSystem(locationId, device ? [device] : [], ACCESS_AUDIT_COMMAND, null, 'system:access-audit', SYNC_PRIORITY.audit);
    },
    async queueAreaMove(locationId, sn, from, to) {
      if (from === to) return { devices: 1, commands: 0 };
      const before = new Set(await store.users.activePins(locationId, from));
      const after = await store.users.activePins(locationId, to);
      const now = new Set(after);
      const deleted = await queueTo(
        locationId,
        sn,
        [...before].filter((p) => !now.has(p)),
        'user.delete',
      );
      const added = await queueTo(
        locationId,
        sn,
        after.filter((p) => !before.has(p)),
        'user.upsert',
      );
      return { devices: 1, commands: deleted + added };
    },
    async queueAssignment(locationId, sn) {
      // Deletes first, confirmed before anything of this location leaves; a PIN both locations use is
      // deleted, then sent again with this location's data.
      const deleted = await queueMoveDeletes(locationId, sn, await store.commands.syncedPinsElsewhere(sn, locationId));
      const roster = await queueRoster(locationId, sn);
      // A terminal known to store the access tables gets them now; one not yet known gets them when it registers (devices/hub.ts).
      const tables = await queueAccessTables(locationId, sn);
      return { devices: 1, commands: deleted + roster.commands + tables.commands };
    },
    async sweepAccessWindows(since, until) {
      let devices = 0;
      let commands = 0;
      for (const location of await store.locations.list()) {
        if (!location.is_active) continue;
        const crossed = (await store.users.withAccessWindow(location.id)).filter((u) =>
          crossedEdge(u, location.timezone, since.getTime(), until.getTime()),
        );
        if (crossed.length === 0) continue;
        // A window that ended (or has not begun) is a revocation: it goes first and never expires.
        const outside = (u: (typeof crossed)[number]) => phaseAt(u, location.timezone, until.getTime()) !== 'inside';
        let reached = 0;
        for (const [op, users] of [
          ['user.delete', crossed.filter(outside)],
          ['user.upsert', crossed.filter((u) => !outside(u))],
        ] as const) {
          if (users.length === 0) continue;
          const r = await queueUsers(
            location.id,
            users.map((u) => u.pin),
            op,
            { only: (d) => !codecOfDevice(d).storesUserWindow, heldOnly: op === 'user.upsert' },
          );
          reached = Math.max(reached, r.devices);
          commands += r.commands;
        }
        devices += reached;
      }
      return { devices, commands };
    },
    queueUsers,
    queueTemplateDelete: (locationId, pin, type, no) =>
      queueUsers(locationId, [pin], 'template.delete', { heldOnly: true, slot: { type, no } }),
    queuePhotoDelete: (locationId, pin) => queueUsers(locationId, [pin], 'photo.delete', { heldOnly: true }),
    async queueTo(locationId, sn, pins, op, options = {}) {
      return { devices: 1, commands: await queueTo(locationId, sn, pins, op, options.groupId ?? null) };
    },
    async deleteUnowned(locationId, sn, pins) {
      if (pins.length === 0) return { devices: 1, commands: 0 };
      const expires = expiry();
      const { created, replaced } = await store.commands.enqueueSync(
        pins.map((pin) => moveDelete(sn, pin, expires)),
        clock.now().toISOString(),
      );
      wake(locationId, [sn]);
      return { devices: 1, commands: created + replaced };
    },
  };
}
