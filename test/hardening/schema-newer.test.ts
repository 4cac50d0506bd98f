// Issue #32 item 18: `biogate serve` refuses a store a newer BioGate migrated, with a clear fatal
// message and exit code 1 (SQLite: a schema_migrations version above the highest migration known;
// MongoDB: the `meta` schema document above SCHEMA_VERSION, written at every start); and MongoDB
// writes with `w: "majority"` unless the URL says otherwise.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { MongoClient } from 'mongodb';
import t from 'tap';
import { clientOptions } from '../../src/store/mongo/connect.js';
import { SCHEMA_VERSION } from '../../src/store/mongo/schema-version.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { freePort, startApp, tempDir } from '../helpers/app.js';

const CLI_JS = join(process.cwd(), 'dist', 'src', 'cli.js');
const noDist = existsSync(CLI_JS) ? false : `${CLI_JS} is missing: run "npx tsc -p tsconfig.json" first`;
const mongoUrl = process.env['BIOGATE_TEST_MONGO_URL'];

/** `node dist/src/cli.js serve` on `store`: its exit code and stderr. */
async function serve(store: string): Promise<{ code: number | null; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BIOGATE_')));
  const env = { ...clean, BIOGATE_STORE: store, BIOGATE_PORT: String(await freePort()), BIOGATE_HOST: '127.0.0.1' };
  const child = spawn(process.execPath, [CLI_JS, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stderr };
}

t.test('SQLite: serve refuses a schema migrated by a newer version', { skip: noDist }, async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'biogate.db');
  const app = await startApp(t, { storePath: file });
  await app.close();
  const known = Math.max(...MIGRATIONS.map((m) => m.version));
  const db = new Database(file);
  db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(known + 1, 'from the future', '2030-01-01');
  db.close();
  const r = await serve(`sqlite:${file}`);
  t.equal(r.code, 1, 'exit code 1');
  t.match(
    r.stderr,
    `biogate: the SQLite store was migrated by a newer BioGate (schema version ${known + 1}; this version knows up to ${known})`,
  );
  t.notMatch(r.stderr, /\n\s+at /, 'a message, not a stack');
});

t.test(
  'MongoDB: the schema version is written at start, and a newer one is refused',
  { skip: noDist || (mongoUrl ? false : 'BIOGATE_TEST_MONGO_URL is not set') },
  async (t) => {
    const app = await startApp(t, { storeUrl: `${(mongoUrl as string).replace(/\/[^/?]*(\?|$)/, '/')}biogate_schema_${process.pid}` });
    const url = app.storeUrl;
    await app.close();
    const client = new MongoClient(url);
    t.teardown(async () => {
      await client.db().dropDatabase();
      await client.close();
    });
    const meta = client.db().collection<{ _id: string; version: number }>('meta');
    t.same(await meta.findOne({ _id: 'schema' }), { _id: 'schema', version: SCHEMA_VERSION }, 'written at start');
    await meta.updateOne({ _id: 'schema' }, { $set: { version: SCHEMA_VERSION + 1 } });
    const r = await serve(url);
    t.equal(r.code, 1, 'exit code 1');
    t.match(
      r.stderr,
      `biogate: the MongoDB store was migrated by a newer BioGate (schema version ${SCHEMA_VERSION + 1}; this version knows up to ${SCHEMA_VERSION})`,
    );
    t.equal((await meta.findOne({ _id: 'schema' }))?.version, SCHEMA_VERSION + 1, 'and left as it was');
  },
);

t.test('MongoDB: write concern "majority" unless the URL sets w', async (t) => {
  t.same(clientOptions('mongodb://db1,db2/biogate?replicaSet=rs0')['writeConcern'], { w: 'majority' }, 'majority by default');
  t.equal(clientOptions('mongodb://db1/biogate?w=1')['writeConcern'], undefined, 'w= in the URL wins');
  t.equal(clientOptions('mongodb://db1/biogate?W=2&wtimeoutMS=100')['writeConcern'], undefined, 'option names are case-insensitive');
});
