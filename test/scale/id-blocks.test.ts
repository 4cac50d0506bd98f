/**
 * MongoDB id counters without a cluster-wide hot document (issue #14, src/store/mongo/ids.ts): each
 * node takes a block of ids per `$inc` and hands them out locally. Two connections on one database
 * (two nodes) allocating at once get unique integers, and the counter document is written once per
 * block, not once per id. Needs BIOGATE_TEST_MONGO_URL.
 */
import t from 'tap';
import type * as Tap from 'tap';

const url = process.env['BIOGATE_TEST_MONGO_URL'];

if (!url) {
  t.test(
    'id blocks (MongoDB)',
    { skip: 'BIOGATE_TEST_MONGO_URL is not set: start a server with `eval "$(deploy/test-mongo/start.sh)"`' },
    () => {},
  );
} else {
  const { MongoClient } = await import('mongodb');
  const { BLOCK_SIZES, ensureCounters, idAllocator } = await import('../../src/store/mongo/ids.js');
  const { COUNTERS } = await import('../../src/store/mongo/schema.js');
  const { databaseName } = await import('../../src/store/mongo/connect.js');
  const { openMongoStore } = await import('../../src/store/mongo/index.js');

  let databases = 0;
  /** A fresh database URL, dropped when the test ends. */
  const fresh = (t: Tap.Test): string => {
    const name = `${databaseName(url)}_ids_${process.pid}_${++databases}`;
    t.teardown(async () => {
      const client = new MongoClient(url);
      try {
        await client.db(name).dropDatabase();
      } finally {
        await client.close();
      }
    });
    return url.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]*)(\/[^?]*)?/, `$1/${name}`);
  };

  /** A node: its own connection, allocator, and a count of the writes it sent to `counters`. */
  const node = async (t: Tap.Test, target: string) => {
    const client = new MongoClient(target, { monitorCommands: true });
    await client.connect();
    t.teardown(() => client.close());
    let counterWrites = 0;
    client.on('commandStarted', (e) => {
      if (e.commandName === 'findAndModify' && (e.command as { findAndModify?: string }).findAndModify === 'counters') counterWrites++;
    });
    const counters = client.db(databaseName(target)).collection<{ _id: string; seq: number }>('counters');
    await ensureCounters(counters, COUNTERS);
    return { ids: idAllocator(counters), counters, writes: () => counterWrites };
  };

  t.test('two nodes allocating at once: unique integers, one counter write per block', async (t) => {
    const target = fresh(t);
    const [a, b] = await Promise.all([node(t, target), node(t, target)]);
    const block = BLOCK_SIZES.commands;
    t.ok(block >= 50, `commands take ${block} ids per counter write`);

    // Each node: 1,000 single ids, all requested at once, plus runs (a sync batch takes one run).
    const taken: number[] = [];
    const runs: { first: number; count: number }[] = [];
    await Promise.all(
      [a, b].flatMap((n) => [
        ...Array.from({ length: 1000 }, async () => void taken.push(await n.ids('commands'))),
        ...[3, 7, 40, 250].map(async (count) => runs.push({ first: await n.ids('commands', count), count })),
      ]),
    );
    for (const r of runs) for (let i = 0; i < r.count; i++) taken.push(r.first + i);
    const used = 2 * (1000 + 3 + 7 + 40 + 250);
    t.equal(taken.length, used);
    t.ok(
      taken.every((id) => Number.isInteger(id) && id > 0),
      'positive integers',
    );
    t.equal(new Set(taken).size, used, 'no id handed out twice, runs included');

    const writes = a.writes() + b.writes();
    const seq = (await a.counters.findOne({ _id: 'commands' }))?.seq ?? 0;
    t.ok(writes <= Math.ceil(used / block) + 2 * 4 + 2, `${writes} counter writes for ${used} ids (one per ${block}, plus the runs)`);
    t.ok(writes * 10 < used, 'far fewer writes than ids');
    // Unused ids (gaps): what is left of a block when a run does not fit it, and each node's last block.
    t.ok(
      seq >= Math.max(...taken) && seq - used < 2 * (4 + 1) * block,
      `counter at ${seq}: ${seq - used} ids left unused (gaps, never reused)`,
    );
  });

  t.test('on one node ids keep increasing, also across a run that does not fit the block', async (t) => {
    const a = await node(t, fresh(t));
    const seen: number[] = [];
    for (let i = 0; i < 30; i++) seen.push(await a.ids('attendance'));
    seen.push(await a.ids('attendance', 500)); // larger than a block: an exact run of its own
    seen.push(await a.ids('attendance', 80)); // does not fit what is left: a fresh block after the run
    for (let i = 0; i < 30; i++) seen.push(await a.ids('attendance'));
    t.ok(
      seen.every((id, i) => i === 0 || id > (seen[i - 1] as number)),
      'strictly increasing',
    );
    t.equal(seen[31], (seen[30] as number) + 500, 'the run of 500 was consecutive');
  });

  t.test('rare sequences take one id at a time: no gaps from short-lived processes (CLI)', async (t) => {
    const target = fresh(t);
    const made: number[] = [];
    for (let i = 0; i < 3; i++) {
      const store = await openMongoStore(target); // a CLI run: open, create one location, close
      made.push((await store.locations.create({ name: `L${i}`, timezone: 'UTC' }, '2026-11-24T10:00:00.000Z')).id);
      await store.close();
    }
    t.same(made, [1, 2, 3]);
  });

  t.test('a counter behind its collection: the colliding block is dropped, the write succeeds with a fresh id', async (t) => {
    const target = fresh(t);
    const first = await openMongoStore(target);
    t.teardown(() => first.close());
    const location = await first.locations.create({ name: 'A', timezone: 'UTC' }, '2026-11-24T10:00:00.000Z');
    for (let pin = 1; pin <= 20; pin++) await first.users.upsert(location.id, pin, { first_name: `U${pin}` }, '2026-11-24T10:00:00.000Z');

    // Restored from an old backup: the users counter goes back to 0.
    const client = new MongoClient(target);
    t.teardown(() => client.close());
    const counters = client.db(databaseName(target)).collection<{ _id: string; seq: number }>('counters');
    await counters.updateOne({ _id: 'users' }, { $set: { seq: 0 } });

    // A second node takes the block 1..50 from the counter: its first id is taken, and so are the
    // next 19. Retrying from the same block would fail again and again; the block must go.
    const second = await openMongoStore(target);
    t.teardown(() => second.close());
    const created = await second.users.upsert(location.id, 21, { first_name: 'U21' }, '2026-11-24T10:00:01.000Z');
    t.equal(created.created, true, 'the write answers');
    t.ok(created.user.id > 20, `with a fresh id (${created.user.id})`);
    const all = await second.users.list(location.id, {}, { offset: 0, limit: 100 });
    t.equal(new Set(all.items.map((u) => u.id)).size, 21, '21 users, 21 ids');
  });
}
