/**
 * A terminal's exchange log on its console page, in a real browser against the real app: after a simulated
 * terminal's handshake, idle polls and a punch, the page lists the punch's upload with its table and lines, the
 * polls as one run, and a refused command result with its error.
 */
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { signedIn } from './pages.js';

const SN = 'EXCHANGE-1';

t.test('console: a terminal’s exchanges in Chromium', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t, { config: { longpollS: 0 } });
  const { url } = g;
  t.equal((await g.a.api('POST', '/api/devices', { body: { sn: SN, name: 'Front desk' } })).status, 201);
  const sim = createSimulatedDevice({ url, sn: SN, protocol: 'v2', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();
  await sim.pollOnce();
  await sim.pollOnce();
  t.ok(await sim.punch('12', '2026-03-01 09:00:00'));
  const refused = await fetch(`${url}/iclock/devicecmd?SN=${SN}`, { method: 'POST', body: 'ID=5&Return=-1002&CMD=DATA\n' });
  t.equal(refused.status, 200);

  const b = await openBrowser(t, () => url);
  const page = await signedIn(b, url, g.a.token);
  await page.goto(`${url}/console/devices/${SN}`);
  const section = page.getByRole('region', { name: 'Exchanges', exact: true });
  await section.locator('tr[data-endpoint]').first().waitFor();
  const rows = await section.locator('tr[data-endpoint]').evaluateAll((trs) =>
    trs.map((tr) => ({
      endpoint: tr.getAttribute('data-endpoint'),
      failed: tr.classList.contains('failed'),
      text: (tr as unknown as { innerText: string }).innerText,
    })),
  );
  t.match(rows[0], { endpoint: 'devicecmd', failed: true, text: /Return=-1002/ }, 'the refused result first, marked');
  t.match(rows[1], { endpoint: 'cdata', failed: false, text: /POST cdata ATTLOG/ }, 'then the punch’s upload');
  t.match(rows.find((r) => r.endpoint === 'getrequest')?.text ?? '', /×2 since/, 'the idle polls as one run');
  await b.axe(t, page, 'device (exchanges)');
  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
