/**
 * The console's door and alarm monitor (issue #38 item 7), in Chromium against the real app and a simulated Security
 * PUSH (v3) terminal posting rtlog as its firmware does: the events listed newest first with the terminal's name and
 * what each code means, a new alarm appearing on top without a reload, the kind filter, axe-core clean.
 */
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser, pageUntil } from './browser.js';
import { mainNav, signedIn } from './pages.js';

const SN = 'DOORS1';

t.test('doors and alarms: listed, live, filtered', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  t.equal((await g.a.api('POST', '/api/devices', { body: { sn: SN, name: 'Front entrance' } })).status, 201);
  const sim = createSimulatedDevice({ url: g.url, sn: SN, protocol: 'v3', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();
  const post = async (line: string) => {
    const res = await fetch(`${g.url}/iclock/cdata?SN=${SN}&table=rtlog`, {
      method: 'POST',
      headers: { cookie: `token=${sim.session().token ?? ''}`, 'content-type': 'text/plain' },
      body: `${line}\n`,
    });
    return { status: res.status, text: await res.text() };
  };
  const verified = 'time=2026-03-01 09:00:05\tpin=1001\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=1\tverifytype=15\tindex=12';
  t.same(await post(verified), { status: 200, text: 'OK' }, 'the terminal reports a verified opening');

  const b = await openBrowser(t, () => g.url);
  const page = await signedIn(b, g.url, g.a.token);
  await mainNav(page)('Doors');
  await page.getByRole('heading', { name: 'Doors and alarms', level: 1 }).waitFor();
  const rows = page.locator('main table tbody tr');
  await rows.first().waitFor();
  const first = await rows.first().locator('td').allTextContents();
  t.equal(first[1], 'Front entrance', 'the terminal by its name');
  t.equal(first[2], '1', 'the door');
  t.equal(first[5], '1001', 'who');
  await page.getByText('Live: new events appear at the top.').waitFor();
  await b.axe(t, page, 'doors');

  const alarm = 'time=2026-03-01 09:01:00\tpin=0\tcardno=0\teventaddr=2\tevent=102\tinoutstatus=0\tverifytype=0\tindex=14';
  t.same(await post(alarm), { status: 200, text: 'OK' }, 'then an alarm');
  await page.locator('main table tbody tr').first().getByText('Alarm').waitFor({ timeout: 10_000 });
  const top = await rows.first().locator('td').allTextContents();
  t.equal(top[2], '2', 'the alarm is on top, without a reload, with its door');
  t.equal(await rows.count(), 2, 'above the earlier event');

  await page.getByLabel('Kind').selectOption('alarm');
  const onlyAlarm = `(() => { const r = document.querySelectorAll('main table tbody tr');
    return r.length === 1 && r[0].querySelectorAll('td')[3].textContent === 'Alarm'; })()`;
  t.ok(await pageUntil(page, onlyAlarm), 'the filter keeps the alarms, and only them');
  await b.shot(page, 'doors');
});
