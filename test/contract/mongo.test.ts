/**
 * The store contract against the MongoDB adapter, plus what only it has (URL parsing, schema,
 * helpers). Needs a real MongoDB-compatible server: BIOGATE_TEST_MONGO_URL, e.g. from
 * `eval "$(deploy/test-mongo/start.sh)"`. Each contract case gets a database of its own, named
 * from that URL's database, and every database created here is dropped at the end.
 */
import t from 'tap';

const url = process.env['BIOGATE_TEST_MONGO_URL'];

if (!url) {
  t.test(
    'store contract (MongoDB)',
    { skip: 'BIOGATE_TEST_MONGO_URL is not set: start a server with `eval "$(deploy/test-mongo/start.sh)"` to run the MongoDB leg' },
    () => {},
  );
} else {
  const { MongoClient, MongoServerError, MongoBulkWriteError } = await import('mongodb');
  const { openMongoStore } = await import('../../src/store/mongo/index.js');
  const { clientOptions, databaseName } = await import('../../src/store/mongo/connect.js');
  const util = await import('../../src/store/mongo/util.js');
  const { openStore } = await import('../../src/store/open.js');
  const { storeContract } = await import('./store-contract.js');

  const base = databaseName(url);
  const created: string[] = [];
  /** The URL with another database name, remembered for the final drop. */
  const fresh = (): string => {
    const name = `${base}_${process.pid}_${created.length + 1}`;
    created.push(name);
    return url.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]*)(\/[^?]*)?/, `$1/${name}`);
  };
  t.teardown(async () => {
    const client = new MongoClient(url);
    try {
      for (const name of created) await client.db(name).dropDatabase();
    } finally {
      await client.close();
    }
  });

  t.test('store contract (MongoDB)', async (t) => {
    // The adapter gives up on server selection after 1 s (connect.ts); a test server just started on a busy
    // machine (a cold JVM) can take longer to answer its first connection, so it is woken first.
    const warm = new MongoClient(url, { serverSelectionTimeoutMS: 30_000 });
    await warm.db('admin').command({ ping: 1 });
    await warm.close();
    storeContract(t, () => openMongoStore(fresh()));
  });

  t.test('mongo: kept location counts are corrected after a write that missed its count, never while one is under way', async (t) => {
    const target = fresh();
    const store = await openMongoStore(target);
    t.teardown(() => store.close());
    const at = '2026-11-21T09:00:00.000Z';
    const a = await store.locations.create({ name: 'A', timezone: 'UTC' }, at);
    await store.users.upsertMany(
      a.id,
      [1, 2, 3].map((pin) => ({ pin, fields: {} })),
      at,
    );
    await store.devices.assign(a.id, 'KEPT-1', { name: null }, at);
    const client = new MongoClient(target);
    t.teardown(() => client.close());
    const kept = client.db(databaseName(target)).collection<{ _id: number; users: number; devices: number; v: number }>('location_counts');
    t.match(await kept.findOne({ _id: a.id }), { users: 3, devices: 1 }, 'kept by the writes');
    // A crash between a user's insert and its count: the document says one less.
    await kept.updateOne({ _id: a.id }, { $inc: { users: -1 } });
    t.same(await store.locations.counts(a.id), { users: 2, devices: 1 }, 'shown as kept');
    t.equal(await store.locations.reconcileCounts(), 0, 'a difference seen once is not stored: a count may be on its way');
    t.same(await store.locations.counts(a.id), { users: 2, devices: 1 });
    t.equal(await store.locations.reconcileCounts(), 1, 'seen again with no write since: corrected');
    t.same(await store.locations.counts(a.id), { users: 3, devices: 1 });
    t.equal((await store.users.list(a.id, {}, { offset: 0, limit: 1 })).total, 3, 'the unfiltered users list total');

    // A difference seen, then a write counted before the next round: that round starts over.
    await kept.updateOne({ _id: a.id }, { $inc: { devices: 1 } });
    t.equal(await store.locations.reconcileCounts(), 0);
    await store.users.upsert(a.id, 4, {}, at);
    t.equal(await store.locations.reconcileCounts(), 0, 'a count came in between: not corrected yet');
    t.same(await store.locations.counts(a.id), { users: 4, devices: 2 });
    t.equal(await store.locations.reconcileCounts(), 1);
    t.same(await store.locations.counts(a.id), { users: 4, devices: 1 });

    // A location from before the counts were kept: counted and seeded on its first read.
    await kept.deleteOne({ _id: a.id });
    t.same(await store.locations.counts(a.id), { users: 4, devices: 1 }, 'counted');
    t.match(await kept.findOne({ _id: a.id }), { users: 4, devices: 1 }, 'and kept from then on');
    t.same(await store.locations.counts(a.id + 100), { users: 0, devices: 0 }, 'an unknown location');
    t.equal(await kept.findOne({ _id: a.id + 100 }), null, 'keeps nothing');
  });

  t.test('mongo: schema is created idempotently; sharded collections key their unique indexes by location', async (t) => {
    const target = fresh();
    const first = await openMongoStore(target);
    await first.locations.create({ name: 'A', timezone: 'UTC' }, '2026-11-21T09:00:00.000Z');
    const second = await openMongoStore(target);
    t.equal(
      (await second.locations.create({ name: 'B', timezone: 'UTC' }, '2026-11-21T09:00:01.000Z')).id,
      2,
      'reopening keeps the counters',
    );
    await Promise.all([first.close(), second.close()]);

    const client = new MongoClient(target);
    try {
      const db = client.db(databaseName(target));
      for (const name of ['users', 'templates', 'commands', 'attendance', 'door_events']) {
        const unique = (await db.collection(name).listIndexes().toArray()).filter((i) => i['unique'] === true);
        t.ok(
          unique.every((i) => Object.keys(i['key'] as object)[0] === 'location_id'),
          `${name}: unique keys start with location_id`,
        );
      }
      const names = (await db.collection('commands').listIndexes().toArray()).map((i) => i['name'] as string).sort();
      t.same(
        names,
        [
          '_id_',
          'feed_event',
          'group_status',
          'location_id_desc',
          'location_idem_unique',
          'location_sn_sync_slot_unique',
          'mailbox_fifo',
          'parent',
          'sn_location',
          'status_expires_at',
          'status_sent_at',
          'status_updated_at',
        ],
        'one set of indexes after two startups',
      );
    } finally {
      await client.close();
    }
  });

  t.test('mongo: an unreachable server fails the startup, not later', async (t) => {
    await t.rejects(openMongoStore('mongodb://127.0.0.1:1/biogate?serverSelectionTimeoutMS=300&connectTimeoutMS=300'));
  });

  t.test('mongo: connection string parsing', async (t) => {
    t.equal(databaseName('mongodb://h1:27017,h2:27017'), 'biogate', 'default database');
    t.equal(databaseName('mongodb://h1/?replicaSet=rs0'), 'biogate', 'empty path');
    t.equal(databaseName('mongodb+srv://u:p%40ss@cluster.example.net/gate_eu?retryWrites=true'), 'gate_eu');
    t.equal(databaseName('mongodb://h/my%2Ddb'), 'my-db', 'percent-decoded');
    t.same(
      clientOptions('mongodb://h/db'),
      {
        appName: 'biogate',
        serverSelectionTimeoutMS: 1_000,
        connectTimeoutMS: 2_000,
        socketTimeoutMS: 30_000,
        writeConcern: { w: 'majority' },
      },
      'defaults: an outage is an answer within about a second; acknowledged writes survive a failover (issue #32)',
    );
    t.same(
      clientOptions('mongodb://h/db?APPNAME=x&serverselectiontimeoutms=500&maxPoolSize=5&CONNECTTIMEOUTMS=9&socketTimeoutMS=9'),
      { writeConcern: { w: 'majority' } },
      'URL options win, whatever their case (no w given: majority)',
    );
    t.throws(() => databaseName('postgres://u:secret@h/db'), { message: /not a MongoDB connection string/ });
    t.throws(() => databaseName('mongodb:/broken'), { message: /not a MongoDB connection string/ });
  });

  t.test('store URL selects the adapter', async (t) => {
    const sqlite = await openStore('sqlite::memory:');
    t.equal(sqlite.kind, 'sqlite');
    await sqlite.close();
    const mongo = await openStore(fresh());
    t.equal(mongo.kind, 'mongodb');
    await mongo.ping();
    await mongo.close();
    await t.rejects(openStore('postgres://user:secret@h/db'), {
      message: 'BIOGATE_STORE: unsupported store URL "postgres://***@h/db" (use sqlite:<path> or mongodb://…)',
    });
  });

  t.test('mongo: helpers', async (t) => {
    const dup = new MongoServerError({ message: 'E11000 duplicate key', code: 11000 });
    const other = new MongoServerError({ message: 'boom', code: 2 });
    t.equal(util.isDuplicateKey(dup), true);
    t.equal(util.isDuplicateKey(other), false);
    t.equal(util.isDuplicateKey(new Error('x')), false);
    const bulk = (codes: number[]) =>
      new MongoBulkWriteError(
        { message: 'bulk', code: 11000, writeErrors: codes.map((code, index) => ({ index, code, errmsg: 'x' })) } as never,
        {} as never,
      );
    t.equal(util.isDuplicateKey(bulk([11000, 11000])), true, 'bulk: all duplicates');
    t.equal(util.isDuplicateKey(bulk([11000, 121])), false, 'bulk: one validation error');
    t.equal(util.isDuplicateKey(bulk([])), false, 'bulk: no write errors');
    t.doesNotThrow(() => util.ignoreDuplicates(dup));
    t.throws(() => util.ignoreDuplicates(other), other);
    t.equal(await util.unlessDuplicate(Promise.reject(dup)), undefined);
    await t.rejects(util.unlessDuplicate(Promise.reject(other)), other);
    t.equal(await util.unlessDuplicate(Promise.resolve(5)), 5);

    let calls = 0;
    t.equal(await util.settle('x', async () => (++calls < 3 ? undefined : 'done')), 'done', 'retries until settled');
    t.equal(calls, 3);
    await t.rejects(
      util.settle('spin', async () => undefined, 4),
      { message: 'mongo store: spin did not settle after 4 attempts' },
    );
    t.throws(() => util.present(null, 'counter "users"'), { message: 'mongo store: counter "users" is missing' });
    t.equal(util.present(0, 'zero'), 0);
    t.same(await util.mapLimit([3, 1, 2], 2, async (n) => n * 10), [30, 10, 20], 'results in input order');
    t.same(await util.mapLimit([], 2, async (n: number) => n), []);
    t.equal(util.maybe(undefined, String), undefined);
    t.same(util.pageOf({ offset: 5, limit: 0 }), undefined);
  });
}
