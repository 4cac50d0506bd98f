/**
 * The console's webhook pages (issue #38 item 7), in Chromium against the real app and a real HTTP receiver on
 * loopback: a subscription created with chosen events shows its signing secret once; "Send a test" reaches the receiver
 * signed (verified with the standardwebhooks library) and is listed as delivered; a failing receiver shows as pending
 * with its answer; "Redeliver failed" answers; disable, enable and a typed-confirmation delete; a read token sees the
 * list without the buttons. axe-core clean in both themes.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import t, { type Test } from 'tap';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { mainNav, readToken, signedIn } from './pages.js';

const OPEN = { webhookAllowPrivate: 'on', webhookAllowHttp: 'on' } as const;

/** An HTTP receiver on loopback: what it got, and the status it answers with (changeable). */
async function receiver(t: Test) {
  const got: { headers: IncomingHttpHeaders; body: string }[] = [];
  let status = 200;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, answer: (s: number) => (status = s) };
}

t.test('webhooks: create, test, deliveries, redeliver, disable, delete', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t, { config: OPEN });
  const r = await receiver(t);
  const b = await openBrowser(t, () => g.url);
  const page = await signedIn(b, g.url, g.a.token);
  await mainNav(page)('Webhooks');
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  await page.getByText('No webhook yet.').waitFor();

  const form = page.getByRole('form', { name: 'New webhook' });
  await form.getByLabel('URL').fill(r.url);
  await form.getByLabel('Description').fill('Payroll');
  await form.getByRole('group', { name: 'Events' }).getByLabel('door.event').check();
  await form.getByRole('button', { name: 'Create webhook' }).click();
  const secret = (await page.locator('.panel.secret code').innerText()).trim();
  t.match(secret, /^whsec_/, 'the signing secret, shown once');
  const row = page.locator('tr[data-webhook]');
  t.match(
    await row.innerText(),
    /127\.0\.0\.1[\s\S]*Payroll[\s\S]*attendance\.recorded, door\.event[\s\S]*Enabled/,
    'listed with its events',
  );
  const stored = (await g.a.api<{ data: { events: string[] }[] }>('GET', '/api/webhooks')).body.data;
  t.same(stored[0]?.events, ['attendance.recorded', 'door.event'], 'subscribed through the API');

  await row.getByRole('button', { name: 'Deliveries' }).click();
  const deliveries = page.getByRole('region', { name: `Deliveries to ${r.url}` });
  await deliveries.getByText('No delivery in the last 7 days.').waitFor();
  await deliveries.getByRole('button', { name: 'Send a test' }).click();
  await deliveries.locator('tbody tr').first().getByText('✓ Delivered').waitFor({ timeout: 15_000 });
  t.equal(r.got.length, 1, 'the receiver got the test');
  const sent = r.got[0];
  const verified = new Webhook(secret).verify(sent?.body ?? '', sent?.headers as Record<string, string>) as { type: string };
  t.equal(verified.type, 'ping', 'signed with the secret shown');
  t.match(await deliveries.locator('tbody tr').first().innerText(), /ping[\s\S]*1[\s\S]*200/, 'type, attempts and answer');

  r.answer(500);
  await deliveries.getByRole('button', { name: 'Send a test' }).click();
  await deliveries.locator('tbody tr').first().getByText('↻ Pending').waitFor({ timeout: 15_000 });
  await deliveries.locator('tbody tr').first().getByText('500', { exact: false }).waitFor({ timeout: 15_000 });
  t.pass('a failing receiver: pending, with its answer');
  await deliveries.getByRole('button', { name: 'Redeliver failed (last 24 hours)' }).click();
  await deliveries.getByText('No failed delivery in the last 24 hours.').waitFor();
  for (const theme of ['light', 'dark'] as const) {
    await page.getByLabel('Theme', { exact: true }).selectOption(theme);
    await b.axe(t, page, `webhooks (${theme})`);
  }
  await b.shot(page, 'webhooks');

  await row.getByRole('button', { name: 'Disable' }).click();
  await row.getByText('Disabled').waitFor();
  t.match((await g.a.api('GET', '/api/webhooks')).body, { data: [{ enabled: false }] }, 'disabled through the API');
  await row.getByRole('button', { name: 'Enable' }).click();
  await row.getByText('Enabled').waitFor();

  await t.test('a read token sees the list, cut to scheme and host, without buttons', async (t) => {
    const reader = await signedIn(b, g.url, (await readToken(g)).token);
    await mainNav(reader)('Webhooks');
    const listed = reader.locator('tr[data-webhook]');
    await listed.waitFor();
    t.match(await listed.innerText(), /http:\/\/127\.0\.0\.1/, 'the URL as the API gives it');
    t.notMatch(await listed.innerText(), /\/hook/, 'without its path');
    t.equal(await reader.getByRole('button', { name: /Disable|Delete/ }).count(), 0, 'no write buttons');
    t.equal(await reader.getByRole('form', { name: 'New webhook' }).count(), 0, 'no form');
    await b.axe(t, reader, 'webhooks (read)');
  });

  await row.getByRole('button', { name: `Delete the webhook to ${r.url}` }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Type delete to confirm').fill('delete');
  await dialog.getByRole('button', { name: 'Delete webhook' }).click();
  await page.getByText('No webhook yet.').waitFor();
  t.same((await g.a.api('GET', '/api/webhooks')).body, { data: [] }, 'deleted through the API');
});
