// `mqtt`: punches reaching a subscriber of `<base>/<location>/attendance` on the embedded broker
// (README "MQTT"; it logs in with the location id and a token): events/s for a burst, and p50/p99 from
// the punch's upload to the message.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import mqtt from 'mqtt';
import { call, handshakeV2, type Context, type Scenario } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import { withGateway } from '../lib/gateway.js';
import { punchLatencies, punchThroughput, type Arrivals } from '../lib/punches.js';
import { quantile } from '../lib/stats.js';

/** A port free right now (the broker binds it a moment later). */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

export const mqttScenario: Scenario = {
  name: 'mqtt',
  description: 'punches to an MQTT subscriber through the embedded broker: events/s and p50/p99 punch→subscriber',
  inDefault: true,
  async run(ctx: Context): Promise<Figure[]> {
    const port = await freePort();
    const sn = 'BENCHM001';
    return withGateway(
      {
        store: ctx.store,
        engine: ctx.engine,
        env: { BIOGATE_MQTT: 'embedded', BIOGATE_MQTT_HOST: '127.0.0.1', BIOGATE_MQTT_PORT: String(port) },
      },
      async (gw) => {
        if ((await call(gw, 'POST', '/api/devices', { sn })).status !== 201) throw new Error('assign failed');
        await handshakeV2(gw, sn);
        const arrivals: Arrivals = new Map();
        const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
          username: String(gw.locationId),
          password: gw.token,
          reconnectPeriod: 0,
        });
        try {
          client.on('message', (_topic, payload) => {
            const at = performance.now();
            const record = JSON.parse(payload.toString('utf8')) as { pin?: string };
            if (record.pin !== undefined) arrivals.set(record.pin, at);
          });
          const topic = `biogate/${gw.locationId}/attendance`;
          const granted = await client.subscribeAsync(topic, { qos: 0 });
          if (granted[0]?.qos === 128) throw new Error(`subscription to ${topic} refused`);
          const singles = ctx.smoke ? 10 : 300;
          const burst = ctx.smoke ? 200 : 5_000;
          const ms = await punchLatencies(gw, sn, arrivals, singles, 10, 10_000);
          const rate = await punchThroughput(gw, sn, arrivals, burst, 100_000);
          return [
            figure('mqtt', `messages delivered, burst of ${burst.toLocaleString('en-US')} punches`, rate, 'events/s'),
            figure('mqtt', 'p50 punch→subscriber', quantile(ms, 0.5), 'ms'),
            figure('mqtt', 'p99 punch→subscriber', quantile(ms, 0.99), 'ms', {
              note: `${singles} single punches, one every 10 ms; every punch of both phases arrived`,
            }),
          ];
        } finally {
          await client.endAsync();
        }
      },
    );
  },
};
