/**
 * "Audit now" on the device page (issue #31 item 2), in a real browser against the real app and a
 * simulated v3 terminal over HTTP. The terminal holds two users entered at its keypad that the location
 * does not have; pressing the button starts the audit, the page names the query it queued and links its
 * row, the keypad users are deleted from the terminal and the section shows the audit's time as the API
 * gives it. A second audit that finds nothing to repair changes no sync state (no `devices/<sn>/sync`
 * event): the page shows its later time all the same. A read token gets the reason, not the button.
 *
 * The clock is fake (standing still unless advanced), so no scheduled audit interferes and the two audits
 * have times a second apart at least.
 */
import t, { type Test } from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { gateway } from '../api/client.js';
import { fakeClock } from '../helpers/app.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { readToken, signedIn } from './pages.js';

const SN = 'AUDIT-CONSOLE';
const KEYPAD = ['90001', '90002'];

interface Command {
  id: number;
  command: string;
  status: string;
}

/** Waits for a condition the test cannot be told about (the simulator's memory), checking every 50 ms. */
async function until(t: Test, what: string, check: () => boolean | Promise<boolean>, limitMs = 30_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > end) {
      t.fail(`gave up waiting: ${what}`);
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `2026-03-01 08:00:00` in the zone, as the console writes times (src/console/web/src/time.ts). */
const local = (iso: string, zone: string) =>
  new Intl.DateTimeFormat('sv-SE', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).format(new Date(iso));

t.test('console: "Audit now" removes keypad users and shows the audit, in Chromium', { skip: NO_BROWSER }, async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  // longpollS 1: an idle v3 poll returns within a second.
  const g = await gateway(t, { clock, config: { longpollS: 1 } });
  const { url } = g;
  const api = g.a.api;
  for (const pin of [1, 2]) t.equal((await api('POST', '/api/users', { body: { pin, first_name: `User${pin}` } })).status, 201);
  t.equal((await api('POST', '/api/devices', { body: { sn: SN, name: 'Keypad door' } })).status, 201, 'terminal assigned');
  const sim = createSimulatedDevice({
    url,
    sn: SN,
    protocol: 'v3',
    pollDelayMs: 30,
    fast: true,
    requestTimeoutMs: 10_000,
    retryDelayMs: 100,
    keypadUsers: KEYPAD.length,
  });
  t.teardown(() => sim.stop());
  sim.start();
  const pins = () => [...sim.users().keys()].sort((a, b) => Number(a) - Number(b)).join();
  const syncOf = async () => (await api<{ state: string; last_audit_at: string | null }>('GET', `/api/devices/${SN}/sync`)).body;
  await until(t, 'the roster held, in sync', async () => pins() === '1,2,90001,90002' && (await syncOf()).state === 'in_sync');
  t.equal((await syncOf()).last_audit_at, null, 'never audited');
  const zone = (await api<{ timezone: string }>('GET', '/api/me')).body.timezone || 'UTC';

  const b = await openBrowser(t, () => url);
  const page = await signedIn(b, url, g.a.token);
  await page.goto(`${url}/console/devices/${SN}`);
  await page.getByRole('heading', { name: 'Keypad door', level: 1 }).waitFor();
  const section = page.getByRole('region', { name: 'Roster sync' });
  const lastAudit = section.locator('dd.sync-audit');
  await section.locator('[data-sync-state="in_sync"]').waitFor();
  t.equal(await lastAudit.innerText(), 'never', 'the page: never audited');

  await t.test('"Audit now" starts the audit; the keypad users go and the audit time shows', async (t) => {
    await page.evaluate('window.__noReload = true');
    await section.getByRole('button', { name: 'Audit now' }).click();
    const notice = section.getByRole('status').filter({ hasText: /^Audit (started|done)/ });
    await notice.waitFor();
    const queries = (await api<{ data: Command[] }>('GET', '/api/commands?command=load-users')).body.data;
    t.equal(queries.length, 1, 'one query of the user table queued');
    const query = queries[0] as Command;
    const link = notice.getByRole('link', { name: `command ${query.id}` });
    t.equal(await link.getAttribute('href'), `#command-${query.id}`, 'the notice links the query');
    await page.locator(`#command-${query.id}`).waitFor();
    t.match(await page.locator(`#command-${query.id}`).innerText(), /load-users/, "the link's target is the query's row");

    await until(t, 'the keypad users deleted', () => pins() === '1,2');
    t.same(pins(), '1,2', 'the terminal holds the roster alone');
    const audited = (await syncOf()).last_audit_at;
    t.ok(audited !== null, 'the API: last_audit_at set');
    await section
      .getByRole('status')
      .filter({ hasText: /^Audit done/ })
      .waitFor();
    await section.locator('dd.sync-audit', { hasText: local(audited as string, zone) }).waitFor();
    t.equal(await lastAudit.innerText(), local(audited as string, zone), 'the page: the audit time the API gives');
    await section.locator('[data-sync-state="in_sync"]').waitFor();
    await section
      .getByRole('region', { name: /^Extra/ })
      .getByRole('heading', { name: /\(0\)$/ })
      .waitFor();
    t.pass('no extra PIN owed once the deletes are confirmed');
    t.equal(await page.evaluate('window.__noReload'), true, 'updated in place, no reload');
    await b.axe(t, page, 'device (audit)');
    await b.shot(page, 'device-audit');
  });

  await t.test('an audit that repairs nothing still shows its time', async (t) => {
    const before = (await syncOf()).last_audit_at as string;
    clock.advance(60_000);
    await section.getByRole('button', { name: 'Audit now' }).click();
    await until(t, 'a later last_audit_at', async () => ((await syncOf()).last_audit_at ?? '') > before);
    const audited = (await syncOf()).last_audit_at as string;
    t.equal((await syncOf()).state, 'in_sync', 'nothing to repair: still in sync');
    t.same(pins(), '1,2', 'the terminal unchanged');
    await section.locator('dd.sync-audit', { hasText: local(audited, zone) }).waitFor();
    t.not(local(audited, zone), local(before, zone), 'a time other than the first audit');
  });

  await t.test('a read token gets the reason, not the button', async (t) => {
    const issued = await readToken(g);
    const p = await signedIn(b, url, issued.token);
    await p.goto(`${url}/console/devices/${SN}`);
    const readSection = p.getByRole('region', { name: 'Roster sync' });
    await readSection.locator('dd.sync-audit').waitFor();
    t.equal(await readSection.getByRole('button', { name: 'Audit now' }).count(), 0, 'no "Audit now" button');
    t.match(await readSection.locator('.audit-read-only').innerText(), /operator or full token/, 'the reason instead');
    const denied = await api('POST', `/api/devices/${SN}/audit`, { token: issued.token });
    t.equal(denied.status, 403, 'the API refuses the read token too');
    t.same(p.problems, [], 'no off-site request, CSP violation or script error (read session)');
    await p.context().close();
  });

  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
