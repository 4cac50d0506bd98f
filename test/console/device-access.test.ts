/**
 * A terminal's access on its console page, in a real browser against the real app: whether it can enforce schedules
 * (`access_control`), the access levels that apply to it (every terminal's and its area's, not another area's), and
 * its doors: door 1 edited on the page is what GET /api/devices/{sn}/doors gives, an unlock time beyond 254 s is
 * refused by the form, and a read token sees the doors without a way to change them.
 */
import t from 'tap';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { readToken, signedIn } from './pages.js';

const SN = 'ACCESS-LOBBY';

interface Door {
  door: number;
  unlock_seconds: number | null;
  normal_open_schedule_id: number | null;
}

t.test('console: a terminal’s access and doors in Chromium', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  const { url } = g;
  const api = g.a.api;
  const created = async (path: string, body: unknown) => {
    const r = await api<{ id: number }>('POST', path, { body });
    t.equal(r.status, 201, `POST ${path}`);
    return r.body.id;
  };
  const lobby = await created('/api/areas', { name: 'Lobby' });
  const dock = await created('/api/areas', { name: 'Dock' });
  t.equal((await api('POST', '/api/devices', { body: { sn: SN, name: 'Lobby door', area_id: lobby } })).status, 201, 'a terminal');
  const hours = await created('/api/schedules', { name: 'Office hours', days: { mon: [{ start: '08:00', end: '18:00' }] } });
  await created('/api/access-levels', { name: 'Everyone, front', schedule_id: 1, doors: [1], area_id: null });
  await created('/api/access-levels', { name: 'Lobby staff', schedule_id: hours, doors: [1], area_id: lobby });
  await created('/api/access-levels', { name: 'Dock crew', schedule_id: 1, doors: [1], area_id: dock });
  const doors = async () => (await api<{ data: Door[] }>('GET', `/api/devices/${SN}/doors`)).body.data;

  const b = await openBrowser(t, () => url);
  const page = await signedIn(b, url, g.a.token);
  const section = page.getByRole('region', { name: 'Access', exact: true });

  await t.test('the page says what the terminal enforces and which levels apply to it', async (t) => {
    await page.goto(`${url}/console/devices/${SN}`);
    await page.getByRole('heading', { name: 'Lobby door', level: 1 }).waitFor();
    const device = (await api<{ access_control: { schedules: boolean } }>('GET', `/api/devices/${SN}`)).body;
    t.equal(device.access_control.schedules, false, 'a terminal never seen enforces no schedule (API)');
    t.equal(await section.locator('.access-control').getAttribute('data-schedules'), 'false', 'nor on the page');
    t.match(await section.locator('.access-control').innerText(), /cannot enforce schedules/, 'in words');
    await section.locator('tr[data-level]').first().waitFor();
    const names = await section.locator('tr[data-level] td:first-child').allInnerTexts();
    t.same(names.sort(), ['Everyone, front', 'Lobby staff'], 'every terminal’s level and its area’s, not the dock’s');
  });

  await t.test('door 1 edited on the page is the one the API gives', async (t) => {
    const row = section.locator('tr[data-door="1"]');
    t.equal(await row.locator('td.unlock').innerText(), 'Terminal default', 'not set by BioGate yet');
    await row.getByRole('button', { name: 'Edit door 1' }).click();
    const form = section.getByRole('form', { name: 'Door 1' });
    const seconds = form.getByLabel('Unlock time (seconds)');
    await seconds.fill('300');
    await form.getByRole('button', { name: 'Save' }).click();
    t.equal(
      await seconds.evaluate((el) => (el as unknown as { validity: { rangeOverflow: boolean } }).validity.rangeOverflow),
      true,
      'beyond 254 s is refused by the form',
    );
    t.same(await doors(), [{ door: 1, unlock_seconds: null, normal_open_schedule_id: null }], 'and nothing stored');
    await seconds.fill('8');
    await form.getByLabel('Kept open during').selectOption({ label: 'Office hours' });
    await b.axe(t, page, 'device (doors form)');
    await form.getByRole('button', { name: 'Save' }).click();
    await section.getByText('Door 1 saved.').waitFor();
    t.same(await doors(), [{ door: 1, unlock_seconds: 8, normal_open_schedule_id: hours }], 'the API has the settings');
    await row.locator('td.unlock', { hasText: '8 s' }).waitFor();
    t.equal(await row.locator('td.keep-open').innerText(), 'Office hours', 'the page shows them');
    await b.axe(t, page, 'device (access)');
    await b.shot(page, 'device-access');
  });

  await t.test('a read token sees the doors, not a way to change them', async (t) => {
    const p = await signedIn(b, url, (await readToken(g)).token);
    await p.goto(`${url}/console/devices/${SN}`);
    const s = p.getByRole('region', { name: 'Access', exact: true });
    await s.locator('tr[data-door="1"] td.unlock', { hasText: '8 s' }).waitFor();
    t.equal(await s.getByRole('button', { name: /Edit door/ }).count(), 0, 'no edit');
    t.same(p.problems, [], 'no off-site request, CSP violation or script error (read session)');
    await p.context().close();
  });

  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
