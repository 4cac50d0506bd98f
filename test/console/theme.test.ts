/**
 * The console's dark theme (issue #38 item 7), in Chromium against the real app: the browser's preference decides
 * until the header's switch is used; the choice survives a reload (localStorage, never the token); and axe-core finds
 * no serious or critical violation (contrast among them) on the main pages in either theme.
 */
import t from 'tap';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser, pageUntil } from './browser.js';
import { mainNav, signedIn } from './pages.js';

const PAGES = ['Devices', 'Users', 'Commands', 'Attendance', 'Sync'] as const;

t.test('console themes: system preference, the switch, AA contrast in both', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  t.equal((await g.a.api('POST', '/api/devices', { body: { sn: 'THEME1' } })).status, 201);
  t.equal((await g.a.api('POST', '/api/users', { body: { pin: 7, first_name: 'Dana' } })).status, 201);
  t.equal((await g.a.api('POST', '/api/commands', { body: { sn: 'THEME1', command: 'info' } })).status, 201);
  const b = await openBrowser(t, () => g.url);
  const page = await signedIn(b, g.url, g.a.token);
  const theme = () => page.evaluate('document.documentElement.dataset.theme');
  /** The theme once it reads `want` (a media change reaches the page's listener a moment later), else what it reads. */
  const themeBecomes = async (want: string) => {
    await pageUntil(page, `document.documentElement.dataset.theme === ${JSON.stringify(want)}`, 5_000);
    return theme();
  };
  const background = () => page.evaluate('getComputedStyle(document.documentElement).backgroundColor');
  const go = mainNav(page);

  await page.emulateMedia({ colorScheme: 'dark' });
  t.equal(await themeBecomes('dark'), 'dark', 'System follows the browser: dark');
  t.equal(await background(), 'rgb(15, 20, 26)', 'the dark palette is in use');
  await page.emulateMedia({ colorScheme: 'light' });
  t.equal(await themeBecomes('light'), 'light', 'and back to light when the browser changes');
  t.equal(await background(), 'rgb(247, 248, 250)');

  for (const scheme of ['dark', 'light'] as const) {
    await page.getByLabel('Theme', { exact: true }).selectOption(scheme);
    t.equal(await theme(), scheme, `the switch chooses ${scheme}`);
    for (const name of PAGES) {
      await go(name);
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      await b.axe(t, page, `${name} (${scheme})`);
    }
    await b.shot(page, `theme-${scheme}`);
  }

  await page.getByLabel('Theme', { exact: true }).selectOption('dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.reload();
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  t.equal(await theme(), 'dark', 'a chosen theme outlives a reload and the browser preference');
  t.equal(await page.evaluate("localStorage.getItem('biogate.console.theme')"), 'dark', 'kept in localStorage');
  t.notMatch(String(await page.evaluate('JSON.stringify(localStorage)')), g.a.token, 'which never holds the token');
  await page.getByLabel('Theme', { exact: true }).selectOption('system');
  t.equal(await page.evaluate('localStorage.length'), 0, 'System clears the choice');
  t.equal(await themeBecomes('light'), 'light', 'and follows the browser again');
});
