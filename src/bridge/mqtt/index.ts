/**
 * The MQTT bridge (DESIGN.md "Events"): reads the event feed and mirrors it to MQTT,
 * either an embedded aedes broker (with location-token logins and the command request topic) or
 * an external broker BioGate publishes to. The only door to `aedes` and `mqtt` (eslint one-door rule).
 *
 *   const bridge = await startMqttBridge({ config, feed, store, clock, commands, log, metrics });
 *   … bridge.port (embedded: the bound port) … await bridge.close();
 */
import type { Duplex } from 'node:stream';
import type { AdminAuth } from '../../auth/admin-token.js';
import type { RateLimiter } from '../../auth/rate-limit.js';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/schema.js';
import type { CommandQueue } from '../../devices/command-queue.js';
import type { EventFeed } from '../../events/types.js';
import type { Logger } from '../../log.js';
import type { MetricsRegistry } from '../../ops/metrics.js';
import type { Store } from '../../store/types.js';
import { presenceOf } from '../../attendance/days.js';
import { topicsFor } from './acl.js';
import { startEmbeddedBroker, type EmbeddedBroker } from './embedded.js';
import { startExternalClient, type ExternalClient } from './external.js';
import { registerBridgeMetrics } from './metrics.js';
import { createPublisher, type Sink } from './publisher.js';
import { createRequestHandler, type RequestDeps } from './requests.js';
import { deviceFeedView } from '../../views/device.js';
import type { DeviceData } from '../../events/types.js';

/** What a follower node sends again when it takes over publishing to an external broker. */
const FOLLOWER_REPLAY_MS = 5_000;
const FOLLOWER_REPLAY_MAX = 5_000;

export interface MqttBridgeDeps {
  readonly config: Pick<
    Config,
    'mqtt' | 'mqttHost' | 'mqttPort' | 'mqttBase' | 'mqttUsername' | 'mqttPassword' | 'mqttCaFile' | 'mqttHaDiscovery' | 'onlineThresholdS'
  >;
  readonly feed: EventFeed;
  readonly store: Store;
  readonly clock: Clock;
  readonly commands: CommandQueue;
  readonly log: Logger;
  readonly metrics: MetricsRegistry;
  /** The admin token's check (MQTT user `admin`), with the back-off per address it shares with HTTP. */
  readonly admin: AdminAuth;
  /** The per-token limiter of the REST API (BIOGATE_RATE_LIMIT_RPS): command requests draw on the same buckets. */
  readonly limiter?: RateLimiter;
  /** Told of the audit entries a command request wrote (the feed's `audit.recorded`). */
  readonly announceAudit?: RequestDeps['announceAudit'];
  /**
   * External broker only: whether this node publishes (holds the bridge job lease), so several
   * nodes on one broker publish each event once. Omitted = always (one node).
   * Embedded brokers are per node and every node sees every event, so each publishes all.
   */
  readonly isLeader?: () => boolean;
  /** Called when this node becomes the publishing node: its retained state goes out again. */
  readonly onLeader?: (listener: () => void) => void;
}

export interface MqttBridge {
  /** The embedded broker's bound port; null for an external broker. */
  readonly port: number | null;
  /** Embedded only: serve one MQTT-over-WebSocket connection (a duplex stream). */
  readonly handleStream: ((stream: Duplex, address: string) => void) | null;
  /** Embedded only: re-checks logged-in clients' tokens now (it also runs every minute). */
  revalidate(): Promise<void>;
  close(): Promise<void>;
}

