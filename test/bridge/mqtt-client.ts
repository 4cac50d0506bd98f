/**
 * Test side of the MQTT bridge tests: a real `mqtt` client that records what it receives, so a
 * test can wait for a message on a topic and read its payload and retain flag.
 */
import mqtt, { type IClientOptions, type MqttClient, type Packet } from 'mqtt';
import type { Teardown } from '../helpers/app.js';
import { waitFor } from '../helpers/app.js';

export interface Received {
  readonly topic: string;
  readonly text: string;
  readonly retain: boolean;
}

export interface Recorder {
  readonly client: MqttClient;
  readonly messages: Received[];
  /** Messages on `topic` so far. */
  on(topic: string): Received[];
  /** Waits for the `n`-th message (1-based, default 1) on `topic` and returns it. */
  next(topic: string, what?: string, n?: number, ms?: number): Promise<Received>;
  /** Waits until a message on `topic` satisfies `test`. */
  until(topic: string, test: (m: Received) => boolean, what: string, ms?: number): Promise<Received>;
  json<T = Record<string, unknown>>(m: Received): T;
}

/** Connects (no reconnects, so a refusal is an error), closes at teardown. */
export async function connect(t: Teardown, url: string, options: IClientOptions = {}): Promise<Recorder> {
  const client = await mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, protocolVersion: 4, ...options });
  t.teardown(() => client.endAsync(true));
  const messages: Received[] = [];
  client.on('message', (topic, payload, packet) => void messages.push({ topic, text: payload.toString('utf8'), retain: packet.retain }));
  const on = (topic: string) => messages.filter((m) => m.topic === topic);
  return {
    client,
    messages,
    on,
    async next(topic, what = topic, n = 1, ms = 5000) {
      await waitFor(() => on(topic).length >= n, ms, `message ${n} on ${what}`);
      return on(topic)[n - 1] as Received;
    },
    async until(topic, test, what, ms = 5000) {
      await waitFor(() => on(topic).some(test), ms, what);
      return on(topic).find(test) as Received;
    },
    json: <T>(m: Received) => JSON.parse(m.text) as T,
  };
}

/** The CONNACK refusal a connect attempt gets (its return code), or 0 when it connected. */
export async function connectCode(url: string, options: IClientOptions): Promise<number> {
  try {
    const client = await mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, protocolVersion: 4, ...options });
    await client.endAsync(true);
    return 0;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'number') return code;
    throw err;
  }
}

/** SUBSCRIBE and the return codes of the SUBACK as they came off the wire (128 = refused [MQTT-3.9.3]). */
export async function subscribeGrants(client: MqttClient, filters: Record<string, { qos: 0 | 1 | 2 }>): Promise<number[]> {
  return new Promise((resolve) => {
    const onPacket = (packet: Packet) => {
      if (packet.cmd !== 'suback') return;
      client.off('packetreceive', onPacket);
      resolve(packet.granted.map(Number));
    };
    client.on('packetreceive', onPacket);
    // mqtt.js reports any refusal as an error; the grants are what this helper returns.
    client.subscribe(filters, () => undefined);
  });
}
