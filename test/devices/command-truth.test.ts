// Issue #13 "Command status is the truth": what GET /api/commands/{id} and the command.updated
// events say is what the terminal did. Real app, raw device HTTP (and the hub the HTTP layer calls,
// where a lost reply has to be reproduced exactly), injected clock.
import t from 'tap';
import { codecFor } from '../../protocols/index.js';
import type { Command } from '../../src/store/ports/index.js';
import { ADMIN_TOKEN, bearer, fakeClock, fetchJson, jsonBody, startApp, type StartOptions } from '../helpers/app.js';

interface CommandView {
  id: number;
  command: string;
  status: string;
  response: string | null;
  error_message: string | null;
  result: Record<string, unknown> | null;
  sent_at: string | null;
}

async function setup(tt: Parameters<typeof startApp>[0], options: StartOptions = {}) {
  const app = await startApp(tt, { ...options, config: { longpollS: 0, adminToken: ADMIN_TOKEN, ...options.config } });
  const api = async (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)));
  const terminal = (sn: string) => {
    const q = (path: string) => `${app.url}/iclock/${path}${path.includes('?') ? '&' : '?'}SN=${sn}`;
    return {
      poll: async () => (await fetch(q('getrequest'))).text(),
      post: async (path: string, body: string) => (await fetch(q(path), { method: 'POST', body })).text(),
    };
  };
  const command = async (id: number) => (await api('GET', `/api/commands/${id}`)).body as CommandView;
  const queue = async (body: Record<string, unknown>) => (await api('POST', '/api/commands', body)).body as CommandView;
  /** Every command.updated event, by command id, as the statuses the API shows. */
  const events = new Map<number, string[]>();
  app.app.bus.on('command.updated', ({ command: c }) => {
    events.set(c.id, [...(events.get(c.id) ?? []), publicStatusOf(c)]);
  });
  const metric = async (name: string) => {
    const text = await (await fetch(`${app.url}/metrics`, { headers: bearer(ADMIN_TOKEN) })).text();
    const line = text.split('\n').find((l) => l.startsWith(name));
    return line === undefined ? 0 : Number(line.split(' ').at(-1));
  };
  return { app, api, terminal, command, queue, events, metric };
}

/** The API's view of a status (a fallback re-delivery is still `sent`): the same rule as src/devices/lifecycle.ts. */
function publicStatusOf(c: Command): string {
  return c.status === 'pending' && c.origin !== 'sync' && c.attempts > 0 ? 'sent' : c.status;
}

/** `C:<id>:<line>` replies → [{id, line}]. */
const lines = (reply: string) =>
  reply === 'OK'
    ? []
    : reply.split('\n').map((l) => {
        const [, id, ...rest] = l.split(':');
        return { id: Number(id), line: rest.join(':') };
      });

t.test('a result for a command the device was not sent completes nothing: logged, counted, ignored', async (t) => {
  const { api, terminal, command, queue, metric } = await setup(t);
  await api('POST', '/api/devices', { sn: 'TRUTH001' });
  await api('POST', '/api/devices', { sn: 'TRUTH002' });
  const door = await queue({ sn: 'TRUTH001', command: 'door-unlock' });
  const mine = terminal('TRUTH001');
  const other = terminal('TRUTH002');

  t.equal(await mine.post('devicecmd', `ID=${door.id}&Return=0&CMD=CONTROL`), 'OK', 'the device is answered as usual');
  t.match(await command(door.id), { status: 'pending', response: null }, 'still pending: it was never sent');
  t.equal(await other.post('devicecmd', `ID=${door.id}&Return=0&CMD=CONTROL`), 'OK');
  t.equal(await other.post('devicecmd', `ID=987654321&Return=0&CMD=CONTROL`), 'OK');
  t.equal((await command(door.id)).status, 'pending', "another serial's result changes nothing");

  const delivered = lines(await mine.poll());
  t.same(
    delivered.map((l) => l.id),
    [door.id],
    'and so it is still delivered',
  );
  t.equal(await other.post('devicecmd', `ID=${door.id}&Return=0&CMD=CONTROL`), 'OK');
  t.equal((await command(door.id)).status, 'sent', 'sent to TRUTH001: TRUTH002 cannot answer it');
  await mine.post('devicecmd', `ID=${door.id}&Return=0&CMD=CONTROL`);
  t.match(await command(door.id), { status: 'success' });
  await mine.post('devicecmd', `ID=${door.id}&Return=-1&CMD=CONTROL`);
  t.equal((await command(door.id)).status, 'success', 'a late second answer does not change a final status');
  t.equal(await metric('biogate_device_stray_results_total'), 5, 'every ignored result counted');
});

