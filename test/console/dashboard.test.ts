/**
 * The console's dashboard (issue #38 item 7), in Chromium against the real app and simulated terminals: terminals
 * online of all, punches today (the tile, the uPlot chart on a canvas, its sentence and its table), open alerts, roster
 * sync, the latest alarms by terminal name; a new punch shows without a reload. axe-core
 * clean in both themes.
 */
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser, pageUntil } from './browser.js';
import { mainNav, countShown, signedIn } from './pages.js';

t.test('dashboard: the location at a glance, live', { skip: NO_BROWSER }, async (t) => {
  // The chart is of today in the location's zone (UTC): punches made now must fall on the day the page shows.
  const untilMidnight = 86_400_000 - (Date.now() % 86_400_000);
  if (untilMidnight < 60_000) await new Promise((resolve) => setTimeout(resolve, untilMidnight + 1_000));
  const g = await gateway(t);
  t.equal((await g.a.api('POST', '/api/devices', { body: { sn: 'DASH1', name: 'Lobby' } })).status, 201);
  t.equal((await g.a.api('POST', '/api/devices', { body: { sn: 'DASH2', name: 'Dock' } })).status, 201);
  const sim = createSimulatedDevice({ url: g.url, sn: 'DASH1', protocol: 'v3', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();
  for (let i = 0; i < 3; i++) t.ok(await sim.punch(String(1001 + i), new Date(Date.now() - 5_000 + i * 1_000)), `punch ${i + 1}`);
  const alarm = `time=2026-03-01 09:01:00\tpin=0\tcardno=0\teventaddr=2\tevent=102\tinoutstatus=0\tverifytype=0\tindex=14`;
  const posted = await fetch(`${g.url}/iclock/cdata?SN=DASH1&table=rtlog`, {
    method: 'POST',
    headers: { cookie: `token=${sim.session().token ?? ''}`, 'content-type': 'text/plain' },
    body: `${alarm}\n`,
  });
  t.equal(posted.status, 200, 'the terminal reports an alarm');

  const b = await openBrowser(t, () => g.url);
  const page = await signedIn(b, g.url, g.a.token);
  await mainNav(page)('Dashboard');
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  await page.getByText('Live.').waitFor();
  await page.evaluate('window.__noReload = true');
  const tile = (name: string) => page.locator(`dd[data-tile="${name}"]`);
  await pageUntil(page, `document.querySelector('dd[data-tile="online"]')?.textContent === '1 of 2'`, 15_000);
  t.equal(await tile('online').innerText(), '1 of 2', 'terminals online of all');
  t.equal(await tile('punches').innerText(), '3', 'punches today');
  t.equal(await tile('alerts').innerText(), '0', 'no open alert');
  t.match(await tile('sync').innerText(), /in sync/, 'roster sync');
  t.equal(await countShown(page.locator('figure.chart canvas')), 1, 'the chart, drawn on a canvas');
  const sentence = 'figure.chart [role="img"]';
  t.match(await page.locator(sentence).getAttribute('aria-label'), /^3 punches today; the busiest hour is \d\d:00 with 3\.$/);
  const hour = `${String(new Date().getUTCHours()).padStart(2, '0')}:00`;
  const row = page.locator('figure.chart tbody tr', { hasText: hour });
  t.equal(await row.locator('td').nth(1).textContent(), '3', 'the table under the chart has the numbers');
  t.match(await page.locator('ul.alarms').innerText(), /at Lobby, door 2/, 'the alarm, by terminal name and door');
  for (const theme of ['light', 'dark'] as const) {
    await page.getByLabel('Theme', { exact: true }).selectOption(theme);
    await b.axe(t, page, `dashboard (${theme})`);
  }
  await b.shot(page, 'dashboard');

  t.ok(await sim.punch('1004', new Date()), 'a fourth punch');
  t.ok(await pageUntil(page, `document.querySelector('dd[data-tile="punches"]')?.textContent === '4'`, 15_000), 'counted live');
  t.equal(await page.evaluate('window.__noReload'), true, 'no reload');
});
