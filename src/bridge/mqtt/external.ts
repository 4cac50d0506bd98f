/**
 * External broker (BIOGATE_MQTT=mqtt://… or mqtts://…): BioGate is one client that publishes the
 * feed there (MQTT 5, falling back to 3.1.1 for a broker that refuses 5). Reconnects with
 * back-off (1 s doubling to 30 s); while the broker is away non-retained messages are dropped and
 * counted (never queued without bound: `queueQoSZero: false`), and on every (re)connect the
 * retained state is published again, so the broker always ends up with the current state.
 * The bridge state topic carries the last will `offline` [zigbee2mqtt bridge/state].
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { Logger } from '../../log.js';
import type { Topics } from './acl.js';
import type { BridgeMetrics } from './metrics.js';
import type { Sink } from './publisher.js';

/** Unsent bytes towards the broker before messages are dropped (slow_broker). */
export const BROKER_BUFFER_BYTES = 1024 * 1024;
const MIN_RECONNECT_MS = 1000;
const MAX_RECONNECT_MS = 30_000;

export interface ExternalOptions {
  readonly url: string;
  readonly username: string | null;
  readonly password: string | null;
  readonly caFile: string | null;
  readonly topics: Topics;
  /** The retained state to publish again after a (re)connect. */
  readonly retained: () => ReadonlyMap<string, Buffer>;
  readonly metrics: BridgeMetrics;
  readonly log: Logger;
}

export interface ExternalClient {
  readonly sink: Sink;
  connected(): boolean;
  /** Publishes `offline` (what the will would say), then disconnects. */
  close(): Promise<void>;
}

export function startExternalClient(options: ExternalOptions): ExternalClient {
  const { topics, metrics, log } = options;
  const offline = { topic: topics.bridgeState, payload: Buffer.from('offline'), qos: 1 as const, retain: true };
  const clientOptions: IClientOptions = {
    clientId: `biogate-${hostname()
      .replace(/[^A-Za-z0-9_-]/g, '')
      .slice(0, 32)}-${randomBytes(4).toString('hex')}`,
    protocolVersion: 5,
    clean: true,
    reconnectPeriod: MIN_RECONNECT_MS,
    connectTimeout: 10_000,
    queueQoSZero: false,
    // A refused CONNECT (bad credentials, protocol version) is retried with the same back-off.
    reconnectOnConnackError: true,
    will: offline,
    ...(options.username !== null ? { username: options.username } : {}),
    ...(options.password !== null ? { password: options.password } : {}),
    ...(options.caFile !== null ? { ca: readFileSync(options.caFile) } : {}),
  };
  const client: MqttClient = mqtt.connect(options.url, clientOptions);

  client.on('connect', () => {
    client.options.reconnectPeriod = MIN_RECONNECT_MS;
    log.info({ protocolVersion: client.options.protocolVersion }, 'connected to the MQTT broker');
    client.publish(topics.bridgeState, 'online', { qos: 1, retain: true });
    for (const [topic, payload] of options.retained()) client.publish(topic, payload, { qos: 0, retain: true });
  });
  client.on('close', () => {
    // Back-off: each failed attempt doubles the wait, up to 30 s; a successful connect resets it.
    client.options.reconnectPeriod = Math.min((client.options.reconnectPeriod ?? MIN_RECONNECT_MS) * 2, MAX_RECONNECT_MS);
  });
  client.on('error', (err: Error & { code?: number }) => {
    // A 3.1.1 broker answers an MQTT 5 CONNECT with "unacceptable protocol version" (1) [MQTT-3.2.2.3].
    if (err.code === 1 && client.options.protocolVersion === 5) {
      client.options.protocolVersion = 4;
      log.info('MQTT broker does not speak MQTT 5: using 3.1.1');
      return;
    }
    log.warn({ err: err.message, code: err.code }, 'MQTT broker connection error');
  });

  const sink: Sink = {
    publish(topic, payload, retain) {
      if (!client.connected) {
        // Retained state is replayed on reconnect (publisher.retained); the rest is gone.
        if (!retain) metrics.dropped('broker_offline');
        return;
      }
      const unsent = (client.stream as { writableLength?: number } | undefined)?.writableLength ?? 0;
      if (unsent > BROKER_BUFFER_BYTES) {
        metrics.dropped('slow_broker');
        return;
      }
      client.publish(topic, payload, { qos: 0, retain });
    },
  };

  return {
    sink,
    connected: () => client.connected,
    async close() {
      if (client.connected) await client.publishAsync(offline.topic, offline.payload, { qos: 1, retain: true }).catch(() => undefined);
      await client.endAsync();
    },
  };
}
