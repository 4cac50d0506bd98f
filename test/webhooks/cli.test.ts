// `biogate webhook list|create|delete` (issue #16) on the store of a running app: what the CLI
// creates the server delivers, signed with the secret the CLI printed once.
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { startReceiver, verifySignature } from './receiver.js';

t.test('webhook create (secret printed once), list, delete; the server delivers to it', async (t) => {
  const app = await startApp(t, { config: { webhookAllowPrivate: 'on', webhookAllowHttp: 'on' } });
  const rx = await startReceiver(t);
  const env = { BIOGATE_STORE: app.storeUrl, BIOGATE_WEBHOOK_ALLOW_PRIVATE: 'on', BIOGATE_WEBHOOK_ALLOW_HTTP: 'on' };
  const loc = String(app.locationId);

  const bad = await cli(['webhook', 'create', '--location', loc, '--url', rx.url, '--events', 'user.changed,nope'], env);
  t.equal(bad.code, 2, 'unknown event: usage error');
  t.match(bad.stderr, /unknown: nope/);
  const refused = await cli(['webhook', 'create', '--location', loc, '--url', rx.url, '--events', 'user.changed'], {
    BIOGATE_STORE: app.storeUrl,
    BIOGATE_WEBHOOK_ALLOW_HTTP: 'on',
  });
  t.not(refused.code, 0, 'a private address without the setting: refused');
  t.match(refused.stderr, /BIOGATE_WEBHOOK_ALLOW_PRIVATE/);

  const made = await cli(
    ['webhook', 'create', '--location', loc, '--url', rx.url, '--events', 'user.changed', '--description', 'from cli', '--json'],
    env,
  );
  t.equal(made.code, 0, made.stderr);
  const hook = JSON.parse(made.stdout) as { id: number; secret: string; events: string[]; description: string };
  t.match(hook, { events: ['user.changed'], description: 'from cli', secret: /^whsec_/ });

  const list = await cli(['webhook', 'list', '--location', loc], env);
  t.equal(list.code, 0);
  t.match(list.stdout, new RegExp(`^${hook.id}\\tenabled \\t${rx.url.replace(/[.]/g, '\\.')}\\tuser\\.changed`, 'm'));
  t.notOk(list.stdout.includes(hook.secret), 'the list never shows the secret');

  const res = await fetch(`${app.url}/api/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${app.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ pin: 5, first_name: 'Cli' }),
  });
  t.equal(res.status, 201);
  await app.app.feed.settled();
  await app.app.webhooks.runOnce();
  t.equal(rx.received.length, 1, 'delivered by the server');
  t.ok(rx.received[0] && verifySignature(hook.secret, rx.received[0].headers, rx.received[0].body), 'signed with the printed secret');

  t.equal((await cli(['webhook', 'delete', '--location', loc, '--id', String(hook.id)], env)).code, 0);
  const again = await cli(['webhook', 'delete', '--location', loc, '--id', String(hook.id)], env);
  t.not(again.code, 0);
  t.match(again.stderr, /No webhook/);
  t.match((await cli(['webhook', 'list', '--location', loc], env)).stdout, /No webhooks/);
  t.equal((await cli(['webhook', 'create', '--help'], {})).code, 0, '--help');
});
