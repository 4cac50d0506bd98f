// Leadership (src/events/leader.ts): one leader per name at a time; a leader that stops hands over at
// once, one that dies (stops renewing) is replaced when its lease runs out.
import t from 'tap';
import { join } from 'node:path';
import { createLeadership } from '../../src/events/leader.js';
import { createLogger } from '../../src/log.js';
import { openStore } from '../../src/store/open.js';
import { fakeClock, tempDir } from '../helpers/app.js';

t.test('one leader at a time; hand-over on stop and on expiry', async (t) => {
  const dir = await tempDir(t);
  const store = await openStore(`sqlite:${join(dir, 'leader.db')}`);
  t.teardown(() => store.close());
  const clock = fakeClock();
  const log = createLogger({ level: 'silent' });
  const a = createLeadership({ store, clock, log, node: 'a', name: 'bridge', leaseMs: 15_000 });
  const b = createLeadership({ store, clock, log, node: 'b', name: 'bridge', leaseMs: 15_000 });
  const changes: string[] = [];
  a.onChange((l) => changes.push(`a:${l}`));
  b.onChange((l) => changes.push(`b:${l}`));
  await a.start();
  await b.start();
  t.teardown(() => Promise.all([a.stop(), b.stop()]));
  t.same([a.isLeader(), b.isLeader()], [true, false], 'the first to start leads');
  await a.stop();
  t.same(changes, ['a:true', 'a:false'], 'stopping steps down');
  // b takes over at its next renewal (every lease/3 = 5 s of real time): call it as the timer would.
  const c = createLeadership({ store, clock, log, node: 'c', name: 'bridge', leaseMs: 15_000 });
  await c.start();
  t.teardown(() => c.stop());
  t.equal(c.isLeader(), true, 'the released lease is free at once');
  // c dies without releasing: nobody else leads until the lease has run out.
  const d = createLeadership({ store, clock, log, node: 'd', name: 'bridge', leaseMs: 15_000 });
  await d.start();
  t.equal(d.isLeader(), false, 'c still holds it');
  await d.stop();
  clock.advance(16_000);
  const e = createLeadership({ store, clock, log, node: 'e', name: 'bridge', leaseMs: 15_000 });
  await e.start();
  t.teardown(() => e.stop());
  t.equal(e.isLeader(), true, 'after the lease ran out, another node leads');
});
