/** The bridge's /metrics series: drops are counted, never silent; the broker link is a gauge. */
import { Counter, Gauge, type MetricsRegistry } from '../../ops/metrics.js';

export type DropReason = 'slow_client' | 'broker_busy' | 'broker_offline' | 'slow_broker';
export type Refusal = 'connect' | 'subscribe' | 'publish';

export interface BridgeMetrics {
  dropped(reason: DropReason): void;
  refused(what: Refusal): void;
}

export function registerBridgeMetrics(registry: MetricsRegistry, state: { connected(): boolean; clients(): number }): BridgeMetrics {
  const dropped = registry.register(
    new Counter(
      'biogate_mqtt_dropped_messages_total',
      'MQTT messages not delivered, by reason: a subscriber not reading (slow_client), the broker queue full (broker_busy), the external broker unreachable (broker_offline) or not reading (slow_broker)',
    ),
  );
  const refused = registry.register(
    new Counter(
      'biogate_mqtt_refused_total',
      'MQTT connects refused (bad credentials), subscriptions refused (SUBACK 0x80) and publishes dropped by the ACL',
    ),
  );
  registry.register(
    new Gauge(
      'biogate_mqtt_broker_connected',
      'MQTT bridge link: 1 when the embedded broker listens or the external broker is connected',
      () => [{ labels: {}, value: state.connected() ? 1 : 0 }],
    ),
  );
  registry.register(
    new Gauge('biogate_mqtt_clients', 'Clients connected to the embedded MQTT broker', () => [{ labels: {}, value: state.clients() }]),
  );
  return {
    dropped: (reason) => dropped.inc({ reason }),
    refused: (what) => refused.inc({ what }),
  };
}
