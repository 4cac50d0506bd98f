/**
 * The console's Alerts page (issue #36 item 4) in a real browser against the real app: a rule created with the
 * form (its kind's parameter given, the others defaulted), its open incident shown once the alerts job's round
 * raised it, and the rule deleted.
 */
import t from 'tap';
import { evaluateAlerts } from '../../src/alerts/evaluate.js';
import { createLogger } from '../../src/log.js';
import { client } from '../api/client.js';
import { fakeClock, startApp } from '../helpers/app.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { mainNav, signedIn } from './pages.js';

t.test('console: the Alerts page in Chromium', { skip: NO_BROWSER }, async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const app = await startApp(t, { clock });
  const api = client(app.url, app.token);
  t.equal((await api('POST', '/api/devices', { body: { sn: 'QUIET-1' } })).status, 201);

  const b = await openBrowser(t, () => app.url);
  const page = await signedIn(b, app.url, app.token);
  await mainNav(page)('Alerts');
  await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
  await page.getByText('No alert rule yet.').waitFor();
  const form = page.getByRole('form', { name: 'New alert rule' });
  await form.getByLabel('Name').fill('Quiet terminals');
  await form.getByLabel('Condition').selectOption('device_offline');
  await form.getByLabel('Minutes').fill('3');
  await form.getByRole('button', { name: 'Create' }).click();
  await page.getByText('Alert rule “Quiet terminals” created.').waitFor();
  const rules = (await api<{ id: number; kind: string; params: Record<string, number> }[]>('GET', '/api/alerts')).body;
  t.match(rules, [{ kind: 'device_offline', params: { minutes: 3 } }], 'created as the form said');

  clock.advance(5 * 60_000);
  const round = await evaluateAlerts({ store: app.app.store, bus: app.app.bus, clock, log: createLogger({ level: 'silent' }) });
  t.equal(round.raised, 1);
  await page.reload();
  const row = page.locator(`tr[data-rule="${rules[0]?.id}"]`);
  await row.locator('td.incidents', { hasText: 'QUIET-1 since' }).waitFor();
  await b.axe(t, page, 'alerts');

  await page.getByRole('button', { name: 'Delete Quiet terminals' }).click();
  await page.getByText('Alert rule “Quiet terminals” deleted.').waitFor();
  t.same((await api('GET', '/api/alerts')).body, []);
});
