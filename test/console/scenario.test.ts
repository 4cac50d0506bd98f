/**
 * The scenario banner (issue #36 item 3) in a real browser against the real app: a lockdown started through the
 * API shows under the header on every page of the location, and a full token releases it from there.
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
  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
