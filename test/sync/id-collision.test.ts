// MongoDB ids (src/store/mongo/ids.ts): a counter behind its collection (restored from an older
// backup, reset by hand) hands out ids that are taken. A sync op whose _id collides is not a lost
// race for its (device, user) slot: the adapter moves the counter past the collection and takes a
// fresh id, so the user write answers and the terminal gets the user (it answered 500 before).
import t from 'tap';
import { bearer, fetchJson, jsonBody, startApp, TEST_STORE } from '../helpers/app.js';

t.test(
  'a sync op whose id the counter handed out twice is queued with a fresh id',
  { skip: TEST_STORE !== 'mongodb' && 'MongoDB only: SQLite ids come from AUTOINCREMENT (run with BIOGATE_TEST_API_STORE=mongodb)' },
  async (t) => {
    const app = await startApp(t);
    const api = async (method: string, path: string, body?: unknown) =>
      fetchJson(
        `${app.url}${path}`,
        body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)),
      );
    const poll = async (sn: string) => (await fetch(`${app.url}/iclock/getrequest?SN=${sn}`)).text();

    t.equal((await api('POST', '/api/devices', { sn: 'IDS00001' })).res.status, 201);
    for (const pin of [1, 2, 3]) t.equal((await api('POST', '/api/users', { pin, first_name: `U${pin}` })).res.status, 201);

    // The counter goes back to 0: every id it hands out next is already a command's.
    const { MongoClient } = await import('mongodb');
    const client = new MongoClient(app.storeUrl);
    t.teardown(() => client.close());
    await client
      .db()
      .collection<{ _id: string; seq: number }>('counters')
      .updateOne({ _id: 'commands' }, { $set: { seq: 0 } });

    const created = await api('POST', '/api/users', { pin: 4, first_name: 'U4' });
    t.equal(created.res.status, 201, 'the write answers');
    const pending = (await api('GET', '/api/commands?status=pending&limit=100')).body as {
      data: { id: number; params: { pin?: number } | null }[];
    };
    const ops = pending.data.filter((c) => c.params?.pin === 4);
    t.equal(ops.length, 1, 'one op for the new user');
    t.ok((ops[0]?.id ?? 0) > 3, 'with a fresh id');
    t.equal(new Set(pending.data.map((c) => c.id)).size, pending.data.length, 'ids stay unique');
    const wire = await poll('IDS00001');
    t.match(wire, /DATA UPDATE USERINFO PIN=4\t/, 'the terminal gets the user');

    // The users counter too: a new user takes a fresh id past the collection.
    await client
      .db()
      .collection<{ _id: string; seq: number }>('counters')
      .updateOne({ _id: 'users' }, { $set: { seq: 0 } });
    const fifth = await api('POST', '/api/users', { pin: 5, first_name: 'U5' });
    t.equal(fifth.res.status, 201);
    const ids = ((await api('GET', '/api/users?limit=100')).body as { data: { id: number }[] }).data.map((u) => u.id);
    t.equal(new Set(ids).size, 5, 'five users, five ids');
  },
);
