/**
 * The embedded broker (BIOGATE_MQTT=embedded): aedes on BIOGATE_MQTT_HOST:BIOGATE_MQTT_PORT,
 * MQTT 3.1.1. Its hooks are the whole security story (acl.ts decides, this file applies):
 * CONNECT → login (CONNACK refusal), SUBSCRIBE → maySubscribe (SUBACK 0x80 [MQTT-3.9.3]),
 * PUBLISH → command request or dropped, every delivery → mayReceive plus the per-client bound.
 *
 * Client ids are namespaced per identity (`<location id>/<id>`, `admin/<id>`): a client of one
 * location using the id of another location's client is a different client, so it cannot cut that
 * one off; a second connection of the same identity with the same id still takes the session over
 * [MQTT-3.1.4-2]. A client holds at most MAX_FILTERS_PER_CLIENT filters; more get 0x80 in the SUBACK.
 *
 * Bounded per client: every connection goes through guardedConnection (packet size cap on the way
 * in, counted backlog on the way out); a delivery to a client with CLIENT_BUFFER_BYTES unsent is
 * dropped (counted), so a subscriber that stops reading costs about that much memory; one that
 * stays stuck for STALL_MS is disconnected (aedes then releases its pending writes).
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import type { Duplex } from 'node:stream';
import aedes, { type AuthenticateError, type AedesPublishPacket, type Client } from 'aedes';
import type { Logger } from '../../log.js';
import { mayReceive, maySubscribe, publishDecision, RESPONSE_COMMAND, type Identity, type Topics } from './acl.js';
import { login, LoginRefused, stillValid, type LoginDeps } from './login.js';
import { CLIENT_BUFFER_BYTES, guardedConnection } from './guarded-connection.js';
import type { BridgeMetrics } from './metrics.js';
import type { Sink } from './publisher.js';
import type { ResponseEnvelope } from './requests.js';

/** A client that has not drained its buffer for this long is disconnected. */
export const STALL_MS = 30_000;
/** How often logged-in location clients are checked again (a token revoked or expired, a location disabled). */
export const REVALIDATE_MS = 60_000;
/** Messages the bridge may have inside the broker at once; past it new ones are dropped (broker_busy). */
export const MAX_BROKER_IN_FLIGHT = 10_000;
/** Subscription filters one client may hold; more are refused in the SUBACK (0x80). */
export const MAX_FILTERS_PER_CLIENT = 64;
/** Where a refused publish goes: a `$` topic no client may subscribe to, so it reaches nobody (MQTT 3.1.1 has no negative PUBACK). */
const DROPPED_TOPIC = '$biogate/dropped';

export interface EmbeddedOptions {
  readonly host: string;
  readonly port: number;
  readonly topics: Topics;
  readonly login: LoginDeps;
  readonly handleRequest: (identity: Identity, locationId: number, payload: Buffer) => Promise<ResponseEnvelope>;
  readonly metrics: BridgeMetrics;
  readonly log: Logger;
}

export interface EmbeddedBroker {
  readonly sink: Sink;
  readonly port: number;
  clients(): number;
  /** Checks every logged-in location client's token again; disconnects those no longer valid. */
  revalidate(): Promise<void>;
  /** Publishes the bridge's `offline`, then disconnects every client and stops listening. */
  close(): Promise<void>;
  /** Serves one more connection (TCP here; MQTT over WebSocket hands its stream in) from a client address. */
  handle(stream: Duplex, address: string): void;
}

