/**
 * Issue #12 "Nothing kills the process": an async event-bus listener that rejects is caught
 * and logged like a throwing one, never an unhandled rejection; the producer (here a real
 * API write) and the other listeners carry on.
 */
import t from 'tap';
import { ADMIN_TOKEN, logCapture, waitFor } from '../helpers/app.js';
import { gateway } from '../api/client.js';

t.test('a rejecting async listener is logged, never an unhandled rejection', async (t) => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  t.teardown(() => void process.off('unhandledRejection', onUnhandled));

  const logs = logCapture();
  const { a, started } = await gateway(t, { logs, config: { adminToken: ADMIN_TOKEN } });
  const seen: number[][] = [];
  started.app.bus.on('user.changed', async () => {
    await new Promise((r) => setTimeout(r, 5));
    throw new Error('async listener broke');
  });
  started.app.bus.on('user.changed', () => {
    throw new Error('sync listener broke');
  });
  started.app.bus.on('user.changed', (e) => void seen.push([...e.pins]));

  const created = await a.api('POST', '/api/users', { body: { pin: 5, first_name: 'Five' } });
  t.equal(created.status, 201, 'the producer is not affected');
  await waitFor(() => logs.entries().filter((e) => e['msg'] === 'event listener failed').length === 2, 2000, 'both failures logged');
  const failures = logs.entries().filter((e) => e['msg'] === 'event listener failed');
  t.strictSame(failures.map((e) => (e['err'] as { message: string }).message).sort(), ['async listener broke', 'sync listener broke']);
  t.strictSame(seen, [[5]], 'the other listener still ran');
  await new Promise((r) => setTimeout(r, 50));
  t.strictSame(unhandled, [], 'no unhandled rejection');
  t.equal((await a.api('GET', '/api/users/5')).status, 200, 'the process carries on');
});
