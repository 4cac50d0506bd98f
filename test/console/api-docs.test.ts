/**
 * /api/docs in a real browser (issue #38 item 6): the API reference renders from BioGate alone: no request to
 * another host (not even the renderer's logo), no CSP violation, no script error; and axe-core finds no serious or
 * critical violation: AA contrast (Redoc's theme and section labels), named drop-downs, reachable scrolling tables.
 */
import t from 'tap';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';

t.test('the API reference: fully offline', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  const b = await openBrowser(t, () => g.url);
  const page = await b.page();
  await page.goto(`${g.url}/api/docs`);
  await page
    .getByRole('heading', { name: /BioGate/ })
    .first()
    .waitFor({ timeout: 30_000 });
  // Redoc draws its menu and footer after the document; give its late images a moment to be asked for.
  await page.waitForLoadState('networkidle');
  t.same(page.problems, [], 'nothing is fetched from elsewhere, no CSP violation, no script error');
  // The accessibility addendum runs 200 ms after Redoc's last render.
  await page.locator('redoc select[aria-label]').first().waitFor({ state: 'attached', timeout: 10_000 });
  await page.waitForTimeout(500);
  await b.axe(t, page, '/api/docs');
  // The first screen only: the whole reference is tens of thousands of pixels tall, and a loaded machine
  // took over 30 s to capture it.
  await b.shot(page, 'api-docs', false);
});
