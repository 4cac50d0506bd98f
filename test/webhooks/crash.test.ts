// Issue #16 "Verified by": a `biogate serve` process killed with SIGKILL after it stored a delivery
// and while it was sending it; restarted on the same store, the gateway delivers it.
import t from 'tap';
import { bearer, fetchJson, jsonBody, startApp, waitFor, within } from '../helpers/app.js';
import { NO_DIST, serveProcess } from '../helpers/serve.js';
import { startReceiver } from './receiver.js';

const NODE_ID = 'webhook-crash-node';
const OPEN = { webhookAllowPrivate: 'on', webhookAllowHttp: 'on', nodeId: NODE_ID } as const;

t.test('killed between storing and delivering: delivered after the restart', { skip: NO_DIST }, async (t) => {
  // The store, its location and the subscription, made by an app that is then closed.
  const setup = await startApp(t, { config: OPEN });
  const rx = await startReceiver(t, () => 'hang');
  const created = await fetchJson(
    `${setup.url}/api/webhooks`,
    jsonBody('POST', { url: rx.url, events: ['user.changed'] }, bearer(setup.token)),
  );
  t.equal(created.res.status, 201);
  const hookId = (created.body as { id: number }).id;
  await setup.close();

  const { url, child, exited } = await serveProcess(t, {
    BIOGATE_STORE: setup.storeUrl,
    BIOGATE_NODE_ID: NODE_ID,
    BIOGATE_BOOTSTRAP: 'off',
    BIOGATE_WEBHOOK_ALLOW_PRIVATE: 'on',
    BIOGATE_WEBHOOK_ALLOW_HTTP: 'on',
  });
  t.pass('the process serves');

  const user = await fetchJson(`${url}/api/users`, jsonBody('POST', { pin: 42, first_name: 'Kill' }, bearer(setup.token)));
  t.equal(user.res.status, 201);
  // The delivery is stored and on its way (the receiver holds the request): kill the process now.
  await waitFor(() => rx.received.length === 1, 10_000, 'the first attempt to reach the receiver');
  child.kill('SIGKILL');
  await within(10_000, 'exit', exited);
  const webhookId = rx.received[0]?.headers['webhook-id'];

  rx.answer = () => ({ status: 200 });
  const restarted = await startApp(t, { storeUrl: setup.storeUrl, config: OPEN });
  // Same node name as the killed process: it takes its own job lease back at once (another node would wait for the lease to run out).
  await waitFor(() => rx.received.length === 2, 10_000, 'the delivery after the restart');
  t.equal(rx.received[1]?.headers['webhook-id'], webhookId, 'the same event (the receiver de-duplicates by webhook-id)');
  t.match(JSON.parse(rx.received[1]?.body ?? '{}'), { type: 'user.changed', data: { pins: [42] } });
  await restarted.app.webhooks.runOnce(); // the pass that delivered it has written its outcome
  const list = (await fetchJson(`${restarted.url}/api/webhooks/${hookId}/deliveries`, { headers: bearer(setup.token) })).body as {
    total: number;
    data: Record<string, unknown>[];
  };
  t.equal(list.total, 1, 'one delivery');
  t.match(list.data[0], { status: 'delivered', last_status_code: 200 });
});
