/**
 * The console on a phone (issue #38 item 7), in Chromium at 375 × 740 against the real app: tables reflow into one
 * card per row, each value under its column's name, so no page scrolls sideways; axe-core stays clean.
 */
import t from 'tap';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { mainNav, signedIn } from './pages.js';

const PAGES = ['Users', 'Commands', 'Attendance', 'Devices', 'Sync'] as const;

t.test('console on a phone: tables reflow, nothing scrolls sideways', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  t.equal((await g.a.api('POST', '/api/devices', { body: { sn: 'PHONE-TERMINAL-0001' } })).status, 201);
  for (const pin of [1, 2, 3])
    t.equal(
      (await g.a.api('POST', '/api/users', { body: { pin, first_name: `Person${pin}`, last_name: 'With-A-Rather-Long-Family-Name' } }))
        .status,
      201,
    );
  t.equal((await g.a.api('POST', '/api/commands', { body: { sn: 'PHONE-TERMINAL-0001', command: 'info' } })).status, 201);
  // An hour ago in UTC (the location's zone): on the attendance page's default day, unless that is just past midnight.
  const when = new Date(Date.now() - 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
  const punch = { pin: 1, timestamp: when, reason: 'forgot the badge at home again today' };
  t.equal((await g.a.api('POST', '/api/attendance', { body: punch })).status, 201);

  const b = await openBrowser(t, () => g.url);
  const page = await signedIn(b, g.url, g.a.token);
  await page.setViewportSize({ width: 375, height: 740 });
  const go = mainNav(page);
  for (const name of PAGES) {
    await go(name);
    await page.getByRole('heading', { name, level: 1 }).waitFor();
    await page.waitForTimeout(300);
    const wide = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
    t.ok(wide <= 0, `${name}: nothing wider than the screen (${wide} px over)`);
    const cells = (await page.evaluate(`Array.from(document.querySelectorAll('main table tbody td')).map((td) => ({
      label: td.getAttribute('data-label'),
      before: getComputedStyle(td, '::before').content,
      display: getComputedStyle(td).display,
      span: td.colSpan,
    }))`)) as { label: string | null; before: string; display: string; span: number }[];
    if (name === 'Users' || name === 'Commands') t.ok(cells.length > 0, `${name}: a table with rows`);
    for (const c of cells.filter((c) => c.span === 1)) {
      t.equal(c.display, 'block', `${name}: a cell is a line of its row's card`);
      t.equal(c.before, JSON.stringify(c.label), `${name}: the cell shows its column's name (${c.label})`);
    }
    await b.axe(t, page, `${name} (phone)`);
    await b.shot(page, `phone-${name.toLowerCase()}`);
  }
});
