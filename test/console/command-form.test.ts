/**
 * The terminal page's "Send a command" form (issue #38 item 7), in Chromium against the real app: it offers exactly
 * the presets of `x-presets` the terminal's protocol and the token allow, builds each one's form from its parameters,
 * queues what was filled in (GET /api/commands/{id} shows the params), and asks for the serial before a risky one. A
 * PUSH v2 terminal has a working door button (door-unlock).
 */
import t from 'tap';
import { gateway, type Json } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { signedIn } from './pages.js';

const SN = 'FORM-V2';

interface XPreset {
  id: string;
  protocol_versions: string[];
  scope: string[];
}

t.test('send any supported preset with its parameters', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  t.equal((await g.a.api('POST', '/api/devices', { body: { sn: SN, version: '2.0.0' } })).status, 201, 'a terminal pinned to PUSH v2');
  const user = await g.a.api<{ id: number }>('POST', '/api/users', { body: { pin: 11, first_name: 'Enrolled' } });
  const doc = (await g.a.api<{ 'x-presets': XPreset[] }>('GET', '/api/openapi.json', { token: null })).body;
  const expected = doc['x-presets'].filter((p) => p.protocol_versions.includes('2.0.0') && p.scope.includes('full')).map((p) => p.id);

  const b = await openBrowser(t, () => g.url);
  const page = await signedIn(b, g.url, g.a.token);
  await page.goto(`${g.url}/console/devices/${SN}`);
  const form = page.getByRole('form', { name: 'Send a command' });
  await form.waitFor();
  const offered = await form
    .getByLabel('Command')
    .evaluate((s) => Array.from((s as unknown as { options: { value: string }[] }).options, (o) => o.value));
  t.strictSame(offered, expected, 'every preset of x-presets for v2 and a full token, and only those');
  t.notOk(offered.includes('door-open'), 'door-open (v3 only) is not offered');
  t.equal(await page.getByRole('button', { name: 'Unlock door', exact: true }).isEnabled(), true, 'the v2 door button works');
  t.equal(await page.getByRole('button', { name: 'Open door', exact: true }).isDisabled(), true, 'the v3-only one is greyed out');
  await b.axe(t, page, 'device page with the command form');

  const queued = async () => {
    const text =
      (await page
        .getByText(/command \d+ queued/)
        .first()
        .textContent()) ?? '';
    return Number(/command (\d+) queued/.exec(text)?.[1]);
  };

  await form.getByLabel('Command').selectOption('enroll-biometric');
  t.equal(await form.getByLabel('fid').inputValue(), '0', 'fields start at their defaults');
  t.equal(await form.getByLabel('type').inputValue(), 'fingerprint', 'a choice is a drop-down');
  await form.getByLabel('pin').fill('11');
  await form.getByLabel('user_id').fill(String(user.body.id));
  await form.getByLabel('fid').fill('3');
  await form.getByRole('button', { name: 'Queue enroll-biometric' }).click();
  const enrollId = await queued();
  const enroll = await g.a.api<Json>('GET', `/api/commands/${enrollId}`);
  t.match(enroll.body, { command: 'enroll-biometric', sn: SN }, 'queued for this terminal');
  t.match(enroll.body['params'], { pin: 11, user_id: user.body.id, type: 'fingerprint', fid: 3 }, 'with the parameters filled in');

  await form.getByLabel('Command').selectOption('clear-log');
  await form.getByRole('button', { name: 'Queue clear-log' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  t.equal(await dialog.getByRole('button', { name: 'Queue clear-log' }).isDisabled(), true, 'a risky preset waits for the serial');
  await dialog.getByLabel(/Type/).fill(SN);
  await dialog.getByRole('button', { name: 'Queue clear-log' }).click();
  await page.getByText(/clear-log: command \d+ queued/).waitFor();
  const list = await g.a.api<{ data: { command: string }[] }>('GET', `/api/commands?sn=${SN}`);
  t.ok(
    list.body.data.some((c) => c.command === 'clear-log'),
    'queued once confirmed',
  );
});