t.test('a v3 user sync sent again after a lost reply completes (child lines correlated per attempt)', async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const { api, app, terminal, command } = await setup(t, { clock });
  await api('POST', '/api/users', { pin: 7, first_name: 'Vera' });
  await api('POST', '/api/devices', { sn: 'TRUTHV31', version: '3.0.0' });
  const dev = terminal('TRUTHV31');
  const first = lines(await dev.poll());
  t.same(
    first.map((l) => l.line.split(' ').slice(0, 3).join(' ')),
    ['DATA UPDATE user', 'DATA UPDATE userauthorize'],
    'user + userauthorize',
  );
  const op = first[0]?.id as number;
  // The reply never reached the firmware (connection blip): no answer; the ack timeout re-queues the op.
  clock.advance((app.config.ackTimeoutS + 1) * 1000);
  await app.app.hub.sweepCommands();
  t.equal((await command(op)).status, 'pending', 'a background sync op goes again');
  const second = lines(await dev.poll());
  t.equal(second[0]?.id, op, 'same record');
  t.not(second[1]?.id, first[1]?.id, 'a new child id for the new attempt');
  for (const l of second) await dev.post('devicecmd', `ID=${l.id}&Return=0&CMD=DATA`);
  t.match(await command(op), { status: 'success', error_message: null }, 'done: the earlier attempt does not block it');
  await dev.post('devicecmd', `ID=${first[1]?.id}&Return=-1&CMD=DATA`);
  t.equal((await command(op)).status, 'success', 'a leftover answer of the earlier attempt changes nothing');
});

t.test('a user op whose result was lost, sent again after a newer change, delivers the current state', async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const { api, app, terminal, command } = await setup(t, { clock });
  await api('POST', '/api/users', { pin: 9, first_name: 'Nina' });
  await api('POST', '/api/devices', { sn: 'TRUTHSTA' });
  const dev = terminal('TRUTHSTA');
  for (const l of lines(await dev.poll())) await dev.post('devicecmd', `ID=${l.id}&Return=0&CMD=DATA`);
  await api('POST', '/api/users', { pin: 9, is_active: false });
  const [del] = lines(await dev.poll());
  t.equal(del?.line, 'DATA DELETE USERINFO PIN=9', 'deactivated: delete sent, its result lost');
  await api('POST', '/api/users', { pin: 9, is_active: true });
  const [up] = lines(await dev.poll());
  t.match(up?.line, /^DATA UPDATE USERINFO PIN=9\t/, 're-activated: a new op');
  await dev.post('devicecmd', `ID=${up?.id}&Return=0&CMD=DATA`);
  clock.advance((app.config.ackTimeoutS + 1) * 1000);
  await app.app.hub.sweepCommands();
  const again = lines(await dev.poll());
  t.same(
    again.map((l) => l.id),
    [del?.id],
    'the lost op goes again',
  );
  t.match(again[0]?.line, /^DATA UPDATE USERINFO PIN=9\t/, 'as the user is now: an upsert, never the stale delete');
  await dev.post('devicecmd', `ID=${del?.id}&Return=0&CMD=DATA`);
  t.equal((await command(del?.id as number)).status, 'success');
});

