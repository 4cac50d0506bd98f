/**
 * The console in a real browser (Debian Chromium, headless), location view, against the real app:
 * keyboard sign-in; a terminal assigned from the grid, then (simulated) coming online without a
 * reload; a door open queued from the device page reaches `success`; destructive presets need a typed confirmation and
 * are hidden from an operator token; 200 users imported from a CSV (a bad row reported with its
 * line) and listed; attendance filtered by local day and exported, byte for byte what the API
 * serves. axe-core on every page; screenshots in test-artifacts/console/.
 */
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { gateway } from '../api/client.js';
import { ADMIN_TOKEN } from '../helpers/app.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { countShown, readToken, signedIn } from './pages.js';

const ZONE = 'Asia/Tokyo';
const SN = 'CONSOLE1';

t.test('console: location view in Chromium', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t, { config: { adminToken: ADMIN_TOKEN } });
  const { url } = g;
  const admin = (method: string, path: string, body?: unknown) =>
    g.a.api(method, path, { token: ADMIN_TOKEN, ...(body === undefined ? {} : { body }) });
  t.equal((await admin('PATCH', `/admin/locations/${g.a.id}`, { timezone: ZONE })).status, 200, 'the location keeps Tokyo time');
  const b = await openBrowser(t, () => url);
  const page = await b.page();

  await t.test('sign in with the keyboard', async (t) => {
    await page.goto(`${url}/`);
    t.equal(new URL(page.url()).pathname, '/console/', '/ led to the console');
    await page.getByRole('heading', { name: 'BioGate console' }).waitFor();
    await b.axe(t, page, 'sign-in');
    await b.shot(page, 'sign-in');
    await page.keyboard.press('Tab');
    t.equal(
      await page.evaluate('document.activeElement && document.activeElement.getAttribute("type")'),
      'password',
      'Tab reaches the token field',
    );
    await page.keyboard.type(g.a.token);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Devices', level: 1 }).waitFor();
    t.equal(new URL(page.url()).pathname, '/console/devices');
    t.equal(
      await page.evaluate(`sessionStorage.getItem('biogate.console.session')?.includes(${JSON.stringify(g.a.token)})`),
      true,
      'the token is in sessionStorage',
    );
    t.equal(await page.evaluate('localStorage.length + document.cookie.length'), 0, 'and nowhere else');
  });

  await t.test('a terminal assigned from the grid comes online live', async (t) => {
    await page.getByText('Add a terminal').click();
    const form = page.getByRole('form', { name: 'Add a terminal' });
    await form.getByLabel('Serial number').fill(SN);
    await form.getByLabel('Name').fill('Front door');
    await form.getByRole('button', { name: 'Assign' }).click();
    await page.getByText(`${SN} assigned`).waitFor();
    const card = page.locator(`li[data-sn="${SN}"]`);
    await card.getByText('○ Offline').waitFor();
    t.match((await g.a.api('GET', `/api/devices/${SN}`)).body, { name: 'Front door', last_seen: null }, 'assigned, never connected');
    await page.getByText('Live updates on').waitFor();
    await page.evaluate('window.__noReload = true');
    const sim = createSimulatedDevice({ url, sn: SN, protocol: 'v3', requestTimeoutMs: 15_000 });
    t.teardown(() => sim.stop());
    sim.start();
    await card.getByText('● Online').waitFor({ timeout: 15_000 });
    await card.getByText('3.0.0').waitFor();
    t.equal(await page.evaluate('window.__noReload'), true, 'updated in place, no reload');
    t.match(await card.textContent(), /Front door[\s\S]*Protocol3\.0\.0/, 'name and protocol version shown');
    await b.axe(t, page, 'devices');
    await b.shot(page, 'devices');

    await t.test('door open from the device page reaches success', async (t) => {
      await card.getByRole('link', { name: 'Front door' }).click();
      await page.getByRole('heading', { name: 'Front door', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Open door' }).click();
      const note = await page.getByText(/Open door: command \d+ queued/).textContent();
      const id = Number(/command (\d+)/.exec(note ?? '')?.[1]);
      t.ok(id > 0, `queued as command ${id}`);
      await page.locator(`tr[data-command="${id}"]`).getByText('success').waitFor({ timeout: 20_000 });
      const c = await g.a.api<{ status: string; command: string }>('GET', `/api/commands/${id}`);
      t.match(c.body, { command: 'door-open', status: 'success' }, 'the API agrees');
      t.ok(
        sim.executed().some((e) => e.id === String(id)),
        'the terminal executed it',
      );
      await b.axe(t, page, 'device');
      await b.shot(page, 'device');
    });

    await t.test('destructive presets: typed confirmation; hidden from operator tokens', async (t) => {
      await page.getByRole('button', { name: 'Clear attendance log' }).click();
      // Named by its own title: the page has three such dialogs (this, remove, the command form's).
      const dialog = page.getByRole('dialog', { name: `Clear attendance log on ${SN}?` });
      await dialog.waitFor();
      const confirm = dialog.getByRole('button', { name: 'Clear attendance log' });
      t.equal(await confirm.isDisabled(), true, 'not before the serial is typed');
      await dialog.getByLabel(/Type .* to confirm/).fill('WRONG');
      t.equal(await confirm.isDisabled(), true, 'not with another word');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      t.equal((await g.a.api<{ total: number }>('GET', '/api/commands?command=clear-log')).body.total, 0, 'Escape queued nothing');
      await page.getByRole('button', { name: 'Clear attendance log' }).click();
      await dialog.getByLabel(/Type .* to confirm/).fill(SN);
      await confirm.click();
      await page.getByText(/Clear attendance log: command \d+ queued/).waitFor();
      t.equal((await g.a.api<{ total: number }>('GET', '/api/commands?command=clear-log')).body.total, 1, 'confirmed: queued once');

      const operator = await g.started.app.locations.issueToken({ location_id: g.a.id, scope: 'operator' });
      const op = await b.page();
      await op.goto(`${url}/console/`);
      await op.getByLabel('API token').fill(operator.token);
      await op.getByRole('button', { name: 'Sign in' }).click();
      await op.getByRole('link', { name: 'Front door' }).click();
      await op.getByRole('button', { name: 'Open door' }).waitFor();
      t.equal(await op.getByRole('button', { name: /Clear/ }).count(), 0, 'an operator sees no destructive preset');
      t.equal(await countShown(op.getByRole('button', { name: 'Reboot', exact: true })), 1, 'but the others');
      t.same(op.problems, [], 'operator page: no off-site request, CSP violation or script error');
      await op.context().close();
    });
  });

  await t.test('import 200 users from CSV and see them listed', async (t) => {
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    // The same reader as `biogate users import` (src/csv-table.ts): a keypad password column is a number.
    const lines = ['PIN;First Name;Last Name;Notes;Password'];
    for (let i = 0; i < 200; i++) lines.push(`${1001 + i};Person;"Number ${i + 1}";Sales;4321`);
    lines.push('abc;Bad;Row;Sales;');
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(`${lines.join('\r\n')}\r\n`) });
    await page.getByText(/Imported 200 users; 1 row failed/).waitFor({ timeout: 30_000 });
    t.match(await page.getByText(/Imported 200 users/).textContent(), /Ignored columns: Notes/, 'the extra column is named');
    t.equal(await page.locator('progress').getAttribute('value'), '201', 'progress reached every row');
    const failed = page.getByRole('table', { name: 'Rows not imported' });
    t.match(await failed.textContent(), /202abc.*pin/, 'the bad row with its line (202) and the problem');
    await page.getByText('200 users.').waitFor();
    t.equal((await g.a.api<{ total: number }>('GET', '/api/users')).body.total, 200, 'the API holds 200 users');
    t.equal((await g.a.api<{ password: number }>('GET', '/api/users/1001')).body.password, 4321, 'the password column, as a number');
    t.equal(await page.locator('tbody tr[data-pin]').count(), 20, 'the first page of 20');
    await page.getByLabel('Search name or PIN').fill('1150');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1 user matching “1150”.').waitFor();
    t.match(await page.locator('tr[data-pin="1150"]').textContent(), /Person Number 150/);
    await b.axe(t, page, 'users');
    await b.shot(page, 'users');

    // One user by hand: create, edit, deactivate, delete (typed PIN).
    await page.getByRole('button', { name: 'New user' }).click();
    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel('PIN').fill('77');
    await form.getByLabel('First name').fill('Ada');
    await form.getByLabel('Department').fill('Research');
    await form.getByLabel('Position').fill('Analyst');
    await form.getByLabel('Privilege').selectOption('14');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('User 77 saved.').waitFor();
    t.match(
      (await g.a.api('GET', '/api/users/77')).body,
      { first_name: 'Ada', department: 'Research', position: 'Analyst', privilege: 14, is_active: true },
      'created',
    );
    await page.getByLabel('Search name or PIN').fill('Ada');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('tr[data-pin="77"]').getByRole('cell', { name: 'Research · Analyst', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Edit user 77' }).click();
    const edit = page.getByRole('form', { name: 'Edit user 77' });
    t.equal(await edit.getByLabel('Department').inputValue(), 'Research', 'the form holds the department');
    await edit.getByLabel('Last name').fill('Lovelace');
    await edit.getByLabel('Position').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    // "User 77 saved." is still shown from the create: the form closing is what says this save is done.
    await edit.waitFor({ state: 'detached' });
    await page.getByText('User 77 saved.').waitFor();
    t.match(
      (await g.a.api('GET', '/api/users/77')).body,
      { first_name: 'Ada', last_name: 'Lovelace', department: 'Research', position: null },
      'edited (an emptied field is cleared)',
    );
    await page.getByRole('button', { name: 'Deactivate user 77' }).click();
    await page.getByText('User 77 deactivated.').waitFor();
    t.match((await g.a.api('GET', '/api/users/77')).body, { is_active: false }, 'deactivated');
    await page.getByRole('button', { name: 'Delete user 77' }).click();
    await page
      .getByRole('dialog')
      .getByLabel(/Type .* to confirm/)
      .fill('77');
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('User 77 deleted.').waitFor();
    t.equal((await g.a.api('GET', '/api/users/77')).status, 404, 'deleted');
  });

  await t.test('attendance: filter by local day, export what the API serves', async (t) => {
    // A terminal whose clock is set to Tokyo time, like the location.
    const sim = createSimulatedDevice({ url, sn: 'CONSOLE2', protocol: 'v3', requestTimeoutMs: 15_000, utcOffsetMinutes: 540 });
    t.equal((await g.a.api('POST', '/api/devices', { body: { sn: 'CONSOLE2' } })).status, 201);
    await sim.handshake();
    // The page filters on the location's "today" (Tokyo, UTC+9 all year): the punches, made seconds ago,
    // and the page that lists them must fall in one local day, so near Tokyo midnight the test waits.
    const sinceMidnight = (Date.now() + 9 * 3_600_000) % 86_400_000;
    const untilMidnight = 86_400_000 - sinceMidnight;
    const wait = sinceMidnight < 45_000 ? 45_000 - sinceMidnight : untilMidnight < 60_000 ? untilMidnight + 45_000 : 0;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const now = Date.now();
    for (const [pin, ago] of [
      ['1001', 10_000],
      ['1002', 20_000],
      ['1003', 30_000],
    ] as const)
      t.ok(await sim.punch(pin, new Date(now - ago)), `punch of ${pin} stored`);
    await sim.stop();
    const stored = await g.a.api<{ data: { timestamp: string }[] }>('GET', '/api/attendance');
    t.same(
      stored.body.data.map((a) => a.timestamp).sort(),
      [30_000, 20_000, 10_000].map((ago) => new Date(Math.floor((now - ago) / 1000) * 1000).toISOString()),
      'stored at the instants punched',
    );
    await page.getByRole('link', { name: 'Attendance' }).click();
    await page.getByRole('heading', { name: 'Attendance', level: 1 }).waitFor();
    await page.getByText('3 records.').waitFor();
    await page.getByLabel('PIN').fill('1002');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('1 record.', { exact: true }).waitFor();

    const [download, req] = await Promise.all([
      page.waitForEvent('download'),
      page.waitForRequest((r) => r.url().includes('/api/attendance.csv')),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const exportUrl = new URL(req.url());
    t.notMatch(req.url(), /bg_|token/, 'the token is not in the URL');
    t.match(await req.headerValue('authorization'), /^Bearer bg_/, 'it travels in the header');
    t.equal(exportUrl.searchParams.get('pin'), '1002', 'the filter on screen');
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date());
    const from = new Date(exportUrl.searchParams.get('from') ?? '');
    t.equal(
      new Intl.DateTimeFormat('en-CA', {
        timeZone: ZONE,
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
      }).format(from),
      `${today}, 00:00`,
      'from = local midnight in Tokyo',
    );
    t.equal(from.getUTCHours(), 15, 'which is 15:00 UTC the day before');
    const saved = await readFile((await download.path()) as string, 'utf8');
    const api = await g.a.api<string>('GET', `/api/attendance.csv${exportUrl.search}`);
    t.equal(saved, api.body, 'the saved file is what the API serves for that filter');
    const rows = saved.trim().split('\r\n');
    t.equal(rows.length, 2, 'header and one record');
    t.match(rows[1], /,CONSOLE2,1002,/);

    // Issue #35 item 3: a voided record stays listed, struck through; a manual punch shows no terminal.
    const id = Number(rows[1]?.split(',')[0]);
    t.equal((await g.a.api('POST', `/api/attendance/${id}/void`, { body: { reason: 'badge lent' } })).status, 200);
    await page.getByRole('button', { name: 'Filter' }).click();
    const voided = page.locator('tr.voided');
    await voided.getByText('(voided)').waitFor();
    t.match(await voided.textContent(), /1002.*CONSOLE2/, 'the voided row is marked');
    t.equal((await g.a.api('POST', '/api/users', { body: { pin: 4242, first_name: 'Manu' } })).status, 201);
    const manual = { pin: 4242, timestamp: new Date(now - 5_000).toISOString(), reason: 'forgot badge' };
    t.equal((await g.a.api('POST', '/api/attendance', { body: manual })).status, 201);
    await page.getByLabel('PIN').fill('4242');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('cell', { name: 'manual' }).waitFor();
    t.equal(await countShown(page.locator('tbody tr')), 1, 'the manual punch, listed with no terminal');
    await b.axe(t, page, 'attendance');
    await b.shot(page, 'attendance');
  });

  await t.test('commands page; a phone-sized screen', async (t) => {
    await page.getByRole('link', { name: 'Commands' }).click();
    await page.getByRole('heading', { name: 'Commands', level: 1 }).waitFor();
    await page.locator('tr[data-command]').first().waitFor();
    await b.axe(t, page, 'commands');
    await b.shot(page, 'commands');
    await page.setViewportSize({ width: 390, height: 844 });
    for (const link of ['Devices', 'Users', 'Attendance']) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { name: link, level: 1 }).waitFor();
      t.equal(
        await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'),
        true,
        `${link}: no sideways scrolling on a phone`,
      );
      await b.shot(page, `phone-${link.toLowerCase()}`);
    }
    await page.getByRole('link', { name: 'Devices', exact: true }).click();
    await b.axe(t, page, 'devices (phone)');
  });

  await t.test('a token revoked meanwhile signs the console out, saying why', async (t) => {
    const issued = await readToken(g);
    const p = await signedIn(b, url, issued.token);
    t.equal(await p.getByText('Add a terminal').count(), 0, 'a read token cannot assign');
    await p.getByRole('link', { name: 'Front door' }).click();
    await p.getByRole('heading', { name: 'Front door', level: 1 }).waitFor();
    t.equal(await p.getByRole('button', { name: 'Open door' }).count(), 0, 'nor queue commands');
    await g.started.app.locations.revokeToken(issued.id);
    // The next request answers 401 and signs out: the navigation below, or the page's own refresh if that
    // comes first (then the link is gone before the click, which is then not needed).
    const signIn = p.getByRole('heading', { name: 'BioGate console' });
    await p
      .getByRole('link', { name: 'Users' })
      .click({ timeout: 5_000 })
      .catch(async (err: unknown) => {
        if (!(await signIn.isVisible())) throw err;
      });
    await signIn.waitFor();
    t.match(await p.getByRole('alert').textContent(), /Signed out: Token revoked/);
    t.equal(await p.evaluate("sessionStorage.getItem('biogate.console.session')"), null, 'the token is forgotten');
    await p.context().close();
  });

  await t.test('the browser enforces the policy: no inline script, no request elsewhere', async (t) => {
    const p = await b.page();
    await p.goto(`${url}/console/`);
    await p.getByRole('heading', { name: 'BioGate console' }).waitFor();
    await p.evaluate(
      "{ const s = document.createElement('script'); s.textContent = 'window.__inlineRan = true'; document.body.append(s); }",
    );
    t.equal(await p.evaluate('window.__inlineRan === true'), false, 'an injected inline script does not run');
    const outcome = await p.evaluate("fetch('http://203.0.113.9/x').then(() => 'fetched', (e) => 'blocked: ' + e.message)");
    t.match(outcome, /^blocked/, 'a fetch to another host is refused');
    t.ok(
      p.problems.some((m) => /^CSP: .*inline script/.test(m)),
      'the browser reported the inline script as a CSP violation',
    );
    t.ok(
      p.problems.some((m) => /^CSP: .*203\.0\.113\.9/.test(m)),
      'and the fetch',
    );
    await p.context().close();
  });

  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
