/**
 * Areas in the console, in a real browser against the real app: an area created and renamed on the Areas page,
 * a terminal put in it from its device page (PATCH /api/devices/{sn}), a user given it from the users page
 * (POST /api/users `areas`); the counts, the terminal's area and the user's areas the pages show are the ones the
 * API gives. Deleting the area is refused, in words, while the terminal is in it, and done once it is moved out.
 */
import t from 'tap';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { giveOnUsersPage, mainNav, countShown, signedIn } from './pages.js';

const SN = 'AREA-DOCK';
const PIN = 41;
const FIRST = 'Warehouse';
const AREA = 'Loading dock';

interface Area {
  id: number;
  name: string;
  devices_count: number;
  users_count: number;
}

t.test('console: areas in Chromium', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  const { url } = g;
  const api = g.a.api;
  t.equal((await api('POST', '/api/users', { body: { pin: PIN, first_name: 'Ada' } })).status, 201, 'a user');
  t.equal((await api('POST', '/api/devices', { body: { sn: SN, name: 'Dock door' } })).status, 201, 'a terminal');
  const areas = async () => (await api<{ data: Area[]; total: number }>('GET', '/api/areas')).body;
  const deviceArea = async () => (await api<{ area: { id: number; name: string } | null }>('GET', `/api/devices/${SN}`)).body.area;

  const b = await openBrowser(t, () => url);
  const page = await signedIn(b, url, g.a.token);
  const nav = mainNav(page);
  let id = 0;
  const row = () => page.locator(`tr[data-area="${id}"]`);

  await t.test('the Areas page creates and renames an area', async (t) => {
    await nav('Areas');
    await page.getByRole('heading', { name: 'Areas', level: 1 }).waitFor();
    t.equal(new URL(page.url()).pathname, '/console/areas');
    await page.getByText('0 areas.').waitFor();
    const form = page.getByRole('form', { name: 'New area' });
    await form.getByLabel('Name').fill(FIRST);
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByText(`Area “${FIRST}” created.`).waitFor();
    const list = await areas();
    t.match(list, { total: 1, data: [{ name: FIRST, devices_count: 0, users_count: 0 }] }, 'the API lists it, empty');
    id = list.data[0]?.id ?? 0;
    await row().waitFor();
    t.equal(await row().locator('td').first().innerText(), FIRST, 'listed by name');

    await page.getByRole('button', { name: `Rename area ${FIRST}` }).click();
    const rename = page.getByRole('form', { name: `Rename area “${FIRST}”` });
    await rename.getByLabel('Name').fill(AREA);
    await rename.getByRole('button', { name: 'Save' }).click();
    await page.getByText(`Area “${FIRST}” renamed to “${AREA}”.`).waitFor();
    t.equal((await api<Area>('GET', `/api/areas/${id}`)).body.name, AREA, 'the API has the new name');
    await row().getByRole('cell', { name: AREA, exact: true }).waitFor();
    t.equal(await row().locator('td').first().innerText(), AREA, 'the list shows it');
    for (const key of ['devices', 'users']) t.equal(await row().locator(`td[data-count="${key}"]`).innerText(), '0', `no ${key}`);
    await b.axe(t, page, 'areas');
    await b.shot(page, 'areas');
  });

  await t.test('the device page puts the terminal in the area', async (t) => {
    await page.goto(`${url}/console/devices/${SN}`);
    await page.getByRole('heading', { name: 'Dock door', level: 1 }).waitFor();
    const section = page.getByRole('region', { name: 'Area', exact: true });
    const shown = section.locator('.device-area');
    t.match(await shown.innerText(), /^No area: it receives every active user\.$/, 'no area at first');
    t.equal(await deviceArea(), null, 'as the API says');
    await section.getByRole('combobox', { name: /^Area/ }).selectOption({ label: AREA });
    await section.getByRole('button', { name: 'Save area' }).click();
    await section.getByText(`Moved to area “${AREA}”.`).waitFor();
    t.same(await deviceArea(), { id, name: AREA }, 'the API has the terminal in the area');
    t.equal(await shown.getAttribute('data-area'), String(id), 'the page shows that area');
    t.match(await shown.innerText(), new RegExp(`^In area ${AREA}: it receives only the users given this area\\.$`), 'in words');

    await page.reload();
    await page.getByRole('heading', { name: 'Dock door', level: 1 }).waitFor();
    await section.locator(`.device-area[data-area="${id}"]`).waitFor();
    t.equal(await section.getByRole('combobox', { name: /^Area/ }).inputValue(), String(id), 'loaded again, the select holds the area');
    t.equal(await section.getByRole('button', { name: 'Save area' }).isDisabled(), true, 'nothing to save');
    await b.axe(t, page, 'device (area)');
    await b.shot(page, 'device-area');
  });

  await t.test('the users page gives the user the area', async (t) => {
    const o = { pin: PIN, group: 'Areas', cell: 'td.areas', field: 'areas', name: AREA, id, what: 'area', shot: 'users-areas' };
    await giveOnUsersPage(t, b, page, api, o);
  });

  await t.test('the Areas page counts the terminal and the user as the API does', async (t) => {
    await nav('Areas');
    await row().waitFor();
    const area = (await api<Area>('GET', `/api/areas/${id}`)).body;
    t.match(area, { devices_count: 1, users_count: 1 }, 'the API counts one terminal and one user');
    t.equal(await row().locator('td[data-count="devices"]').innerText(), String(area.devices_count), 'terminals as the API says');
    t.equal(await row().locator('td[data-count="users"]').innerText(), String(area.users_count), 'users as the API says');
  });

  const remove = async () => {
    await page.getByRole('button', { name: `Delete area ${AREA}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/Type .* to confirm/).fill(AREA);
    await dialog.getByRole('button', { name: 'Delete' }).click();
  };

  await t.test('deleting is refused, in words, while the terminal is in the area', async (t) => {
    await remove();
    const alert = page.getByRole('alert').filter({ hasText: 'was not deleted' });
    await alert.waitFor();
    t.equal(
      await alert.innerText(),
      `“${AREA}” was not deleted: terminals are still in this area. Move each of them to another area, or to “No area (every user)”, ` +
        'on its device page, then delete the area.',
      'the refusal says why and what to do',
    );
    t.equal((await api('GET', `/api/areas/${id}`)).status, 200, 'the area is still there');
    t.match((await api('DELETE', `/api/areas/${id}`)).body, { code: 'AREA_IN_USE' }, 'the API refuses with AREA_IN_USE');
    t.equal(await countShown(row()), 1, 'still listed');
    await b.axe(t, page, 'areas (in use)');
    await b.shot(page, 'areas-in-use');
  });

  await t.test('moved out of it, the terminal receives every user and the area can be deleted', async (t) => {
    await page.goto(`${url}/console/devices/${SN}`);
    const section = page.getByRole('region', { name: 'Area', exact: true });
    await section.locator(`.device-area[data-area="${id}"]`).waitFor();
    await section.getByRole('combobox', { name: /^Area/ }).selectOption({ label: 'No area (every user)' });
    await section.getByRole('button', { name: 'Save area' }).click();
    await section.getByText('Moved out of its area: it receives every active user.').waitFor();
    t.equal(await deviceArea(), null, 'the API has the terminal in no area');
    t.equal(await section.locator('.device-area').getAttribute('data-area'), '', 'the page shows no area');

    await nav('Areas');
    await row().waitFor();
    await remove();
    await page.getByText(`Area “${AREA}” deleted.`).waitFor();
    t.equal((await api('GET', `/api/areas/${id}`)).status, 404, 'the API has it no more');
    await page.getByText('0 areas.').waitFor();
    t.equal(await row().count(), 0, 'the list has it no more');
  });

  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
