/**
 * The console's "Add a terminal" guide (issue #38 item 7), in Chromium against the real app: it shows the server
 * address, port and HTTPS setting to enter on the terminal and, with a full token, generates a comm key; the terminal
 * is assigned with that key, and a simulated terminal configured with exactly what the page shows comes online.
 * With an operator token on a location that requires comm keys, the guide says who can set one instead. axe-core
 * clean in both themes.
 */
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { signedIn } from './pages.js';

const SN = 'GUIDE1';

t.test('add a terminal: what to enter on it, a comm key, and the terminal online with them', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  const b = await openBrowser(t, () => g.url);
  const page = await signedIn(b, g.url, g.a.token);
  await page.getByText('Add a terminal').click();
  const setting = (name: string) => page.locator(`dl[aria-label="Terminal settings"] dd[data-setting="${name}"]`).innerText();
  const url = new URL(g.url);
  t.equal(await setting('address'), url.hostname, 'the server address this page came from');
  t.equal(await setting('port'), url.port, 'and its port');
  t.equal(await setting('https'), 'Off', 'plain HTTP');
  t.equal(await setting('comm-key'), 'none', 'no comm key yet');

  const form = page.getByRole('form', { name: 'Add a terminal' });
  await form.getByRole('button', { name: 'Generate a comm key' }).click();
  const key = await form.getByLabel('Comm key').inputValue();
  t.match(key, /^\d{6}$/, 'six digits, what a terminal takes');
  t.equal(await setting('comm-key'), key, 'shown with the other settings');
  await form.getByLabel('Serial number').fill(SN);
  await form.getByLabel('Name').fill('Reception');
  await form.getByRole('button', { name: 'Assign' }).click();
  await page.getByText(`${SN} assigned`).waitFor();
  t.match(await page.getByText(`${SN} assigned`).innerText(), `${url.hostname}:${url.port} with comm key ${key}.`);
  t.match((await g.a.api('GET', `/api/devices/${SN}`)).body, { name: 'Reception', auth: 'comm_key' }, 'assigned with the key');
  for (const theme of ['light', 'dark'] as const) {
    await page.getByLabel('Theme', { exact: true }).selectOption(theme);
    await b.axe(t, page, `add a terminal (${theme})`);
  }
  await b.shot(page, 'add-terminal');

  // A terminal set up with exactly what the page shows.
  const address = `http://${await setting('address')}:${await setting('port')}`;
  const sim = createSimulatedDevice({ url: address, sn: SN, protocol: 'v2', commKey: key, requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  sim.start();
  await page.locator(`li[data-sn="${SN}"]`).getByText('● Online').waitFor({ timeout: 15_000 });
  t.pass('the terminal is online with the settings the guide showed');
  const wrong = createSimulatedDevice({ url: address, sn: SN, protocol: 'v2', commKey: '000000', requestTimeoutMs: 10_000 });
  t.teardown(() => wrong.stop());
  await t.rejects(wrong.handshake(), 'a terminal with another comm key is refused');
});

t.test('an operator token where comm keys are required: the guide says who can set one', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  await g.started.app.locations.update(g.a.id, { require_comm_key: true });
  const operator = await g.started.app.locations.issueToken({ location_id: g.a.id, scope: 'operator' });
  const b = await openBrowser(t, () => g.url);
  const page = await signedIn(b, g.url, operator.token);
  await page.getByText('Add a terminal').click();
  await page.getByText('Terminals here need a comm key, which only a full token can set').waitFor();
  t.equal(await page.getByLabel('Comm key').count(), 0, 'no comm key field for a token that cannot set one');
  t.equal(
    await page.locator('dl[aria-label="Terminal settings"] dd[data-setting="comm-key"]').innerText(),
    'required: a full token sets it',
  );
  await b.axe(t, page, 'add a terminal (operator)');
});
