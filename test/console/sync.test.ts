/**
 * Roster sync in the console (issue #31 item 3), in a real browser against the real app and simulated
 * terminals over HTTP: a terminal that refuses every user line reaches `drift` and one that accepts them
 * reaches `in_sync`; the device grid shows both states live (no reload), in words; the Sync page shows the
 * location summary and lists the drifting terminal with its reason (and not the other); its device page
 * lists the refused PIN with the terminal's return code. What the pages show is compared with the API.
 */
import t from 'tap';
import { createSimulatedDevice, type SimulatedDevice, type SimulatedDeviceOptions } from '../../src/simulator/index.js';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { countShown, signedIn } from './pages.js';

const OK = 'SYNC-OK';
const DRIFT = 'SYNC-DRIFT';
const PIN = 31;

interface Sync {
  state: string;
  owed: number;
  refused: number;
  reason: string | null;
}

t.test('console: roster sync state and drift in Chromium', { skip: NO_BROWSER }, async (t) => {
  // longpollS 1: an idle v3 poll returns within a second.
  const g = await gateway(t, { config: { longpollS: 1 } });
  const { url } = g;
  const api = g.a.api;
  t.equal((await api('POST', '/api/users', { body: { pin: PIN, first_name: 'Ref' } })).status, 201, 'a user both terminals owe');
  for (const [sn, name] of [
    [OK, 'Lobby'],
    [DRIFT, 'Back door'],
  ] as const)
    t.equal((await api('POST', '/api/devices', { body: { sn, name } })).status, 201, `${sn} assigned`);
  const terminal = (sn: string, protocol: 'v2' | 'v3', extra: Partial<SimulatedDeviceOptions> = {}): SimulatedDevice => {
    const sim = createSimulatedDevice({
      url,
      sn,
      protocol,
      pollDelayMs: 30,
      fast: true,
      requestTimeoutMs: 10_000,
      retryDelayMs: 100,
      ...extra,
    });
    t.teardown(() => sim.stop());
    return sim;
  };
  const syncOf = async (sn: string) => (await api<{ sync: Sync }>('GET', `/api/devices/${sn}`)).body.sync;

  const b = await openBrowser(t, () => url);
  const page = await signedIn(b, url, g.a.token);
  await page.getByText('Live updates on').waitFor();
  const okCard = page.locator(`li[data-sn="${OK}"]`);
  const driftCard = page.locator(`li[data-sn="${DRIFT}"]`);
  await okCard.waitFor();
  await driftCard.waitFor();

  await t.test('the grid shows each state live, in words, with the reason of a drift', async (t) => {
    await page.evaluate('window.__noReload = true');
    // v2 refuses a user line with -3 (read/write error): the owed line stays owed, the terminal drifts.
    terminal(DRIFT, 'v2', { refuseRate: 1 }).start();
    terminal(OK, 'v3').start();
    await okCard.locator('[data-sync-state="in_sync"]').waitFor({ timeout: 30_000 });
    await driftCard.locator('[data-sync-state="drift"]').waitFor({ timeout: 30_000 });
    t.equal(await page.evaluate('window.__noReload'), true, 'updated in place from the stream, no reload');

    const drift = await syncOf(DRIFT);
    t.match(drift, { state: 'drift', owed: 1, refused: 1, reason: /-3/ }, 'the API: drift, the refusal code in the reason');
    t.equal((await syncOf(OK)).state, 'in_sync', 'the API: in_sync');
    t.equal((await okCard.locator('dd.sync').innerText()).trim(), '✓ In sync', 'in_sync named in words');
    t.equal(await okCard.locator('dd.sync-reason').count(), 0, 'an in_sync card shows no reason');
    t.equal((await driftCard.locator('dd.sync').innerText()).trim(), '⚠ Drift', 'drift named in words');
    t.equal(await driftCard.locator('dd.sync-reason').innerText(), drift.reason, 'the reason the API gives');
    t.equal(await driftCard.locator('dd.sync-owed').innerText(), '1 line', 'one line owed');
    t.equal(await driftCard.locator('dd.sync-refused').innerText(), '1', 'one refused');
    t.match(await page.locator('.lead').innerText(), /1 in drift/, 'the grid counts the terminals in drift');
    await b.axe(t, page, 'devices (sync)');
    await b.shot(page, 'devices-sync');
  });

  await t.test('the Sync page: the summary, and the terminal in drift with its reason', async (t) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sync' }).click();
    await page.getByRole('heading', { name: 'Sync', level: 1 }).waitFor();
    t.equal(new URL(page.url()).pathname, '/console/sync');
    const summary = (await api<Record<string, number>>('GET', '/api/sync')).body;
    t.match(summary, { devices: 2, in_sync: 1, drift: 1 }, 'the API summary');
    for (const key of ['in_sync', 'syncing', 'drift', 'unknown', 'revocations_owed'])
      t.equal(await page.locator(`dd[data-count="${key}"]`).innerText(), String(summary[key]), `summary ${key} as the API says`);
    await page.getByRole('heading', { name: 'Terminals in drift' }).waitFor();
    const row = page.locator(`tr[data-sn="${DRIFT}"]`);
    await row.waitFor();
    t.equal(await countShown(page.locator('tbody tr[data-sn]')), 1, 'one terminal listed');
    t.equal(await page.locator(`tr[data-sn="${OK}"]`).count(), 0, 'not the one in sync');
    t.equal(await row.locator('td.sync-reason').innerText(), (await syncOf(DRIFT)).reason, 'with the reason the API gives');
    t.match(await row.innerText(), /Back door[\s\S]*Drift[\s\S]*1 line/, 'name, state and owed lines');
    await b.axe(t, page, 'sync');
    await b.shot(page, 'sync');

    await page.getByLabel('State').selectOption('in_sync');
    await page.getByRole('heading', { name: 'Terminals: in sync' }).waitFor();
    await page.locator(`tr[data-sn="${OK}"]`).waitFor();
    t.equal(await page.locator(`tr[data-sn="${DRIFT}"]`).count(), 0, 'the in_sync filter lists the other terminal alone');
    await page.getByLabel('State').selectOption('drift');
    await row.waitFor();
  });

  await t.test('the device page of the terminal in drift lists the refused PIN with its code', async (t) => {
    await page.locator(`tr[data-sn="${DRIFT}"]`).getByRole('link', { name: 'Back door' }).click();
    await page.getByRole('heading', { name: 'Back door', level: 1 }).waitFor();
    const section = page.getByRole('region', { name: 'Roster sync' });
    await section.locator('[data-sync-state="drift"]').waitFor();
    const detail = (
      await api<{ missing: { total: number }; refused: { data: { pin: number; code?: number }[]; total: number } }>(
        'GET',
        `/api/devices/${DRIFT}/sync`,
      )
    ).body;
    t.match(detail.refused, { total: 1, data: [{ pin: PIN, code: -3 }] }, 'the API detail');
    const refused = section.getByRole('region', { name: /^Refused/ });
    const line = refused.locator(`tr[data-pin="${PIN}"]`);
    await line.waitFor();
    t.match(await line.innerText(), /^31\s.*\s-3$/, 'PIN 31 refused with -3');
    t.match(await refused.getByRole('heading').innerText(), /\(1\)$/, 'one refused');
    const missing = section.getByRole('region', { name: /^Missing/ });
    t.equal(await missing.locator('tbody tr').count(), detail.missing.total, 'the missing PINs the API lists');
    t.equal(await section.locator('dd.sync-reason').innerText(), (await syncOf(DRIFT)).reason, 'the reason');
    await b.axe(t, page, 'device (drift)');
    await b.shot(page, 'device-drift');
  });

  await t.test('the device page of a terminal in sync owes nothing', async (t) => {
    await page.goto(`${url}/console/devices/${OK}`);
    await page.getByRole('heading', { name: 'Lobby', level: 1 }).waitFor();
    const section = page.getByRole('region', { name: 'Roster sync' });
    await section.locator('[data-sync-state="in_sync"]').waitFor();
    for (const list of [/^Missing/, /^Extra/, /^Refused/])
      t.match(await section.getByRole('region', { name: list }).getByRole('heading').innerText(), /\(0\)$/, `${String(list)}: none`);
  });

  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
