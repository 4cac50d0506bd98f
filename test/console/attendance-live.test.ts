/**
 * The console's attendance page live and by name (issue #38 item 7), in Chromium against the real app and a simulated
 * terminal: a punch appears on top without a reload, with the person's name and the terminal's name (PIN and serial
 * beside them); a PIN without a user stays a PIN; a record voided through the API is marked where it is shown; a punch
 * outside the filter on screen stays off it. axe-core clean in both themes.
 */
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser, pageUntil } from './browser.js';
import { mainNav, signedIn } from './pages.js';

const SN = 'LIVEATT1';

t.test('attendance: live, with names, voids marked, the filter kept', { skip: NO_BROWSER }, async (t) => {
  // The page shows today (UTC, the location's zone); punches made now must fall in the same day as the page.
  const untilMidnight = 86_400_000 - (Date.now() % 86_400_000);
  if (untilMidnight < 60_000) await new Promise((resolve) => setTimeout(resolve, untilMidnight + 1_000));
  const g = await gateway(t);
  t.equal((await g.a.api('POST', '/api/users', { body: { pin: 1001, first_name: 'Dana', last_name: 'Ruiz' } })).status, 201);
  t.equal((await g.a.api('POST', '/api/devices', { body: { sn: SN, name: 'Main gate' } })).status, 201);
  const sim = createSimulatedDevice({ url: g.url, sn: SN, protocol: 'v2', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();

  const b = await openBrowser(t, () => g.url);
  const page = await signedIn(b, g.url, g.a.token);
  await mainNav(page)('Attendance');
  await page.getByRole('heading', { name: 'Attendance', level: 1 }).waitFor();
  await page.getByText('Live: new punches appear at the top.').waitFor();
  await page.evaluate('window.__noReload = true');
  const rows = page.locator('main table tbody tr');
  const cells = async (i: number) => (await rows.nth(i).locator('td').allTextContents()).slice(1, 3);

  t.ok(await sim.punch('1001', new Date(Date.now() - 2_000)), 'Dana punches');
  await page.getByText('1 record.', { exact: true }).waitFor({ timeout: 10_000 });
  t.same(await cells(0), ['Dana Ruiz · 1001', 'Main gate · ' + SN], 'by name, PIN and serial beside');
  t.ok(await sim.punch('2002', new Date()), 'a PIN without a user punches');
  await page.getByText('2 records.').waitFor({ timeout: 10_000 });
  t.same(await cells(0), ['2002', 'Main gate · ' + SN], 'on top, the PIN alone');
  t.equal(await page.evaluate('window.__noReload'), true, 'no reload');

  const stored = (await g.a.api<{ data: { id: number; pin: string }[] }>('GET', '/api/attendance?pin=1001')).body.data;
  t.equal((await g.a.api('POST', `/api/attendance/${stored[0]?.id}/void`, { body: { reason: 'badge lent' } })).status, 200);
  await page.locator(`tr[data-id="${stored[0]?.id}"]`).getByText('(voided)').waitFor({ timeout: 10_000 });
  t.pass('the voided record is marked in place');
  for (const theme of ['light', 'dark'] as const) {
    await page.getByLabel('Theme', { exact: true }).selectOption(theme);
    await b.axe(t, page, `attendance live (${theme})`);
  }
  await b.shot(page, 'attendance-live');

  await page.getByLabel('PIN').fill('2002');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('1 record.', { exact: true }).waitFor();
  t.ok(await sim.punch('1001', new Date()), 'Dana punches again');
  await sim.punch('2002', new Date());
  await page.getByText('2 records.').waitFor({ timeout: 10_000 });
  t.ok(
    await pageUntil(
      page,
      `[...document.querySelectorAll('main table tbody tr')].every((r) => r.querySelectorAll('td')[1].textContent === '2002')`,
    ),
    'only the filtered PIN arrives',
  );
});
