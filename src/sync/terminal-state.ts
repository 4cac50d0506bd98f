/**
 * Per-terminal roster state (issue #31): what each terminal still owes to be what its location says,
 * derived from the store every time it is asked (owed sync ops, refusals, confirmations: two nodes
 * share one store, nothing lives only in memory), and announced as `device.sync` when it changes.
 * A change is stored by compare-and-set with the outbox marker of its event (src/events/outbox.ts),
 * cleared once the feed stored the event; a crash or an outage in between leaves it to the sweep job.
 *
 * State of a terminal:
 * - `unknown`: not assigned, or it never connected (what it holds is not known);
 * - `drift`: an owed line was refused by the terminal (negative return code); retried with back-off;
 * - `syncing`: lines owed (pending, or sent and unconfirmed);
 * - `in_sync`: nothing owed.
 *
 * The store port is ../store/ports/terminal-sync.ts; the audit (issue #31 item 2) adds `last_audit_at`.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { EventBus } from '../events/bus.js';
import { newMarker, SWEEP_AGE_MS, SWEEP_EVERY_MS } from '../events/outbox.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { Command, Device, DeviceBrief, OwedCounts, TerminalSyncRecord, TerminalSyncState, Window } from '../store/ports/index.js';
import { owedPinView, SYNC_STATES, type SyncViewData } from '../views/device-sync.js';

/** A state refresh of one terminal waits this long for more changes (a reply's 50 results are one refresh). */
const REFRESH_MS = 250;
/** Terminals read per sweep round. */
const SWEEP_PAGE = 500;

export interface TerminalStateDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly log: Logger;
  /** A revocation confirmed by the terminal: seconds from the change accepted (op created) to the confirmation. */
  readonly onRevocationConfirmed?: (seconds: number) => void;
}

export interface SyncDetail extends SyncViewData {
  readonly missing: { items: ReturnType<typeof owedPinView>[]; total: number };
  readonly extra: { items: ReturnType<typeof owedPinView>[]; total: number };
  readonly refused_pins: { items: ReturnType<typeof owedPinView>[]; total: number };
}

export interface SyncSummary {
  readonly devices: number;
  readonly in_sync: number;
  readonly syncing: number;
  readonly drift: number;
  readonly unknown: number;
  readonly revocations_owed: number;
  readonly oldest_owed_at: string | null;
}

const NONE: OwedCounts = { owed: 0, revocations: 0, refused: 0, oldest: null };

/** Sync ops of the `sync-users` lanes (not time-sync, not the composite API record). */
const isUserOp = (c: Command) => c.origin === 'sync' && c.command === 'sync-users' && c.parent_id === null;
const pinOf = (c: Command) => Number(c.params?.['pin']);