t.test('a batch whose reply did not reach the terminal goes back to pending, announced as sent only when delivered', async (t) => {
  const { app, api, terminal, command, queue, events } = await setup(t);
  await api('POST', '/api/devices', { sn: 'TRUTHGON' });
  const door = await queue({ sn: 'TRUTHGON', command: 'door-unlock' });
  // What src/push/routes.ts does for a getrequest, then what src/http tells it when the client had gone.
  const wire = { method: 'GET', path: '/iclock/getrequest', query: { SN: 'TRUTHGON' }, headers: {}, body: Buffer.alloc(0) };
  const reply = await app.app.hub.handle('TRUTHGON', {
    wire,
    decoded: codecFor('2.0.0').decode(wire),
    remoteAddress: '127.0.0.1',
    client: { gone: false, signal: new AbortController().signal },
  });
  t.equal(reply.body, `C:${door.id}:AC_UNLOCK`, 'the batch was claimed for this reply');
  t.type(reply.onSettled, 'function');
  reply.onSettled?.(false);
  t.same(events.get(door.id), ['pending'], 'no sent was announced');
  // The terminal polls again at once: its poll waits for the put-back (the actor's turn), so it is
  // the one that gets the command, on either store however slow.
  t.same(
    lines(await terminal('TRUTHGON').poll()).map((l) => l.id),
    [door.id],
    'the next poll delivers it',
  );
  t.same(events.get(door.id), ['pending', 'sent']);

  // Put back and left alone: the store says pending again, with no sent time.
  const gate = await queue({ sn: 'TRUTHGON', command: 'door-unlock' });
  const again = await app.app.hub.handle('TRUTHGON', {
    wire,
    decoded: codecFor('2.0.0').decode(wire),
    remoteAddress: '127.0.0.1',
    client: { gone: false, signal: new AbortController().signal },
  });
  t.equal(again.body, `C:${gate.id}:AC_UNLOCK`);
  again.onSettled?.(false);
  let stored = await command(gate.id);
  for (let i = 0; i < 100 && stored.status !== 'pending'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    stored = await command(gate.id);
  }
  t.match(stored, { status: 'pending', sent_at: null }, 'back to pending: the door never opened');
  t.same(events.get(gate.id), ['pending'], 'still no sent announced');
});

t.test('cancel: only while pending, atomically against a concurrent poll', async (t) => {
  const { api, terminal, command, queue } = await setup(t);
  await api('POST', '/api/devices', { sn: 'TRUTHCAN' });
  const dev = terminal('TRUTHCAN');
  const sent = await queue({ sn: 'TRUTHCAN', command: 'door-unlock' });
  await dev.poll();
  const refused = await api('DELETE', `/api/commands/${sent.id}`);
  t.match(refused, { res: { status: 409 }, body: { code: 'COMMAND_ALREADY_SENT' } });
  t.equal((await command(sent.id)).status, 'sent', 'a sent command is never marked cancelled');
  await dev.post('devicecmd', `ID=${sent.id}&Return=0&CMD=CONTROL`);
  t.equal((await command(sent.id)).status, 'success');

  for (let i = 0; i < 25; i++) {
    const c = await queue({ sn: 'TRUTHCAN', command: 'door-unlock' });
    const [reply, cancel] = await Promise.all([dev.poll(), api('DELETE', `/api/commands/${c.id}`)]);
    const delivered = lines(reply).some((l) => l.id === c.id);
    const now = await command(c.id);
    if (delivered) {
      if (cancel.res.status !== 409 || now.status !== 'sent')
        t.fail(`#${i}: delivered, yet cancel answered ${cancel.res.status} and the record says ${now.status}`);
      await dev.post('devicecmd', `ID=${c.id}&Return=0&CMD=CONTROL`);
    } else if (cancel.res.status !== 200 || now.status !== 'failed' || now.error_message !== 'cancelled') {
      t.fail(`#${i}: not delivered, yet cancel answered ${cancel.res.status} and the record says ${now.status}`);
    }
  }
  t.pass('25 races: delivered and cancelled never both');
});

