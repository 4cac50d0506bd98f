/** Gauges of /metrics read at scrape time from the parts the composition root built. */
import type { Hub } from '../devices/hub.js';
import type { EventBus } from '../events/bus.js';
import type { HttpServer } from '../http/server.js';
import { Counter, Gauge, Histogram, type MetricsRegistry } from '../ops/metrics.js';
import type { Store } from '../store/types.js';
import type { AuditDeps } from '../sync/audit.js';
import type { TerminalState } from '../sync/terminal-state.js';
import { SYNC_STATES } from '../views/device-sync.js';

/** Revocation latency (change accepted → confirmed by the terminal): the observer for sync/terminal-state.ts. */
export function revocationLatency(metrics: MetricsRegistry): (seconds: number) => void {
  const histogram = metrics.register(
    new Histogram(
      'biogate_sync_revocation_seconds',
      'Seconds from a revocation accepted (user deleted, deactivated, access window ended) to its confirmation by a terminal',
      [0.5, 1, 2, 3, 5, 10, 30, 60, 300, 900, 3600, 86400],
    ),
  );
  const series = histogram.series({});
  return (seconds) => series.observe(seconds);
}

/**
 * Punches stored by this node, by source (`device`, `manual`): counted from `attendance.recorded`, which
 * carries only rows newly stored (a terminal's re-sent duplicates are not in it). Summed over nodes
 * in Prometheus, since each punch is stored by one node.
 */
function countStoredPunches(metrics: MetricsRegistry, bus: EventBus): void {
  const stored = metrics.register(
    new Counter('biogate_attendance_stored_total', 'Punches stored by this node, by source (device, manual)'),
  );
  const bySource = { device: stored.series({ source: 'device' }), manual: stored.series({ source: 'manual' }) };
  bus.on('attendance.recorded', ({ records }) => {
    for (const r of records) bySource[r.source].inc();
  });
}

/**
 * Command round trips: queued → the terminal's successful result, by origin (api, sync, system). Observed on
 * the node that received the result (`command.updated` is a local bus event there), so sums over nodes hold.
 */
function commandLatency(metrics: MetricsRegistry, bus: EventBus): void {
  const histogram = metrics.register(
    new Histogram(
      'biogate_command_seconds',
      'Seconds from a command queued to its successful result from the terminal, by origin (api, sync, system)',
      [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
    ),
  );
  const byOrigin = {
    api: histogram.series({ origin: 'api' }),
    sync: histogram.series({ origin: 'sync' }),
    system: histogram.series({ origin: 'system' }),
  };
  bus.on('command.updated', ({ command }) => {
    if (command.status !== 'success' || command.acknowledged_at === null) return;
    const seconds = (Date.parse(command.acknowledged_at) - Date.parse(command.created_at)) / 1000;
    if (Number.isFinite(seconds) && seconds >= 0) byOrigin[command.origin].observe(seconds);
  });
}

/** Audits started by trigger, and the repairs they queued by kind (sync/audit.ts). */
export function auditCounters(metrics: MetricsRegistry): Pick<AuditDeps, 'onAudit' | 'onRepair'> {
  const audits = metrics.register(
    new Counter('biogate_sync_audits_total', 'Roster audits started, by trigger (initial, schedule, count, api)'),
  );
  const repairs = metrics.register(
    new Counter(
      'biogate_sync_audit_repairs_total',
      'What an audit found to repair, by kind (users: extra deleted; missing, stale, rights sent again; tables: timezones, holidays; doors: door settings)',
    ),
  );
  return { onAudit: (trigger) => audits.inc({ trigger }), onRepair: (kind, n) => repairs.inc({ kind }, n) };
}

/** Owed sync lines and terminals per sync state, from the store (the same figures on every node: aggregate with max). */
function registerSyncGauges(metrics: MetricsRegistry, store: Store, terminals: TerminalState): void {
  const compute = async () => {
    const views = [...(await terminals.views(await store.devices.listAssignedBrief(null))).values()];
    return {
      owed: views.reduce((n, v) => n + v.owed, 0),
      revocations: views.reduce((n, v) => n + v.revocations_owed, 0),
      states: SYNC_STATES.map((state) => ({ labels: { state }, value: views.filter((v) => v.state === state).length })),
    };
  };
  // Both gauges of one scrape share one reading (each terminal's owed lines are a store read).
  let reading: ReturnType<typeof compute> | undefined;
  const read = () => {
    reading ??= compute().finally(() => {
      reading = undefined;
    });
    return reading;
  };
  metrics.register(
    new Gauge('biogate_sync_owed_lines', 'Sync lines owed to assigned terminals (kind: all, revocations)', async () => {
      const r = await read();
      return [
        { labels: { kind: 'all' }, value: r.owed },
        { labels: { kind: 'revocations' }, value: r.revocations },
      ];
    }),
  );
  metrics.register(new Gauge('biogate_sync_devices', 'Assigned terminals per roster sync state', async () => (await read()).states));
}

export function registerGauges(
  metrics: MetricsRegistry,
  parts: { store: Store; hub: Hub; http: HttpServer; engine: string; terminals: TerminalState; bus: EventBus },
): void {
  const { store, hub, http, engine } = parts;
  registerSyncGauges(metrics, store, parts.terminals);
  countStoredPunches(metrics, parts.bus);
  commandLatency(metrics, parts.bus);
  metrics.register(
    new Gauge(
      'biogate_commands',
      'Commands by status in the whole store (the same figure on every node: aggregate with max, not sum)',
      async () => Object.entries(await store.commands.countByStatus()).map(([status, value]) => ({ labels: { status }, value })),
    ),
  );
  metrics.register(
    new Gauge('biogate_http_engine_info', 'The HTTP engine serving this node (label engine: uws or node); always 1', () => [
      { labels: { engine }, value: 1 },
    ]),
  );
  metrics.register(
    new Gauge('biogate_devices_online', 'Devices seen within the online threshold', () => [
      { labels: {}, value: hub.presence.onlineCount() },
    ]),
  );
  metrics.register(new Gauge('biogate_device_actors', 'Device actors in memory', () => [{ labels: {}, value: hub.size }]));
  metrics.register(
    new Gauge('biogate_websocket_connections', 'Open WebSocket connections (/api/stream, MQTT over WebSocket)', () => [
      { labels: {}, value: http.openWebSockets },
    ]),
  );
}
