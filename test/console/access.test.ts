/**
 * Schedules and access levels in the console, in a real browser against the real app: a weekday schedule typed into
 * the Schedules page is the one GET /api/schedules/{id} gives, a level over doors 1 and 3 made with it on the Access
 * levels page is the one the API gives, a user given the level on the users page lists it (GET /api/users/{pin}),
 * and deleting the schedule the level names is refused, in words. "Always" stays read-only; a read token sees the
 * lists without a way to change them.
 */
import t from 'tap';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { giveOnUsersPage, mainNav, countShown, readToken, signedIn } from './pages.js';

const PIN = 43;
const SCHEDULE = 'Office hours';
const LEVEL = 'Office doors';
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri'];
const HOURS = [
  { start: '08:30', end: '12:00' },
  { start: '13:00', end: '17:30' },
];

interface Schedule {
  id: number;
  name: string;
  days: Record<string, { start: string; end: string }[]>;
}
interface Level {
  id: number;
  name: string;
  schedule_id: number;
  doors: number[];
  area_id: number | null;
}

t.test('console: schedules and access levels in Chromium', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  const { url } = g;
  const api = g.a.api;
  t.equal((await api('POST', '/api/users', { body: { pin: PIN, first_name: 'Grace' } })).status, 201, 'a user');

  const b = await openBrowser(t, () => url);
  const page = await signedIn(b, url, g.a.token);
  const nav = mainNav(page);
  let scheduleId = 0;
  let levelId = 0;
  const scheduleRow = (id: number) => page.locator(`tr[data-schedule="${id}"]`);

  await t.test('the Schedules page shows "Always" read-only and creates a weekday schedule', async (t) => {
    await nav('Schedules');
    await page.getByRole('heading', { name: 'Schedules', level: 1 }).waitFor();
    t.equal(new URL(page.url()).pathname, '/console/schedules');
    await page.getByText('1 schedule.').waitFor();
    t.equal(await scheduleRow(1).locator('td.when').innerText(), 'Mon–Sun, Holiday 1–3 00:00–23:59', '"Always": every day, all day');
    t.equal(await scheduleRow(1).getByRole('button').count(), 0, '"Always" has no edit or delete');
    t.match(await scheduleRow(1).innerText(), /Built in: cannot be changed/, 'and says so');

    await page.getByRole('button', { name: 'New schedule' }).click();
    const form = page.getByRole('form', { name: 'New schedule' });
    await form.getByLabel('Name').fill(SCHEDULE);
    const slot = (day: string, n: number, end: string) => form.getByLabel(`${day}, interval ${n}, ${end}`, { exact: true });
    await slot('Monday', 1, 'start').fill('12:00');
    await slot('Monday', 1, 'end').fill('08:30');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByRole('alert').filter({ hasText: 'Monday, interval 1: the start must be before the end.' }).waitFor();
    for (const [n, { start, end }] of HOURS.entries()) {
      await slot('Monday', n + 1, 'start').fill(start);
      await slot('Monday', n + 1, 'end').fill(end);
    }
    await form.getByRole('button', { name: 'Copy Monday to Tuesday–Friday' }).click();
    t.equal(await slot('Friday', 2, 'end').inputValue(), '17:30', 'Monday copied to Friday');
    t.equal(await slot('Saturday', 1, 'start').inputValue(), '', 'not to Saturday');
    await b.axe(t, page, 'schedules (form)');
    await b.shot(page, 'schedules-form');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText(`Schedule “${SCHEDULE}” created.`).waitFor();

    const list = (await api<{ data: Schedule[]; total: number }>('GET', '/api/schedules')).body;
    t.equal(list.total, 2, 'the API lists "Always" and the new schedule');
    scheduleId = list.data.find((s) => s.name === SCHEDULE)?.id ?? 0;
    const stored = await api<Schedule>('GET', `/api/schedules/${scheduleId}`);
    t.equal(stored.status, 200, 'GET /api/schedules/{id}');
    const expected = Object.fromEntries(
      ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'holiday1', 'holiday2', 'holiday3'].map((d) => [
        d,
        WEEKDAYS.includes(d) ? HOURS : [],
      ]),
    );
    t.same(stored.body.days, expected, 'the API has the days typed: Monday to Friday, two intervals each');
    await scheduleRow(scheduleId).waitFor();
    t.equal(await scheduleRow(scheduleId).locator('td').first().innerText(), SCHEDULE, 'listed by name');
    t.equal(await scheduleRow(scheduleId).locator('td.when').innerText(), 'Mon–Fri 08:30–12:00, 13:00–17:30', 'summed up by week');
    await b.axe(t, page, 'schedules');
    await b.shot(page, 'schedules');
  });

  await t.test('the Access levels page creates a level over doors 1 and 3 with the schedule', async (t) => {
    await nav('Access levels');
    await page.getByRole('heading', { name: 'Access levels', level: 1 }).waitFor();
    t.equal(new URL(page.url()).pathname, '/console/access-levels');
    await page.getByText('0 access levels.').waitFor();
    await page.getByRole('button', { name: 'New access level' }).click();
    const form = page.getByRole('form', { name: 'New access level' });
    await form.getByLabel('Name').fill(LEVEL);
    await form.getByRole('combobox', { name: 'Schedule' }).selectOption({ label: SCHEDULE });
    await form.getByText(`${SCHEDULE}: Mon–Fri 08:30–12:00, 13:00–17:30`).waitFor();
    t.equal(await form.getByRole('combobox', { name: 'Area' }).inputValue(), '', 'every terminal by default');
    const doors = form.getByRole('group', { name: 'Doors' });
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByRole('alert').filter({ hasText: 'Choose at least one door.' }).waitFor();
    await doors.getByLabel('Door 1').check();
    await doors.getByLabel('Door 3').check();
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText(`Access level “${LEVEL}” created.`).waitFor();

    const list = (await api<{ data: Level[]; total: number }>('GET', '/api/access-levels')).body;
    t.equal(list.total, 1, 'the API lists one level');
    levelId = list.data[0]?.id ?? 0;
    const stored = (await api<Level>('GET', `/api/access-levels/${levelId}`)).body;
    t.match(stored, { name: LEVEL, schedule_id: scheduleId, doors: [1, 3], area_id: null }, 'the API has the level as typed');
    const row = page.locator(`tr[data-level="${levelId}"]`);
    await row.locator('td.schedule', { hasText: SCHEDULE }).waitFor();
    t.same(
      (await row.locator('td').allInnerTexts()).slice(0, 4),
      [LEVEL, SCHEDULE, '1, 3', 'Every terminal'],
      'the row: name, schedule, doors, every terminal',
    );
    await b.axe(t, page, 'access levels');
    await b.shot(page, 'access-levels');
  });

  await t.test('the users page gives the user the level', async (t) => {
    const o = { pin: PIN, group: 'Access levels', cell: 'td.levels', field: 'access_levels', name: LEVEL, id: levelId, what: 'level' };
    await giveOnUsersPage(t, b, page, api, { ...o, shot: 'users-levels' });
  });

  await t.test('deleting the schedule the level names is refused, in words', async (t) => {
    await nav('Schedules');
    await scheduleRow(scheduleId).waitFor();
    await page.getByRole('button', { name: `Delete schedule ${SCHEDULE}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/Type .* to confirm/).fill(SCHEDULE);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'was not deleted' });
    await alert.waitFor();
    t.equal(
      await alert.innerText(),
      `“${SCHEDULE}” was not deleted: access levels still use this schedule (“${LEVEL}”). Give each of them another schedule on the ` +
        'Access levels page, or delete them, then delete the schedule.',
      'the refusal names the level and says what to do',
    );
    t.match(
      (await api('DELETE', `/api/schedules/${scheduleId}`)).body,
      { code: 'SCHEDULE_IN_USE' },
      'the API refuses with SCHEDULE_IN_USE',
    );
    t.equal((await api('GET', `/api/schedules/${scheduleId}`)).status, 200, 'the schedule is still there');
    t.equal(await countShown(scheduleRow(scheduleId)), 1, 'still listed');
    await b.axe(t, page, 'schedules (in use)');
    await b.shot(page, 'schedules-in-use');
  });

  await t.test('a read token sees both lists and no way to change them', async (t) => {
    const p = await signedIn(b, url, (await readToken(g)).token);
    await p.goto(`${url}/console/schedules`);
    await p.locator(`tr[data-schedule="${scheduleId}"]`).waitFor();
    t.equal(await p.getByRole('button', { name: /schedule/i }).count(), 0, 'no new, edit or delete of a schedule');
    await p.goto(`${url}/console/access-levels`);
    await p.locator(`tr[data-level="${levelId}"] td.schedule`, { hasText: SCHEDULE }).waitFor();
    t.equal(await p.getByRole('button', { name: /access level/i }).count(), 0, 'no new, edit or delete of a level');
    t.same(p.problems, [], 'no off-site request, CSP violation or script error (read session)');
    await p.context().close();
  });

  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