export async function startEmbeddedBroker(options: EmbeddedOptions): Promise<EmbeddedBroker> {
  const { topics, metrics, log } = options;
  const identities = new WeakMap<Client, Identity>();
  const stalledSince = new WeakMap<Client, number>();
  /** The filters each client holds (granted, not yet unsubscribed): MAX_FILTERS_PER_CLIENT at most. */
  const filters = new WeakMap<Client, Set<string>>();
  /** The client address of each connection (TCP peer, or the WebSocket's address with trusted proxies applied). */
  const addresses = new WeakMap<object, string>();
  let inFlight = 0;

  // aedes is CommonJS: the default import is its module.exports, whose createBroker builds a broker.
  const broker = aedes.createBroker({
    // Ids longer than 23 characters are common (HA, browsers); the 3.1.1 limit is a "may" [MQTT-3.1.3-5].
    maxClientsIdLength: 128,
    preConnect(_client, packet, done) {
      // Every session is clean: the broker keeps no queue for a client that is away, so nothing
      // grows while nobody reads it (the retained state is what a returning client gets).
      packet.clean = true;
      done(null, true);
    },
    authenticate(client, username, password, done) {
      login(options.login, username, password, addresses.get(client.conn) ?? 'unknown').then(
        (identity) => {
          identities.set(client, identity);
          // Before aedes registers the client, so the take-over of an id [MQTT-3.1.4-2] stays within the identity.
          client.id = namespacedId(identity, client.id);
          done(null, true);
        },
        (err: unknown) => {
          metrics.refused('connect');
          const code = err instanceof LoginRefused ? err.returnCode : 3;
          if (!(err instanceof LoginRefused)) log.error({ err }, 'mqtt login failed');
          done(
            Object.assign(new Error(err instanceof LoginRefused ? err.message : 'server unavailable'), {
              returnCode: code,
            }) as AuthenticateError,
            false,
          );
        },
      );
    },
    authorizeSubscribe(client, sub, done) {
      const identity = identities.get(client);
      if (!identity || !maySubscribe(topics, identity, sub.topic)) {
        metrics.refused('subscribe');
        done(null, null);
        return;
      }
      const held = filters.get(client) ?? new Set<string>();
      if (!held.has(sub.topic) && held.size >= MAX_FILTERS_PER_CLIENT) {
        metrics.refused('subscribe');
        done(null, null);
        return;
      }
      held.add(sub.topic);
      filters.set(client, held);
      done(null, sub);
    },
    authorizePublish(client, packet, done) {
      const identity = client ? identities.get(client) : undefined;
      const decision = identity ? publishDecision(topics, identity, packet.topic) : { kind: 'drop' as const };
      packet.retain = false; // clients keep nothing in the broker: its retained set is BioGate's state
      if (decision.kind === 'drop' || !identity) {
        metrics.refused('publish');
        packet.topic = DROPPED_TOPIC;
        done(null);
        return;
      }
      const payload = typeof packet.payload === 'string' ? Buffer.from(packet.payload, 'utf8') : Buffer.from(packet.payload);
      void options
        .handleRequest(identity, decision.locationId, payload)
        .then((envelope) =>
          sink.publish(topics.location(decision.locationId, RESPONSE_COMMAND), Buffer.from(JSON.stringify(envelope), 'utf8'), false),
        );
      done(null);
    },
    authorizeForward(client, packet) {
      const identity = identities.get(client);
      if (!identity || !mayReceive(topics, identity, packet.topic)) return null;
      return withinBound(client) ? packet : null;
    },
  });
  broker.on('unsubscribe', (topics, client) => {
    const held = filters.get(client);
    for (const topic of topics) held?.delete(topic);
  });
  broker.on('clientError', (client, err) => log.debug({ client: client.id, err: err.message }, 'mqtt client error'));
  broker.on('connectionError', (_client, err) => log.debug({ err: err.message }, 'mqtt connection error'));

  function withinBound(client: Client): boolean {
    const unsent = (client.conn as { writableLength?: number }).writableLength ?? 0;
    if (unsent < CLIENT_BUFFER_BYTES) {
      stalledSince.delete(client);
      return true;
    }
    metrics.dropped('slow_client');
    const since = stalledSince.get(client);
    const now = performance.now();
    if (since === undefined) stalledSince.set(client, now);
    else if (now - since > STALL_MS) {
      log.warn({ client: client.id }, 'mqtt client stopped reading: disconnected');
      client.close();
    }
    return false;
  }

  const sink: Sink = {
    publish(topic, payload, retain) {
      if (inFlight >= MAX_BROKER_IN_FLIGHT) {
        metrics.dropped('broker_busy');
        return;
      }
      inFlight++;
      const packet = { cmd: 'publish', topic, payload, qos: 0, retain, dup: false } as AedesPublishPacket;
      broker.publish(packet, (err) => {
        inFlight--;
        if (err) log.warn({ err, topic }, 'mqtt publish failed');
      });
    },
  };

  const handle = (stream: Duplex, address: string) => {
    const conn = guardedConnection(stream, (reason) => log.warn({ reason }, 'mqtt connection cut: packet too large'));
    addresses.set(conn, address);
    broker.handle(conn);
  };
  const server: Server = createServer((socket) => handle(socket, socket.remoteAddress ?? 'unknown'));
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  } catch (err) {
    // aedes runs a heartbeat timer from its creation: a broker that never listened must still be closed.
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    throw err;
  }
  sink.publish(topics.bridgeState, Buffer.from('online'), true);

  // A connection outlives its login: without this a revoked token would keep receiving events.
  async function revalidate(): Promise<void> {
    const clients = Object.values((broker as unknown as { clients: Record<string, Client> }).clients);
    for (const client of clients) {
      const identity = identities.get(client);
      if (identity?.kind !== 'location') continue;
      if (!(await stillValid(options.login, identity))) {
        log.info({ location: identity.locationId, token_id: identity.tokenId }, 'mqtt client disconnected: its token is no longer valid');
        client.close();
      }
    }
  }
  const recheck = setInterval(
    () => void revalidate().catch((err: unknown) => log.warn({ err }, 'mqtt: could not re-check client tokens')),
    REVALIDATE_MS,
  );
  recheck.unref();
  log.info({ host: options.host, port }, 'embedded MQTT broker listening');

  let closing: Promise<void> | undefined;
  return {
    sink,
    port,
    clients: () => broker.connectedClients,
    handle,
    revalidate,
    close() {
      closing ??= (async () => {
        clearInterval(recheck);
        // The embedded broker's "last will": subscribers see offline before they are cut off.
        await new Promise<void>((resolve) =>
          broker.publish(
            {
              cmd: 'publish',
              topic: topics.bridgeState,
              payload: Buffer.from('offline'),
              qos: 0,
              retain: true,
              dup: false,
            } as AedesPublishPacket,
            () => resolve(),
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, 20));
        // Stop accepting first; the listener's close completes once the broker has cut every client.
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await new Promise<void>((resolve) => broker.close(() => resolve()));
        await stopped;
      })();
      return closing;
    },
  };
}

/** The broker-side id of a client: the id it sent, inside its identity's namespace. */
export function namespacedId(identity: Identity, id: string): string {
  return identity.kind === 'admin' ? `admin/${id}` : `${identity.locationId}/${id}`;
}
