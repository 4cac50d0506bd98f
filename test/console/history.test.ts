/**
 * The console's History page (issue #36 item 1) in a real browser against the real app: an area created on the
 * Areas page is the signed-in token's change; History lists it with a change made through the API before, newest
 * first, each with its fields, and the record filter narrows the list to areas.
 */
import t from 'tap';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { mainNav, signedIn } from './pages.js';

t.test('console: the History page in Chromium', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  const { url } = g;
  t.equal((await g.a.api('POST', '/api/users', { body: { pin: 7, first_name: 'Ada' } })).status, 201);

  const b = await openBrowser(t, () => url);
  const page = await signedIn(b, url, g.a.token);
  const nav = mainNav(page);
  await nav('Areas');
  const form = page.getByRole('form', { name: 'New area' });
  await form.getByLabel('Name').fill('Dock');
  await form.getByRole('button', { name: 'Create' }).click();
  await page.getByText('Area “Dock” created.').waitFor();

  await nav('History');
  await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
  t.equal(new URL(page.url()).pathname, '/console/history');
  const rows = page.getByRole('table', { name: 'Changes' }).locator('tr[data-action]');
  await rows.first().waitFor();
  const actions = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action')));
  t.same(actions.slice(0, 2), ['area.created', 'user.created'], 'newest first');
  const first = (await rows.first().innerText()).replace(/\s+/g, ' ');
  t.match(first, /token \d+/, 'the signed-in token made it');
  t.match(first, /name: — → Dock/, 'with what it set');
  await b.axe(t, page, 'history');

  await page.getByLabel('Records').selectOption('area');
  await page.locator('tr[data-action="user.created"]').waitFor({ state: 'detached' });
  t.same(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action'))), ['area.created'], 'only areas');
});
