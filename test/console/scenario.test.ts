/**
 * Scenarios in the console (issue #36 item 3), in a real browser against the real app: a lockdown started through
 * the API shows under the header on every page of the location, and a full token releases it from there; an
 * evacuation started from the Commands page (typed confirmation) is in force for the API and shows at once.
 */
import t from 'tap';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { signedIn } from './pages.js';

t.test('console: the lockdown banner, released from the console', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t, { config: { longpollS: 0 } });
  const { url } = g;
  t.equal((await g.a.api('POST', '/api/devices', { body: { sn: 'BANNER-1' } })).status, 201);
  const b = await openBrowser(t, () => url);
  const page = await signedIn(b, url, g.a.token);
  t.equal(await page.locator('.scenario').count(), 0, 'no banner while nothing is in force');

  t.equal((await g.a.api('POST', '/api/scenarios/lockdown')).status, 201);
  await page.goto(`${url}/console/users`);
  const banner = page.getByRole('alert').filter({ hasText: 'Lockdown in force' });
  await banner.waitFor();
  t.match(await banner.innerText(), /doors are locked and normal-open schedules are suspended/);
  await b.axe(t, page, 'users (lockdown banner)');

  await banner.getByRole('button', { name: 'Release lockdown' }).click();
  await page.locator('.scenario').waitFor({ state: 'detached' });
  t.match(await g.a.api('GET', '/api/me'), { body: { scenario: null } }, 'released through the API');

  await page.goto(`${url}/console/commands`);
  const controls = page.getByRole('region', { name: 'Every door at once' });
  await controls.getByRole('button', { name: 'Evacuate: open every door' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('textbox').fill('EVACUATE');
  await dialog.getByRole('button', { name: 'Evacuate: open every door' }).click();
  await page.getByRole('alert').filter({ hasText: 'Evacuation in force' }).waitFor();
  t.match(await controls.getByRole('status').innerText(), /evacuate started: command \d+ queued for 1 terminal/);
  t.match(await g.a.api('GET', '/api/me'), { body: { scenario: { name: 'evacuate' } } }, 'in force for the API');
  await b.axe(t, page, 'commands (scenario controls)');
  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
