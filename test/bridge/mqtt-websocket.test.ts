/**
 * Issue #15: MQTT over WebSocket at /mqtt on the HTTP port, served by the embedded broker with the same
 * logins and ACL as its TCP port. Real clients: `mqtt` over ws://, and `ws` for the refused upgrades.
 */
import t from 'tap';
import WebSocket from 'ws';
import { ADMIN_TOKEN, startApp } from '../helpers/app.js';
import { connect, connectCode, subscribeGrants } from './mqtt-client.js';

t.test('/mqtt: log in, subscribe, request/response, ACL — as on the TCP port', async (t) => {
  const started = await startApp(t, { config: { mqtt: 'embedded', mqttPort: 0, adminToken: ADMIN_TOKEN, longpollS: 0 } });
  const url = `ws://127.0.0.1:${started.port}/mqtt`;
  const loc = started.locationId;
  t.equal(
    await connectCode(url, { username: String(loc), password: 'bg_' + 'y'.repeat(32) }),
    4,
    'a wrong token is refused in the CONNACK',
  );

  const c = await connect(t, url, { username: String(loc), password: started.token });
  t.strictSame(
    await subscribeGrants(c.client, { [`biogate/${loc}/#`]: { qos: 0 }, 'biogate/999/#': { qos: 0 } }),
    [0, 128],
    'own prefix granted, another location refused',
  );
  await c.client.subscribeAsync('biogate/bridge/state');
  t.equal((await c.next('biogate/bridge/state')).text, 'online');

  const tcp = await connect(t, `mqtt://127.0.0.1:${started.app.mqtt?.port ?? 0}`, { username: String(loc), password: started.token });
  await tcp.client.subscribeAsync(`biogate/${loc}/#`);
  await fetch(`${started.url}/api/devices`, {
    method: 'POST',
    headers: { authorization: `Bearer ${started.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ sn: 'WS0001' }),
  });
  await c.client.publishAsync(`biogate/${loc}/request/command`, JSON.stringify({ sn: 'WS0001', command: 'reboot', transaction: 'ws-1' }));
  const answer = c.json(await c.next(`biogate/${loc}/response/command`));
  t.match(answer, { status: 'ok', transaction: 'ws-1', data: { command: 'reboot', sn: 'WS0001', status: 'pending' } });
  await tcp.next(`biogate/${loc}/response/command`, 'the answer at the TCP client too');
  t.pass('one broker: WebSocket and TCP clients of a location see the same topics');
});

t.test('/mqtt refuses upgrades without the mqtt subprotocol, before the upgrade', async (t) => {
  const started = await startApp(t, { config: { mqtt: 'embedded', mqttPort: 0 } });
  const status = await new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${started.port}/mqtt`, ['graphql-ws']);
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => reject(new Error('upgraded without the mqtt subprotocol')));
    ws.once('error', () => undefined);
  });
  t.equal(status, 400);
});

t.test('/mqtt does not exist unless the broker is embedded', async (t) => {
  const started = await startApp(t, { config: { mqtt: 'off' } });
  const res = await fetch(`${started.url}/mqtt`);
  t.equal(res.status, 404);
});
