/**
 * What buildApp (../app.ts) takes and gives: the composition root's options and the parts it exposes.
 */
import type { PresenceFeed } from '../attendance/presence-feed.js';
import type { ApiRoute } from '../api/route.js';
import type { MqttBridge } from '../bridge/mqtt/index.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import type { CommandQueue } from '../devices/command-queue.js';
import type { Hub } from '../devices/hub.js';
import type { RuntimeConfig } from '../devices/runtime-config.js';
import type { EventBus } from '../events/bus.js';
import type { ClusterFeed } from '../events/feed.js';
import type { HttpServer } from '../http/server.js';
import type { LocationService } from '../locations/service.js';
import type { Logger } from '../log.js';
import type { MetricsRegistry } from '../ops/metrics.js';
import type { Stream } from '../realtime/index.js';
import type { Store } from '../store/types.js';
import type { SyncOutbox } from '../sync/outbox.js';
import type { SyncQueue } from '../sync/queue.js';
import type { TerminalState } from '../sync/terminal-state.js';
import type { TimeSync } from '../sync/time-sync.js';
import type { WebhookDispatcher } from '../webhooks/dispatcher.js';
import type { Bootstrap } from './bootstrap.js';

export interface AppOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Device runtime settings beyond the config (tests shorten idle eviction, say). */
  readonly runtime?: Partial<RuntimeConfig>;
  /** Where the one-time bootstrap token is printed (plain text, never the logger) [API-CONTRACT §7]. */
  readonly announce?: (text: string) => void;
  /** The API body timeout in ms (default API_BODY_TIMEOUT_MS, 10 s; tests shorten it). */
  readonly apiBodyTimeoutMs?: number;
}

export interface App {
  readonly store: Store;
  readonly http: HttpServer;
  readonly locations: LocationService;
  readonly metrics: MetricsRegistry;
  readonly bus: EventBus;
  readonly sync: SyncQueue;
  readonly outbox: SyncOutbox;
  readonly timeSync: TimeSync;
  readonly commands: CommandQueue;
  readonly hub: Hub;
  /** Each terminal's roster state (issue #31); settled() runs the scheduled refreshes and waits for them. */
  readonly terminals: TerminalState;
  /** The cluster-wide event feed every consumer reads. */
  readonly feed: ClusterFeed;
  /** GET /api/stream, the WebSocket stream. */
  readonly stream: Stream;
  /** Who is in after punches (src/attendance/presence-feed.ts). */
  readonly presence: PresenceFeed;
  /** The MQTT bridge once started; null when BIOGATE_MQTT=off. */
  readonly mqtt: MqttBridge | null;
  /** Outbound webhooks: the delivery job; `runOnce()` runs one pass. */
  readonly webhooks: WebhookDispatcher;
  /** This node's name (BIOGATE_NODE_ID or generated). */
  readonly nodeId: string;
  readonly apiRoutes: readonly ApiRoute[];
  /** Runs bootstrap, binds the listener(s); resolves with the bound port (and the device port when configured). */
  start(): Promise<{ port: number; devicePort: number | null; bootstrap: Bootstrap | null }>;
  /**
   * The drain before a close: /readyz answers 503 ("draining") so load balancers and Kubernetes take
   * the node out, while everything else is still served. close() follows.
   */
  drain(): void;
  close(): Promise<void>;
}
