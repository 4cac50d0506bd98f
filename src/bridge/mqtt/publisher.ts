/**
 * Feed events → MQTT messages. The topic scheme is the shared one
 * (src/events/topics.ts); this file only prefixes `<base>/<location_id>/`, encodes payloads and
 * remembers the retained ones, so a broker that lost them (an external broker reconnecting, a
 * bridge restarting) gets the current state again instead of stale or none.
 */
import { availabilityTopic, presenceMessages, stateTopic, topicMessages } from '../../events/topics.js';
import type { AnyFeedEvent, DeviceData, PresenceData } from '../../events/types.js';
import type { Topics } from './acl.js';
import { discoveryMessages, headCountDiscovery, type DiscoveryMessage } from './ha-discovery.js';

/** Where messages go: the embedded broker or the external client. Never blocks; may drop (and count). */
export interface Sink {
  publish(topic: string, payload: Buffer, retain: boolean): void;
}

/** A string is sent as is (`online`), null clears a retained topic (empty payload [MQTT-3.3.1.3]), anything else is JSON. */
export function encodePayload(payload: unknown): Buffer {
  if (payload === null) return Buffer.alloc(0);
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  return Buffer.from(JSON.stringify(payload), 'utf8');
}

export interface PublisherOptions {
  readonly topics: Topics;
  readonly sink: Sink;
  readonly haDiscovery: boolean;
}

export function createPublisher(options: PublisherOptions) {
  const { topics, sink } = options;
  /** Last retained payload per full topic; bounded by the deployment's terminals (two topics each, plus discovery). */
  const retained = new Map<string, Buffer>();
  /** Retained topics the feed wrote while the start-up seed reads the store: the seed must not overwrite them with older data. */
  let live: Set<string> | null = new Set();

  function send(topic: string, payload: Buffer, retain: boolean): void {
    if (retain) {
      live?.add(topic);
      if (payload.length === 0) retained.delete(topic);
      else retained.set(topic, payload);
    }
    sink.publish(topic, payload, retain);
  }

  /** Discovery configs change rarely: sent only when different from what the broker holds. */
  function discovery(messages: readonly DiscoveryMessage[]): void {
    for (const m of messages) {
      const payload = encodePayload(m.payload);
      const held = retained.get(m.topic);
      if (payload.length === 0 ? held === undefined : held?.equals(payload)) continue;
      send(m.topic, payload, true);
    }
  }

  return {
    onEvent(event: AnyFeedEvent): void {
      for (const m of topicMessages(event)) send(topics.location(event.location_id, m.topic), encodePayload(m.payload), m.retain);
      if (options.haDiscovery && (event.type === 'device.online' || event.type === 'device.offline' || event.type === 'device.updated')) {
        discovery(discoveryMessages(topics, event.location_id, event.data.device));
      }
      if (options.haDiscovery && event.type === 'presence.changed') discovery([headCountDiscovery(topics, event.location_id)]);
    },
    /**
     * Start-up: a terminal as the store has it (the feed only tells changes, and a restarted embedded
     * broker or a new external one holds nothing), unless the feed already said something newer.
     */
    seed(locationId: number, device: DeviceData): void {
      const sn = device.serial_number;
      const state: [string, unknown][] = [
        [topics.location(locationId, availabilityTopic(sn)), device.is_active ? 'online' : 'offline'],
        [topics.location(locationId, stateTopic(sn)), device],
      ];
      for (const [topic, payload] of state) if (!live?.has(topic)) send(topic, encodePayload(payload), true);
      if (options.haDiscovery) discovery(discoveryMessages(topics, locationId, device));
    },
    /** Start-up: who is in at a location (as GET /api/presence), unless the feed already said something newer, and its head count sensor. */
    seedPresence(locationId: number, count: number, users: readonly PresenceData[]): void {
      for (const m of presenceMessages(count, users)) {
        const topic = topics.location(locationId, m.topic);
        if (!live?.has(topic)) send(topic, encodePayload(m.payload), true);
      }
      if (options.haDiscovery) discovery([headCountDiscovery(topics, locationId)]);
    },
    /** The seed is done: stop remembering which topics the feed wrote. */
    seeded(): void {
      live = null;
    },
    /** The retained state, to replay to a broker after it lost it. */
    retained(): ReadonlyMap<string, Buffer> {
      return retained;
    },
  };
}
