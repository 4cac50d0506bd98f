// Which locations' feed events poke the webhook job (src/webhooks/dispatcher.ts `wants`). A location found
// without an enabled webhook used to stay so for 5 s: a webhook created meanwhile (by the API, the CLI or
// another node) got its first deliveries from the once-a-second job only, 0.5–1 s late (the `webhooks`
// bench: p50 618 ms, p99 995 ms). Now a subscription created or enabled through this node's API counts at
// once, and one created elsewhere once the negative answer is 250 ms old. Real store, fake clock.
import t from 'tap';
import { subscribe } from '../../src/webhooks/subscriptions.js';
import { bearer, fakeClock, fetchJson, jsonBody, startApp } from '../helpers/app.js';

const HOOK = { url: 'http://127.0.0.1:9/hook', events: ['attendance.recorded'] };

t.test('a location without webhooks is asked again: at once after the API created one, within 250 ms otherwise', async (t) => {
  const clock = fakeClock();
  const app = await startApp(t, { clock, config: { webhookAllowPrivate: 'on', webhookAllowHttp: 'on', longpollS: 0 } });
  const { webhooks } = app.app;
  const api = (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)));

  t.equal(await webhooks.wants(app.locationId), false, 'no webhook yet');
  t.equal((await api('POST', '/api/webhooks', HOOK)).res.status, 201);
  t.equal(await webhooks.wants(app.locationId), true, 'created through the API: wanted at once');

  // A second location, and a webhook stored the way the CLI or another node stores it (this node is not told).
  const other = (await app.app.locations.create({ name: 'Other', timezone: 'UTC' })).location.id;
  t.equal(await webhooks.wants(other), false, 'no webhook there');
  await subscribe(app.app.store, other, { ...HOOK, description: null, attendance_batch: 1 }, clock.now().toISOString());
  clock.advance(100);
  t.equal(await webhooks.wants(other), false, 'a negative answer is trusted for 250 ms');
  clock.advance(200);
  t.equal(await webhooks.wants(other), true, 'then looked up again: wanted');
  t.equal(await webhooks.wants(app.locationId), true, 'the first location still is');

  // Disabled through the API: positive answers are trusted for 5 s (a poke too many costs a lease write).
  const id = ((await api('GET', '/api/webhooks')).body as { data: { id: number }[] }).data[0]?.id;
  t.equal((await api('PATCH', `/api/webhooks/${id}`, { enabled: false })).res.status, 200);
  clock.advance(5_001);
  t.equal(await webhooks.wants(app.locationId), false, 'disabled: no longer wanted once the listing is 5 s old');
  t.equal((await api('PATCH', `/api/webhooks/${id}`, { enabled: true })).res.status, 200);
  t.equal(await webhooks.wants(app.locationId), true, 'enabled again through the API: wanted at once');
});
