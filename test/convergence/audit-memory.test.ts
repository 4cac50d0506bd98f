// The heartbeat count check (src/sync/audit.ts `onCounts`) remembers the last count per terminal for
// RECHECK_MS; what it remembers stays bounded by the terminals heard from within that time, not by
// every serial ever heard (a gateway up for months, terminals coming and going).
import t from 'tap';
import { bearer, fakeClock, fetchJson, jsonBody, startApp } from '../helpers/app.js';
import { auditOf } from './helpers.js';

t.test('remembered counts older than the recheck interval are dropped as new terminals report', async (t) => {
  const clock = fakeClock();
  const app = await startApp(t, { clock, config: { longpollS: 0 } });
  t.equal((await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn: 'MEMO0001' }, bearer(app.token)))).res.status, 201);
  const device = await app.app.store.devices.get(app.locationId, 'MEMO0001');
  if (!device) throw new Error('no device');
  const audit = auditOf(app.app, clock, { intervalS: 86_400, maxOutstanding: 50 });
  const report = async (prefix: string, n: number) => {
    // A count equal to the (empty) roster: remembered, no audit started.
    for (let i = 0; i < n; i++) await audit.onCounts({ ...device, serial_number: `${prefix}${i}` }, { users: 0 });
  };
  await report('OLD', 1_500);
  t.equal(audit.remembered(), 1_500, 'every terminal heard from within the hour is remembered');
  clock.advance(2 * 3_600_000);
  await report('NEW', 1_500);
  t.ok(audit.remembered() <= 1_500, `the hour-old ones are dropped (${audit.remembered()} remembered)`);
});
