/**
 * Bulk actions in the console (issue #38 item 7), in Chromium against the real app and simulated terminals: users
 * selected and deactivated in one request, then deleted after a typed confirmation; terminals selected together and a
 * command queued on each, where a terminal whose protocol has no such command is named with the reason and the others
 * still get it. axe-core clean with the bars shown.
 */
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { mainNav, signedIn } from './pages.js';

t.test('bulk actions on users and terminals', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  for (const pin of [1, 2, 3]) t.equal((await g.a.api('POST', '/api/users', { body: { pin, first_name: `U${pin}` } })).status, 201);
  for (const [sn, protocol] of [
    ['BULK2', 'v2'],
    ['BULK3', 'v3'],
  ] as const) {
    t.equal((await g.a.api('POST', '/api/devices', { body: { sn } })).status, 201);
    const sim = createSimulatedDevice({ url: g.url, sn, protocol, requestTimeoutMs: 10_000 });
    t.teardown(() => sim.stop());
    await sim.handshake();
  }
  const b = await openBrowser(t, () => g.url);
  const page = await signedIn(b, g.url, g.a.token);

  await t.test('users: deactivate, then delete, the selected', async (t) => {
    await mainNav(page)('Users');
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    const bar = page.getByRole('toolbar', { name: 'Selected users' });
    await page.getByLabel('Select user 1', { exact: true }).check();
    await page.getByLabel('Select user 2', { exact: true }).check();
    await bar.getByText('2 users selected').waitFor();
    await bar.getByRole('button', { name: 'Deactivate selected' }).click();
    await bar.getByText('Deactivated: 2 done.').waitFor();
    const active = async (pin: number) => ((await g.a.api('GET', `/api/users/${pin}`)).body as { is_active: boolean }).is_active;
    t.same([await active(1), await active(2), await active(3)], [false, false, true], 'the two selected, in one request');
    await b.axe(t, page, 'users (bulk)');

    await bar.getByRole('button', { name: 'Delete selected' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('PINs 1, 2 are removed').waitFor();
    await dialog.getByLabel('Type delete to confirm').fill('delete');
    await dialog.getByRole('button', { name: 'Delete users' }).click();
    await bar.getByText('Deleted: 2 done.').waitFor();
    t.same(
      [
        (await g.a.api('GET', '/api/users/1')).status,
        (await g.a.api('GET', '/api/users/2')).status,
        (await g.a.api('GET', '/api/users/3')).status,
      ],
      [404, 404, 200],
      'deleted, the third kept',
    );
    await bar.getByText('0 users selected').waitFor();
  });

  await t.test('terminals: a command queued on each selected, a protocol without it named', async (t) => {
    await mainNav(page)('Devices');
    const bar = page.getByRole('toolbar', { name: 'Selected terminals' });
    await bar.getByRole('button', { name: 'Select all shown' }).click();
    await bar.getByText('2 terminals selected').waitFor();
    await bar.getByLabel('Command').selectOption({ label: 'Open door' });
    await bar.getByRole('button', { name: 'Queue on selected' }).click();
    await bar.getByText('Open door queued: 1 done; not done: BULK2 (not on protocol 2.0.0).').waitFor();
    const queued = (sn: string) => g.a.api<{ total: number }>('GET', `/api/commands?sn=${sn}&command=door-open`).then((r) => r.body.total);
    t.same([await queued('BULK2'), await queued('BULK3')], [0, 1], 'the v3 terminal got it, the v2 one did not');
    await bar.getByLabel('Command').selectOption({ label: 'Fetch info' });
    await bar.getByRole('button', { name: 'Queue on selected' }).click();
    await bar.getByText('Fetch info queued: 2 done.').waitFor();
    const info = (await g.a.api<{ total: number }>('GET', '/api/commands?command=info')).body.total;
    t.equal(info, 2, 'one info command per terminal');
    await b.axe(t, page, 'devices (bulk)');
    await b.shot(page, 'devices-bulk');
  });
});
