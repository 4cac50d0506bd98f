/** Gauges of /metrics read at scrape time from the parts the composition root built. */
import type { Hub } from '../devices/hub.js';
import type { HttpServer } from '../http/server.js';
import { Gauge, type MetricsRegistry } from '../ops/metrics.js';
import type { Store } from '../store/types.js';

export function registerGauges(metrics: MetricsRegistry, parts: { store: Store; hub: Hub; http: HttpServer; engine: string }): void {
  const { store, hub, http, engine } = parts;
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
