/**
 * The console's admin view in a real browser (Debian Chromium, headless) against the real app:
 * sign in with the admin token; create a location (its token shown once, and it works); rename it
 * and change its time zone; issue a token with scope and expiry (shown once) and revoke it;
 * disable the location behind a typed confirmation; assign a terminal that called in unassigned.
 * axe-core on every page; screenshots in test-artifacts/console/.
 */
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { client, gateway } from '../api/client.js';
import { ADMIN_TOKEN } from '../helpers/app.js';
import { NO_BROWSER, openBrowser } from './browser.js';

t.test('console: admin view in Chromium', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t, { config: { adminToken: ADMIN_TOKEN } });
  const { url } = g;
  const b = await openBrowser(t, () => url);
  const page = await b.page();
  let branchId = 0;
  let branchToken = '';

  await t.test('sign in with the admin token', async (t) => {
    await page.goto(`${url}/console/`);
    await page.getByLabel('API token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Locations', level: 1 }).waitFor();
    t.equal(new URL(page.url()).pathname, '/console/admin/locations');
    await page.locator('tr[data-location]').first().waitFor();
    t.match(await page.locator(`tr[data-location="${g.a.id}"]`).textContent(), /Default/, 'the bootstrap location is listed');
  });

  await t.test('create a location: its token is shown once and works', async (t) => {
    const form = page.getByRole('form', { name: 'New location' });
    await form.getByLabel('Name').fill('Branch');
    await form.getByLabel('Time zone').fill('Europe/Berlin');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByText(/Location “Branch” created/).waitFor();
    branchToken = await page.getByLabel('Token (shown only now)').inputValue();
    t.match(branchToken, /^bg_/, 'the token is shown');
    const me = await client(url, branchToken)<{ id: number; name: string; timezone: string }>('GET', '/api/me');
    t.match(me.body, { name: 'Branch', timezone: 'Europe/Berlin' }, 'and it opens the new location');
    branchId = me.body.id;
    await b.axe(t, page, 'admin locations');
    await b.shot(page, 'admin-locations');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    t.equal(await page.getByLabel('Token (shown only now)').count(), 0, 'gone once acknowledged');

    await page.getByRole('button', { name: 'Edit location Branch' }).click();
    const edit = page.getByRole('form', { name: `Edit location ${branchId}` });
    await edit.getByLabel('Name').fill('Branch East');
    await edit.getByLabel('Time zone').fill('America/New_York');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByText(`Location ${branchId} updated.`).waitFor();
    t.match(
      (await client(url, branchToken)('GET', '/api/me')).body,
      { name: 'Branch East', timezone: 'America/New_York' },
      'renamed, new time zone',
    );
    await page.getByRole('button', { name: 'Edit location Default' }).click();
    await page
      .getByRole('form', { name: /Edit location/ })
      .getByLabel('Time zone')
      .fill('Mars/Olympus');
    await page.getByRole('button', { name: 'Save' }).click();
    t.match(await page.getByRole('alert').textContent(), /timezone.*VALIDATION_FAILED/, 'a bad time zone: the API says why');
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  await t.test('tokens: create with scope and expiry (shown once), revoke', async (t) => {
    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
    await page.getByRole('combobox', { name: /^Location/ }).selectOption(String(branchId));
    await page.locator('tr[data-token]').first().waitFor();
    const form = page.getByRole('form', { name: 'New token' });
    await form.getByLabel('Scope').selectOption('operator');
    await form.getByLabel(/Expires after/).fill('30');
    await form.getByLabel('Label').fill('front desk');
    await form.getByRole('button', { name: 'Create token' }).click();
    const issued = await page.getByLabel('Token (shown only now)').inputValue();
    t.match(issued, /^bg_/);
    const me = await client(url, issued)<{ token: { scope: string; expires_at: string } }>('GET', '/api/me');
    t.equal(me.body.token.scope, 'operator', 'with the scope chosen');
    const days = (Date.parse(me.body.token.expires_at) - Date.now()) / 86_400_000;
    t.ok(days > 29.9 && days <= 30, `expires in 30 days (${days.toFixed(2)})`);
    const row = page.locator('tr[data-token]', { hasText: 'front desk' });
    await row.waitFor();
    t.match(await row.textContent(), /operator/);
    await b.axe(t, page, 'admin tokens');
    await b.shot(page, 'admin-tokens');
    await row.getByRole('button', { name: /Revoke token/ }).click();
    await row.getByText('revoked').waitFor();
    t.equal((await client(url, issued)('GET', '/api/me')).status, 401, 'revoked: the API refuses it');
  });

  await t.test('unassigned terminal assigned to a location', async (t) => {
    const sim = createSimulatedDevice({ url, sn: 'STRAY01', protocol: 'v2', requestTimeoutMs: 10_000 });
    await sim.handshake();
    await sim.pollOnce();
    await sim.stop();
    // Presence is written behind (every few seconds): write it now rather than wait.
    await g.started.app.hub.presence.flush();
    await page.getByRole('link', { name: 'Unassigned terminals' }).click();
    await page.getByRole('heading', { name: 'Unassigned terminals', level: 1 }).waitFor();
    const row = page.locator('tr[data-sn="STRAY01"]');
    await row.waitFor();
    t.match(await row.textContent(), /STRAY01.*127\.0\.0\.1/, 'serial and address');
    await b.axe(t, page, 'admin unassigned');
    await b.shot(page, 'admin-unassigned');
    await row.getByLabel('Location for STRAY01').selectOption(String(branchId));
    await row.getByRole('button', { name: 'Assign STRAY01' }).click();
    await page.getByText(`STRAY01 assigned to location ${branchId}.`).waitFor();
    await row.waitFor({ state: 'detached' });
    const devices = await client(url, branchToken)<{ data: { serial_number: string }[] }>('GET', '/api/devices');
    t.same(
      devices.body.data.map((d) => d.serial_number),
      ['STRAY01'],
      'the location has it',
    );
    const tokens = await g.a.api<{ label: string | null }[]>('GET', `/admin/locations/${branchId}/tokens`, { token: ADMIN_TOKEN });
    t.same(
      tokens.body.filter((x) => x.label?.includes('STRAY01')),
      [],
      'no token was issued to assign it (the admin API assigns)',
    );
  });

  await t.test('disable a location behind a typed confirmation', async (t) => {
    await page.getByRole('link', { name: 'Locations' }).click();
    await page.getByRole('button', { name: 'Disable location Branch East' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/Type .* to confirm/).fill('Branch East');
    await dialog.getByRole('button', { name: 'Disable' }).click();
    await page.getByText(`Location ${branchId} disabled.`).waitFor();
    // The notice comes first; the table is reloaded after it: wait for the row to say so.
    const row = page.locator(`tr[data-location="${branchId}"]`, { hasText: 'disabled' });
    await row.waitFor();
    t.match(await row.textContent(), /disabled/);
    t.equal((await client(url, branchToken)('GET', '/api/me')).status, 403, 'its tokens get 403');
    await page.getByRole('button', { name: 'Enable location Branch East' }).click();
    await page.getByText(`Location ${branchId} enabled.`).waitFor();
    t.equal((await client(url, branchToken)('GET', '/api/me')).status, 200, 'enabled again');
  });

  await t.test('a wrong token is refused at sign-in', async (t) => {
    const other = await b.page();
    await other.goto(`${url}/console/`);
    await other.getByLabel('API token').fill('bg_not-a-real-token-000000000000000000');
    await other.getByRole('button', { name: 'Sign in' }).click();
    t.match(await other.getByRole('alert').textContent(), /not valid/);
    await b.shot(other, 'sign-in-refused');
    await other.context().close();
  });

  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
