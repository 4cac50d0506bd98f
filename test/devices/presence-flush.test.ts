// The write-behind of last_seen (src/devices/presence.ts) against a real SQLite store, issue #20: at
// 10,000 held terminals one flush wrote every row in one synchronous call and held the event loop for
// 150-290 ms every 5 s. It now writes in batches with a turn of the event loop between them; what it
// writes is unchanged. Nothing here is timed: the test looks at what is written when other work runs.
import t, { type Test } from 'tap';
import { EventBus } from '../../src/events/bus.js';
import { Presence } from '../../src/devices/presence.js';
import { createLogger } from '../../src/log.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';

const TERMINALS = 1_000;
const serial = (i: number) => `FLUSH${String(i).padStart(5, '0')}`;

async function setup(t: Test) {
  const store = openSqliteStore(':memory:');
  t.teardown(() => store.close());
  const at = Date.parse('2026-11-28T08:00:00Z');
  for (let i = 0; i < TERMINALS; i++) await store.devices.ensure(serial(i), new Date(at).toISOString());
  const presence = new Presence(store, new EventBus(), createLogger({ level: 'silent' }), 60_000, 'node-a');
  for (let i = 0; i < TERMINALS; i++) presence.seen(serial(i), null, '10.0.0.1', at + i);
  // The online announcements (compare-and-set in the store) settle first.
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  const written = async () => {
    let n = 0;
    for (let i = 0; i < TERMINALS; i++) if ((await store.devices.getBySerial(serial(i)))?.last_seen) n++;
    return n;
  };
  return { store, presence, at, written };
}

t.test('a flush of many terminals lets other work run between its batches, and writes them all', async (t) => {
  const { store, presence, at, written } = await setup(t);
  t.equal(await written(), 0, 'nothing written before the flush');
  let meanwhile: Promise<number> | undefined;
  // Queued right after the flush starts: it runs at the flush's first turn of the event loop.
  setImmediate(() => {
    meanwhile = written();
  });
  await presence.flush();
  const seenMidway = await meanwhile;
  t.ok(
    seenMidway !== undefined && seenMidway > 0 && seenMidway < TERMINALS,
    `other work ran mid-flush (${seenMidway} of ${TERMINALS} written then)`,
  );
  t.equal(await written(), TERMINALS, 'every terminal written at the end');
  t.equal(
    (await store.devices.getBySerial(serial(7)))?.last_seen,
    new Date(at + 7).toISOString(),
    'the value written is the time the terminal was seen',
  );
  t.equal((await store.devices.getBySerial(serial(7)))?.last_address, '10.0.0.1');
});

t.test('a second flush while one runs waits for it, then writes what was seen meanwhile', async (t) => {
  const { store, presence, at } = await setup(t);
  const one = presence.flush();
  // Seen again while the first flush is under way (between its batches).
  await new Promise((r) => setImmediate(r));
  presence.seen(serial(0), null, '10.0.0.1', at + 60_000);
  const two = presence.flush();
  await Promise.all([one, two]);
  t.equal((await store.devices.getBySerial(serial(0)))?.last_seen, new Date(at + 60_000).toISOString(), 'the newer time is written');
  t.equal((await store.devices.getBySerial(serial(TERMINALS - 1)))?.last_seen, new Date(at + TERMINALS - 1).toISOString());
});
