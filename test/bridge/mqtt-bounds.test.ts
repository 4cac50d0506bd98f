/**
 * Issue #15 "a slow subscriber never blocks device traffic: bounded queues per client, a dropped
 * message counter": a real client that stops reading its socket, next to one that reads, on the
 * embedded broker of the real app; and the inbound packet-size cap (a client announcing a huge
 * packet is cut before sending it).
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import t from 'tap';
import { PacketSizeGuard, MAX_PACKET_BYTES } from '../../src/bridge/mqtt/guarded-connection.js';
import { ADMIN_TOKEN, bearer, fetchJson, startApp, waitFor } from '../helpers/app.js';
import { connect } from './mqtt-client.js';

t.test('PacketSizeGuard follows fixed headers across chunk boundaries', async (t) => {
  const g = new PacketSizeGuard(1000);
  // PINGREQ (no body), then a PUBLISH of 300 bytes split over three chunks, then another PINGREQ.
  const publish = Buffer.concat([Buffer.from([0x30, 0xac, 0x02]), Buffer.alloc(300, 0x61)]);
  t.equal(g.feed(Buffer.from([0xc0, 0x00])), undefined);
  t.equal(g.feed(publish.subarray(0, 2)), undefined, 'header split after the first length byte');
  t.equal(g.feed(publish.subarray(2, 150)), undefined);
  t.equal(
    g.feed(Buffer.concat([publish.subarray(150), Buffer.from([0xc0, 0x00])])),
    undefined,
    'the next packet starts where the body ends',
  );
  t.match(g.feed(Buffer.from([0x30, 0xe9, 0x07])), /larger than 1000/, '1001 announced: refused before any body byte');
  t.match(
    new PacketSizeGuard(MAX_PACKET_BYTES).feed(Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff])),
    /larger|malformed/,
    'a fifth length byte is refused',
  );
});

t.test('a subscriber that stops reading: its messages are dropped and counted, the others get everything', async (t) => {
  const started = await startApp(t, { config: { mqtt: 'embedded', mqttPort: 0, adminToken: ADMIN_TOKEN } });
  const url = `mqtt://127.0.0.1:${started.app.mqtt?.port ?? 0}`;
  const login = { username: String(started.locationId), password: started.token };
  const topic = `biogate/${started.locationId}/request/command`;

  const slow = await connect(t, url, login);
  await slow.client.subscribeAsync(topic);
  // The slow client stops reading its socket: the kernel buffers fill, then the broker's.
  const stream = slow.client.stream as unknown as Socket;
  stream.unpipe();
  stream.pause();
  const fast = await connect(t, url, login);
  await fast.client.subscribeAsync(topic);
  const writer = await connect(t, url, login);

  // Requests are forwarded to the request topic's subscribers (and answered BAD_REQUEST: not JSON).
  const payload = Buffer.alloc(60 * 1024, 0x61);
  const total = 200; // ~12 MB per subscriber: more than loopback socket buffers hold
  for (let i = 0; i < total - 1; i++) writer.client.publish(topic, payload, { qos: 0 });
  await writer.client.publishAsync(topic, payload, { qos: 1 });
  await waitFor(() => fast.on(topic).length === total, 30_000, 'every message at the reading subscriber');
  t.equal(fast.on(topic).length, total, 'the reading subscriber lost nothing');

  const { body } = await fetchJson(`${started.url}/metrics`, { headers: bearer(ADMIN_TOKEN) });
  const line = String(body)
    .split('\n')
    .find((l) => l.startsWith('biogate_mqtt_dropped_messages_total{') && l.includes('reason="slow_client"'));
  const dropped = line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  t.ok(dropped > 0, `messages to the stuck subscriber were dropped and counted (${dropped})`);
  t.ok(dropped < total, 'not all: it got what fit before it stopped');

  // Device traffic is unaffected: an API round trip and a device request answer at once.
  const began = Date.now();
  const ping = await fetch(`${started.url}/iclock/cdata?SN=SLOW0001&options=all`);
  t.equal(ping.status, 200);
  t.ok(Date.now() - began < 1000, 'a terminal is answered at once');
});

t.test('a connection announcing a packet over the cap is cut before its body', async (t) => {
  const started = await startApp(t, { config: { mqtt: 'embedded', mqttPort: 0 } });
  const port = started.app.mqtt?.port ?? 0;
  const socket = tcpConnect(port, '127.0.0.1');
  t.teardown(() => socket.destroy());
  await new Promise((resolve) => socket.once('connect', resolve));
  const closed = new Promise((resolve) => socket.once('close', resolve));
  // A CONNECT announcing 200 MB [MQTT-2.2.3]: 200_000_000 as a remaining length.
  let n = 200_000_000;
  const length: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    length.push(b);
  } while (n > 0);
  socket.write(Buffer.from([0x10, ...length]));
  socket.write(Buffer.alloc(1024));
  await closed;
  t.pass('the broker closed the connection');
});
