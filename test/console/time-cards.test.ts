/**
 * The Time cards page in a real browser against the real app: the cards it shows for a day are the ones
 * GET /api/attendance/daily gives (first in, last out, worked time, an incomplete day named), the area filter keeps
 * the area's users, the page states the location's day start and debounce, and the CSV export saves exactly what
 * /api/attendance/daily.csv serves for the filter on screen.
 */
import { readFile } from 'node:fs/promises';
import t from 'tap';
import type { NewAttendance } from '../../src/store/ports/index.js';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { mainNav, signedIn } from './pages.js';

const DAY = '2026-03-02';
const punch = (locationId: number, pin: string, time: string, status: number): NewAttendance => ({
  location_id: locationId,
  sn: 'CARDS-1',
  pin,
  user_id: null,
  timestamp: `${DAY}T${time}.000Z`,
  local_time: `${DAY} ${time}`,
  status,
  verify: 1,
  work_code: null,
});

t.test('console: time cards in Chromium', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  const { url, a, started } = g;
  const warehouse = (await a.api<{ id: number }>('POST', '/api/areas', { body: { name: 'Warehouse' } })).body.id;
  t.equal((await a.api('POST', '/api/users', { body: { pin: 11, first_name: 'Ada', areas: [warehouse] } })).status, 201);
  t.equal((await a.api('POST', '/api/users', { body: { pin: 12, first_name: 'Bo' } })).status, 201);
  await started.app.store.attendance.record(
    [punch(a.id, '11', '08:00:00', 0), punch(a.id, '11', '16:45:00', 1), punch(a.id, '12', '09:00:00', 0)],
    new Date().toISOString(),
  );

  const b = await openBrowser(t, () => url);
  const page = await signedIn(b, url, a.token);
  await mainNav(page)('Time cards');
  await page.getByRole('heading', { name: 'Time cards', level: 1 }).waitFor();
  t.equal(new URL(page.url()).pathname, '/console/time-cards');
  t.match(await page.locator('p.lead').first().innerText(), /A day starts at 00:00; a punch within 60 s/, 'the location’s settings');

  await page.getByLabel('From (day)').fill(DAY);
  await page.getByLabel('To (day)').fill(DAY);
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('2 time cards.').waitFor();
  const row = (pin: string) => page.locator(`tr[data-card="${DAY}:${pin}"]`);
  t.same(
    await row('11').locator('td').allInnerTexts(),
    [DAY, '11', 'Ada', '08:00', '16:45', '8:45', '2', ''],
    'a full day: 8 h 45 min, as the API says',
  );
  t.match(await row('12').locator('td.note').innerText(), /Incomplete/, 'a day with a check-in only is named incomplete');
  const api = await a.api<{ data: { pin: string; worked_minutes: number }[] }>('GET', `/api/attendance/daily?from=${DAY}&to=${DAY}`);
  t.same(
    api.body.data.map((c) => [c.pin, c.worked_minutes]),
    [
      ['11', 525],
      ['12', 0],
    ],
  );

  await page.getByLabel('Area').selectOption({ label: 'Warehouse' });
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('1 time card.').waitFor();
  const [download, req] = await Promise.all([
    page.waitForEvent('download'),
    page.waitForRequest((r) => r.url().includes('/api/attendance/daily.csv')),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  const exportUrl = new URL(req.url());
  t.equal(exportUrl.searchParams.get('area_id'), String(warehouse), 'the filter on screen');
  const saved = await readFile((await download.path()) as string, 'utf8');
  t.equal(saved, (await a.api<string>('GET', `/api/attendance/daily.csv${exportUrl.search}`)).body, 'the file is what the API serves');
  t.match(saved, /\r\n11,Ada,2026-03-02,2026-03-02T08:00:00\+00:00,2026-03-02T16:45:00\+00:00,2,525,false,device\r\n$/);
  await b.axe(t, page, 'time cards');
  await b.shot(page, 'time-cards');
  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