export function createTerminalState(deps: TerminalStateDeps) {
  const { store, clock, bus, log } = deps;
  const due = new Map<string, NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  let stopped = false;
  /** Terminals whose next refresh announces their state even if it did not change (an audit compared). */
  const announceNext = new Set<string>();
  /** PINs confirmed per terminal since the last refresh, with when: refusals up to then are forgotten. */
  const confirmedPins = new Map<string, Map<number, string>>();

  function stateOf(
    d: DeviceBrief | undefined,
    record: TerminalSyncRecord | undefined,
    counts: OwedCounts,
    reason: string | null,
  ): { state: TerminalSyncState; reason: string | null } {
    if (!d || d.location_id === null) return { state: 'unknown', reason: 'not assigned to a location' };
    // Nothing owed, but nothing ever confirmed by a terminal never seen: what it holds is not known.
    if (counts.owed === 0 && d.last_seen === null && !record?.last_confirmed_at)
      return { state: 'unknown', reason: 'the terminal has not connected yet' };
    if (counts.refused > 0) return { state: 'drift', reason };
    if (counts.owed > 0) return { state: 'syncing', reason: `${counts.owed} line(s) owed, ${counts.revocations} of them revocations` };
    return { state: 'in_sync', reason: null };
  }

  /** The reason of a terminal in drift: its oldest refusal still owed. */
  async function refusalReason(sn: string, counts: OwedCounts): Promise<string | null> {
    if (counts.refused === 0) return null;
    const first = (await store.terminalSync.refusals(sn, { offset: 0, limit: 1 })).items[0];
    if (!first) return null;
    const more = counts.refused > 1 ? ` (and ${counts.refused - 1} more)` : '';
    return `PIN ${first.pin} refused by the terminal with ${first.code}: ${first.message}${more}`;
  }

  async function views(devices: readonly DeviceBrief[]): Promise<Map<string, SyncViewData>> {
    return (await compute(devices)).views;
  }

  /** The views of these terminals, from what is owed to each and their stored records (also returned). */
  async function compute(devices: readonly DeviceBrief[]): Promise<{
    views: Map<string, SyncViewData>;
    owed: ReadonlyMap<string, OwedCounts>;
    records: ReadonlyMap<string, TerminalSyncRecord>;
  }> {
    const sns = devices.map((d) => d.serial_number);
    const [owed, records] = await Promise.all([store.terminalSync.owed(sns), store.terminalSync.get(sns)]);
    const bySn = new Map(records.map((r) => [r.sn, r]));
    const out = new Map<string, SyncViewData>();
    for (const d of devices) {
      const counts = owed.get(d.serial_number) ?? NONE;
      const record = bySn.get(d.serial_number);
      const { state, reason } = stateOf(d, record, counts, await refusalReason(d.serial_number, counts));
      out.set(d.serial_number, {
        state,
        owed: counts.owed,
        revocations_owed: counts.revocations,
        refused: counts.refused,
        last_confirmed_at: record?.last_confirmed_at ?? null,
        last_audit_at: record?.last_audit_at ?? null,
        reason,
      });
    }
    return { views: out, owed, records: bySn };
  }

  async function view(d: Device): Promise<SyncViewData> {
    return (await views([d])).get(d.serial_number) as SyncViewData;
  }

  /** One terminal's view and its stored record as the view read it. */
  async function viewAndRecord(d: DeviceBrief): Promise<{ current: SyncViewData; record: TerminalSyncRecord | undefined }> {
    const { views: one, records } = await compute([d]);
    return { current: one.get(d.serial_number) as SyncViewData, record: records.get(d.serial_number) };
  }

  /**
   * Recomputes one terminal's state; announces `device.sync` when this call changed the stored state
   * (or wrote it again, after an audit: the compare-and-set from the state to itself still decides one node).
   */
  async function refresh(sn: string): Promise<void> {
    const pins = confirmedPins.get(sn);
    confirmedPins.delete(sn);
    // The few fields the state needs: a full device (options and state parsed) cost a third of a refresh.
    const device = await store.devices.briefBySerial(sn);
    if (pins && pins.size > 0) {
      // The confirmations since the last refresh, written once (a reply confirms up to 50 lines).
      const latest = [...pins.values()].reduce((a, b) => (a > b ? a : b));
      await store.terminalSync.confirmed(sn, device?.location_id ?? null, latest);
      await store.terminalSync.clearRefusals(
        sn,
        [...pins].map(([pin, at]) => ({ pin, at })),
      );
    }
    if (!device) return;
    // An audit's comparison changed last_audit_at: announced as well, so retained copies show it. Taken before
    // the state is read: an audit that ends after this point (its last_audit_at not in the view read below) sets
    // the flag again and schedules the next refresh, which reads it and announces.
    const forced = announceNext.delete(sn);
    // Unassigned: nothing is owed to it any more.
    if (device.location_id === null) await store.terminalSync.clearRefusals(sn);
    const { current, record } = await viewAndRecord(device);
    if (record?.state === current.state && !forced) return;
    const now = clock.now().toISOString();
    const marker = newMarker();
    const won = await store.terminalSync.setState(
      sn,
      device.location_id,
      record?.state ?? null,
      current.state,
      current.reason,
      now,
      marker,
    );
    if (won) await announce(sn, device.location_id ?? record?.location_id ?? null, current, marker);
  }

  /** `device.sync`, owed under `marker` until the feed stored it (else the sweep announces it later). */
  async function announce(sn: string, locationId: number | null, sync: SyncViewData, marker: string): Promise<void> {
    if (await bus.emitStored('device.sync', { location_id: locationId, sn, sync, feed_event: randomUUID() }))
      await store.terminalSync.announced(sn, marker);
  }

  /**
   * The outbox sweep of state changes whose event a crash or an outage kept from the feed (changed
   * before `before`): each terminal's state as it is now is announced, once stored as changed.
   */
  async function sweepUnannounced(before: string): Promise<number> {
    const owed = await store.terminalSync.unannounced(before, SWEEP_PAGE);
    for (const { sn, marker } of owed) {
      const device = await store.devices.briefBySerial(sn);
      if (!device) {
        await store.terminalSync.announced(sn, marker);
        continue;
      }
      const { current, record } = await viewAndRecord(device);
      // Changed since: a new change (and its own event) replaces the owed one.
      if (record?.state !== current.state) await refresh(sn);
      else await announce(sn, device.location_id ?? record.location_id, current, marker);
    }
    return owed.length;
  }

  /** Runs a scheduled refresh now; kept in `running` until it ends, so settled() and stop() can wait for it. */
  function run(sn: string): void {
    due.delete(sn);
    const done = refresh(sn)
      .catch((err: unknown) => log.warn({ err, sn }, 'terminal sync state: refresh failed'))
      .finally(() => running.delete(done));
    running.add(done);
  }

  /** Schedules a refresh (several changes in a short while are one). */
  function touch(sn: string): void {
    if (due.has(sn) || stopped) return;
    const timer = setTimeout(() => run(sn), REFRESH_MS);
    timer.unref();
    due.set(sn, timer);
  }

  /** Every scheduled refresh is run now, and every refresh under way (and what it scheduled) has ended. */
  async function settled(): Promise<void> {
    while (due.size > 0 || running.size > 0) {
      for (const [sn, timer] of due) {
        clearTimeout(timer);
        run(sn);
      }
      await Promise.all(running);
    }
  }

  const unsubscribe = [
    bus.on('mailbox.changed', ({ sn }) => touch(sn)),
    bus.on('device.updated', ({ device }) => touch(device.serial_number)),
    bus.on('command.updated', ({ command }) => {
      if (!isUserOp(command)) return;
      if (command.status === 'success') {
        const at = command.acknowledged_at ?? clock.now().toISOString();
        let pins = confirmedPins.get(command.sn);
        if (!pins) confirmedPins.set(command.sn, (pins = new Map()));
        pins.set(pinOf(command), at);
        if (command.params?.['op'] === 'user.delete')
          deps.onRevocationConfirmed?.(Math.max(0, (Date.parse(at) - Date.parse(command.created_at)) / 1000));
      }
      touch(command.sn);
    }),
  ];

  return {
    view,
    views,
    refresh,
    touch,
    /**
     * The terminal refused the line of `command` (negative return code): the PIN is in drift with the
     * code and text until a line for it is confirmed; the op stays owed (sweeps.ts sends it again).
     */
    async refused(sn: string, command: Command, code: number, message: string): Promise<void> {
      if (!isUserOp(command)) return;
      await store.terminalSync.refuse(sn, pinOf(command), code, message, clock.now().toISOString());
      log.info(
        { sn, id: command.id, pin: pinOf(command), returnCode: code },
        'sync line refused by the terminal: kept owed, retried with back-off',
      );
      touch(sn);
    },
    async detail(d: Device, window: Window): Promise<SyncDetail> {
      const sn = d.serial_number;
      const [base, missing, extra, refused] = await Promise.all([
        view(d),
        // The PINs of this location's ops only: a moved terminal's or an audit's deletes of another
        // location's users are counted in `owed`, never listed.
        store.terminalSync.owedPins(sn, 'user.upsert', window, d.location_id ?? -1),
        store.terminalSync.owedPins(sn, 'user.delete', window, d.location_id ?? -1),
        store.terminalSync.refusals(sn, window),
      ]);
      return {
        ...base,
        missing: { items: missing.items.map(owedPinView), total: missing.total },
        extra: { items: extra.items.map(owedPinView), total: extra.total },
        refused_pins: { items: refused.items.map((r) => owedPinView({ pin: r.pin, since: r.since, code: r.code })), total: refused.total },
      };
    },
    async summary(devices: readonly DeviceBrief[]): Promise<SyncSummary> {
      const { views: all, owed } = await compute(devices);
      const counts = Object.fromEntries(SYNC_STATES.map((s) => [s, 0])) as Record<TerminalSyncState, number>;
      let revocations = 0;
      let oldest: string | null = null;
      for (const v of all.values()) {
        counts[v.state]++;
        revocations += v.revocations_owed;
      }
      for (const c of owed.values()) if (c.oldest !== null && (oldest === null || c.oldest < oldest)) oldest = c.oldest;
      return { devices: devices.length, ...counts, revocations_owed: revocations, oldest_owed_at: oldest };
    },
    /** An audit compared the terminal (last_audit_at moved): its state is announced at the next refresh, changed or not. */
    audited(sn: string): void {
      announceNext.add(sn);
      touch(sn);
    },
    /** The outbox sweep as a singleton job: state changes older than SWEEP_AGE_MS whose event is owed. */
    job: {
      name: 'sync-state-outbox',
      everyMs: SWEEP_EVERY_MS,
      run: () => sweepUnannounced(new Date(clock.now().getTime() - SWEEP_AGE_MS).toISOString()),
    },
    sweepUnannounced,
    settled,
    /** No new refresh is scheduled; the scheduled ones are run (the store's state is left current) and awaited. */
    async stop(): Promise<void> {
      stopped = true;
      for (const off of unsubscribe) off();
      await settled();
    },
  };
}

export type TerminalState = ReturnType<typeof createTerminalState>;