export async function startMqttBridge(deps: MqttBridgeDeps): Promise<MqttBridge> {
  const { config } = deps;
  if (config.mqtt === 'off') throw new Error('startMqttBridge: BIOGATE_MQTT is off');
  const log = deps.log.child({ component: 'mqtt' });
  const topics = topicsFor(config.mqttBase);
  let embedded: EmbeddedBroker | undefined;
  let external: ExternalClient | undefined;
  const metrics = registerBridgeMetrics(deps.metrics, {
    connected: () => (embedded ? true : (external?.connected() ?? false)),
    clients: () => embedded?.clients() ?? 0,
  });

  // The publisher needs a sink and the external client needs the publisher's retained state: a late-bound sink.
  let sink: Sink | undefined;
  const publisher = createPublisher({
    topics,
    sink: { publish: (t, p, r) => sink?.publish(t, p, r) },
    haDiscovery: config.mqttHaDiscovery === 'on',
  });

  if (config.mqtt === 'embedded') {
    const requests = createRequestHandler({
      store: deps.store,
      clock: deps.clock,
      commands: deps.commands,
      log,
      ...(deps.limiter ? { limiter: deps.limiter } : {}),
      ...(deps.announceAudit ? { announceAudit: deps.announceAudit } : {}),
    });
    embedded = await startEmbeddedBroker({
      host: config.mqttHost,
      port: config.mqttPort,
      topics,
      metrics,
      log,
      login: { store: deps.store, clock: deps.clock, admin: deps.admin },
      handleRequest: (identity, locationId, payload) => requests.handle(identity, locationId, payload),
    });
    sink = embedded.sink;
  } else {
    // The external broker is shared: only the node leading `mqtt-bridge` (src/events/leader.ts)
    // publishes; a node that takes over republishes the retained state. Command requests are not taken from an external broker: it has no BioGate identities to
    // tell who asked (see the report / README "Events").
    external = startExternalClient({
      url: config.mqtt,
      username: config.mqttUsername,
      password: config.mqttPassword,
      caFile: config.mqttCaFile,
      topics,
      metrics,
      log,
      retained: () => publisher.retained(),
    });
    const client = external;
    const isLeader = deps.isLeader;
    if (isLeader) {
      // A follower keeps what it would have published for a few seconds: on taking over it sends
      // that again, so a hand-over (a rolling restart) loses nothing; a receiver may see an
      // event twice (at least once, as MQTT QoS 1).
      const recent: { at: number; topic: string; payload: Parameters<typeof client.sink.publish>[1]; retain: boolean }[] = [];
      sink = {
        publish: (topic, payload, retain) => {
          if (isLeader()) return client.sink.publish(topic, payload, retain);
          const at = Date.now();
          recent.push({ at, topic, payload, retain });
          while (recent.length > FOLLOWER_REPLAY_MAX || (recent[0] && at - recent[0].at > FOLLOWER_REPLAY_MS)) recent.shift();
          return undefined;
        },
      };
      deps.onLeader?.(() => {
        const since = Date.now() - FOLLOWER_REPLAY_MS;
        for (const m of recent.splice(0)) if (m.at >= since) client.sink.publish(m.topic, m.payload, m.retain);
      });
    } else sink = client.sink;
  }

  const subscription = deps.feed.subscribe({ locationId: null }, (event) => publisher.onEvent(event));
  // Live first, then the store: what the feed says meanwhile wins over the older store read.
  const seeding = seed(deps, publisher).catch((err: unknown) =>
    log.warn({ err }, "mqtt: could not publish the terminals' state at start; the feed will as they change"),
  );
  deps.onLeader?.(
    () =>
      void seed(deps, publisher).catch((err: unknown) =>
        log.warn({ err }, "mqtt: could not republish the terminals' state on taking over"),
      ),
  );
  const stream = embedded;
  return {
    port: embedded?.port ?? null,
    handleStream: stream ? (s, address) => stream.handle(s, address) : null,
    revalidate: async () => embedded?.revalidate(),
    async close() {
      subscription.close();
      await seeding;
      await embedded?.close();
      await external?.close();
    },
  };
}

/** Every assigned terminal's availability and state as the store has them (the same view as GET /api/devices/{sn}), and who is in at each location. */
async function seed(deps: MqttBridgeDeps, publisher: ReturnType<typeof createPublisher>): Promise<void> {
  try {
    if (deps.isLeader && !deps.isLeader()) return;
    for (const location of await deps.store.locations.list()) {
      const areas = await deps.store.areas.names(location.id);
      for (const device of await deps.store.devices.listAssigned(location.id)) {
        publisher.seed(location.id, deviceFeedView(device, location, deps.clock.now(), deps.config.onlineThresholdS, areas) as DeviceData);
      }
      // A day's punches of the location: a location whose day is beyond MAX_PUNCHES gets its presence with the next punches.
      const present = await presenceOf(deps.store, deps.clock, location, undefined).catch((err: unknown) => {
        deps.log.warn({ err, location_id: location.id }, 'mqtt: who is in could not be read at start; the next punches publish it');
      });
      if (present) publisher.seedPresence(location.id, present.count, present.data);
    }
  } finally {
    publisher.seeded();
  }
}