t.test(
  'sync-users: pending → sent → success only once the terminal acknowledged every op; a refused op stays owed until it lands',
  async (t) => {
    const clock = fakeClock('2026-03-01T08:00:00.000Z');
    const { app, api, terminal, command, queue, events } = await setup(t, { clock });
    await api('POST', '/api/users', { pin: 1, first_name: 'One' });
    await api('POST', '/api/users', { pin: 2, first_name: 'Two' });
    await api('POST', '/api/devices', { sn: 'TRUTHSYN' });
    const dev = terminal('TRUTHSYN');
    for (const l of lines(await dev.poll())) await dev.post('devicecmd', `ID=${l.id}&Return=0&CMD=DATA`);

    const sync = await queue({ sn: 'TRUTHSYN', command: 'sync-users' });
    t.match(sync, { status: 'pending', result: { queued: 3 } });
    const batch = lines(await dev.poll());
    t.equal(batch.length, 3, 'load-users audit + two user ops');
    t.match(await command(sync.id), { status: 'sent' });
    const [audit, op1, op2] = batch as unknown as [{ id: number }, { id: number }, { id: number }];
    await dev.post('devicecmd', `ID=${audit.id}&Return=0&CMD=DATA\nID=${op1.id}&Return=0&CMD=DATA`);
    t.match(await command(sync.id), { status: 'sent' }, 'one op still outstanding');
    await dev.post('devicecmd', `ID=${op2.id}&Return=-1&CMD=DATA`);
    // Issue #31: a refused sync line is not failed; it stays owed and goes again after its back-off.
    t.match(await command(op2.id), { status: 'sent', result: { refused: { code: -1 } } }, 'the refused op stays owed');
    t.match(await command(sync.id), { status: 'sent' }, 'so does the composite');
    clock.advance((app.config.syncRetryMaxS + 1) * 1000);
    await app.app.hub.sweepCommands();
    const resend = lines(await dev.poll());
    t.same(
      resend.map((l) => l.id),
      [op2.id],
      'the refused op is sent again',
    );
    await dev.post('devicecmd', `ID=${op2.id}&Return=0&CMD=DATA`);
    const done = await command(sync.id);
    t.match(done, { status: 'success', result: { queued: 3, delivered: 3, failed: 0 } });
    t.same(events.get(sync.id), ['pending', 'sent', 'success'], 'one event per transition');

    const again = await queue({ sn: 'TRUTHSYN', command: 'sync-users' });
    for (const l of lines(await dev.poll())) await dev.post('devicecmd', `ID=${l.id}&Return=0&CMD=DATA`);
    t.match(await command(again.id), { status: 'success', error_message: null, result: { queued: 3, delivered: 3, failed: 0 } });
    t.same(events.get(again.id), ['pending', 'sent', 'success']);
  },
);

t.test('events: exactly one command.updated per transition; status never goes back except re-queued sync ops', async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const { app, api, terminal, queue, events } = await setup(t, { clock });
  await api('POST', '/api/devices', { sn: 'TRUTHEVT', version: '3.0.0' });
  const dev = terminal('TRUTHEVT');

  const open = await queue({ sn: 'TRUTHEVT', command: 'door-open' });
  t.equal(lines(await dev.poll())[0]?.id, open.id);
  // [COMMANDS §2.5] refused as unsupported: sent again as AC_UNLOCK, still `sent` for everyone.
  await dev.post('devicecmd', `ID=${open.id}&Return=-1002&CMD=CONTROL DEVICE`);
  t.same(
    lines(await dev.poll()).map((l) => l.line),
    ['AC_UNLOCK'],
  );
  await dev.post('devicecmd', `ID=${open.id}&Return=0&CMD=AC_UNLOCK`);
  t.same(events.get(open.id), ['pending', 'sent', 'success'], 'the fallback is not a transition');

  await api('POST', '/api/users', { pin: 5, first_name: 'Five' });
  const op = lines(await dev.poll())[0]?.id as number;
  t.same(events.get(op), ['pending', 'sent'], 'a sync op is announced when created and when sent');
  clock.advance((app.config.ackTimeoutS + 1) * 1000);
  await app.app.hub.sweepCommands();
  const again = lines(await dev.poll());
  for (const l of again) await dev.post('devicecmd', `ID=${l.id}&Return=0&CMD=DATA`);
  t.same(events.get(op), ['pending', 'sent', 'pending', 'sent', 'success'], 're-queue: the one documented way back');

  const later = await queue({ sn: 'TRUTHEVT', command: 'reboot' });
  const expiring = await queue({ sn: 'TRUTHEVT', command: 'door-close' });
  clock.advance(61_000);
  await app.app.hub.sweepCommands();
  t.same(events.get(expiring.id), ['pending', 'failed'], 'expiry');
  await api('DELETE', '/api/devices/TRUTHEVT');
  t.same(events.get(later.id), ['pending', 'failed'], 'unassignment');
});
