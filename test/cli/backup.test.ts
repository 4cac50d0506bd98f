// `biogate backup` / `biogate restore` (issue #19), with real processes: a `biogate serve` child keeps
// importing users while a `biogate backup` child copies its store. The copy must be one consistent
// snapshot (every import is one transaction of BATCH users: a torn copy would hold a count that is
// not a multiple of BATCH), pass `PRAGMA integrity_check`, restore, and serve the same users.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import t from 'tap';
import { bearer, fetchJson, freePort, startApp, tempDir, TEST_STORE, type Teardown } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';

const CLI_JS = join(process.cwd(), 'dist', 'src', 'cli.js');
const noDist = existsSync(CLI_JS) ? false : `${CLI_JS} is missing: run "npx tsc -p tsconfig.json" (npm test does) first`;
const sqliteOnly = TEST_STORE === 'mongodb' ? 'SQLite-only: a MongoDB store is backed up with mongodump (see the MongoDB case)' : false;
const BATCH = 50;

const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BIOGATE_')));

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI_JS, ...args], { env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

async function serve(t: Teardown, storePath: string): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const port = await freePort();
  const env = {
    ...cleanEnv(),
    BIOGATE_STORE: `sqlite:${storePath}`,
    BIOGATE_PORT: String(port),
    BIOGATE_HOST: '127.0.0.1',
    BIOGATE_BOOTSTRAP: 'off',
    BIOGATE_LOG_LEVEL: 'warn',
    BIOGATE_SHUTDOWN_DRAIN_S: '0',
  };
  const child = spawn(process.execPath, [CLI_JS, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  t.teardown(stop);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`serve exited: ${stderr}`);
    if (
      (await fetch(`${url}/readyz`).then(
        (r) => r.status,
        () => 0,
      )) === 200
    )
      return { url, child, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`serve not ready within 20 s: ${stderr}`);
}

const countUsers = (path: string): number => {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

t.test(
  'a backup taken under write load is consistent, integrity-checked, restorable; restore refuses a store in use',
  { skip: noDist || sqliteOnly },
  async (t) => {
    const dir = await tempDir(t);
    const storePath = join(dir, 'live.db');
    const env = { BIOGATE_STORE: `sqlite:${storePath}` };
    const created = await cli(['location', 'create', '--name', 'Backup site', '--json'], env);
    t.equal(created.code, 0, created.stderr);
    const { token } = JSON.parse(created.stdout) as { token: string };
    const server = await serve(t, storePath);

    let pin = 0;
    let acknowledged = 0;
    const importBatch = async () => {
      const users = Array.from({ length: BATCH }, () => ({ pin: ++pin, first_name: `Person ${pin}`, last_name: 'x'.repeat(80) }));
      const { res } = await fetchJson(`${server.url}/api/users/import`, {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        body: JSON.stringify(users),
      });
      if (res.status !== 200) throw new Error(`import answered ${res.status}`);
      acknowledged += BATCH;
    };
    for (let i = 0; i < 40; i++) await importBatch(); // a store of a few MB, so the copy takes a while
    // A user photo: its file lives beside the database and goes into the backup with it.
    const photo = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#336699' } })
      .jpeg()
      .toBuffer();
    const put = await fetch(`${server.url}/api/users/1/photo`, {
      method: 'PUT',
      headers: { ...bearer(token), 'content-type': 'image/jpeg' },
      body: photo,
    });
    t.equal(put.status, 201);
    const stored = Buffer.from(await (await fetch(`${server.url}/api/users/1/photo`, { headers: bearer(token) })).arrayBuffer());
    // Two writers keep importing until the backup process has finished.
    let writing = true;
    const writers = Array.from({ length: 2 }, async () => {
      while (writing) await importBatch();
    });
    const before = acknowledged;
    const out = join(dir, 'backup.db');
    const backup = await run(['backup', '--out', out, '--json'], env);
    writing = false;
    await Promise.all(writers);
    const after = acknowledged;
    t.equal(backup.code, 0, backup.stderr);
    const report = JSON.parse(backup.stdout) as { path: string; bytes: number; schema_version: number; integrity: string };
    t.equal(report.path, out);
    t.equal(report.integrity, 'ok');
    t.ok(report.schema_version > 0);
    t.same(
      readdirSync(dir)
        .filter((f) => f.startsWith('backup'))
        .sort(),
      ['backup.db', 'backup.db.photos'],
      'one self-contained database file (no -wal/-shm, no partial left) and its photos',
    );
    t.equal((JSON.parse(backup.stdout) as { photos: number }).photos, 2, "the photo and the terminals' copy were copied");

    const inBackup = countUsers(out);
    t.ok(after > before, `writes went on during the backup (${before} → ${after})`);
    t.ok(
      inBackup >= before && inBackup <= after,
      `the copy holds what was written before it started and nothing that came after it (${before} ≤ ${inBackup} ≤ ${after})`,
    );
    t.equal(inBackup % BATCH, 0, 'no import is half in the copy: one snapshot');
    const db = new Database(out, { readonly: true });
    t.same(db.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
    db.close();

    // A second backup never overwrites the first.
    const again = await cli(['backup', '--out', out], env);
    t.equal(again.code, 1);
    t.match(again.stderr, /already exists; choose a new file name/);

    // Restore onto the running server's store: refused, with or without --force.
    const refused = await cli(['restore', '--in', out], env);
    t.equal(refused.code, 1);
    t.match(refused.stderr, /exists; add --force to replace it/);
    const inUse = await cli(['restore', '--in', out, '--force'], env);
    t.equal(inUse.code, 1);
    t.match(inUse.stderr, /is in use \(a BioGate server or another program has it open\); stop it, then restore/);
    t.equal(countUsers(storePath), after, 'the live store is untouched');

    // Stopped: --force replaces it and keeps the old file aside.
    await server.stop();
    const restored = await cli(['restore', '--in', out, '--force', '--json'], env);
    t.equal(restored.code, 0, restored.stderr);
    const r = JSON.parse(restored.stdout) as { path: string; previous: string };
    t.equal(r.path, storePath);
    t.match(r.previous, /live\.db\.replaced-/);
    t.equal(countUsers(r.previous), after, 'the replaced store is kept');

    // The restored store serves exactly the backed-up users.
    const app = await startApp(t, { storePath });
    const { body } = await fetchJson(`${app.url}/api/users?limit=1`, { headers: bearer(token) });
    t.equal((body as { total: number }).total, inBackup);
    const back = await fetch(`${app.url}/api/users/1/photo`, { headers: bearer(token) });
    t.equal(back.status, 200);
    t.ok(Buffer.from(await back.arrayBuffer()).equals(stored), 'the restored store serves the photo');
    t.ok(
      readdirSync(dir).includes('live.db.replaced-' + r.previous.split('live.db.replaced-')[1] + '.photos'),
      "the replaced store's photos are kept beside it",
    );

    // Into a path where no store exists yet (its directory is created, as the server would): no --force needed.
    const fresh = join(dir, 'fresh', 'copy.db');
    t.equal((await cli(['restore', '--in', out], { BIOGATE_STORE: `sqlite:${fresh}` })).code, 0);
    t.equal(countUsers(fresh), inBackup);
  },
);

t.test('restore refuses what is not a BioGate backup', { skip: sqliteOnly }, async (t) => {
  const dir = await tempDir(t);
  const env = { BIOGATE_STORE: `sqlite:${join(dir, 'store.db')}` };
  const other = join(dir, 'other.db');
  const db = new Database(other);
  db.exec('CREATE TABLE t (x)');
  db.close();
  const notOurs = await cli(['restore', '--in', other], env);
  t.equal(notOurs.code, 1);
  t.match(notOurs.stderr, /not a BioGate store/);

  const newer = join(dir, 'newer.db');
  const n = new Database(newer);
  n.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  n.prepare('INSERT INTO schema_migrations VALUES (9999, ?, ?)').run('from the future', new Date().toISOString());
  n.close();
  const future = await cli(['restore', '--in', newer], env);
  t.equal(future.code, 1);
  t.match(future.stderr, /schema version 9999, newer than this BioGate knows/);

  const missing = await cli(['restore', '--in', join(dir, 'nope.db')], env);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /does not exist/);
  t.equal((await cli(['restore'], env)).code, 2, '--in is required');
  t.equal((await cli(['backup'], env)).code, 2, '--out is required');
  t.notOk(existsSync(join(dir, 'store.db')), 'nothing was created');
});

t.test('MongoDB: backup and restore print the mongodump/mongorestore line, exit 2, never show the password', async (t) => {
  const env = { BIOGATE_STORE: 'mongodb://biogate:s3cret@db.example:27017/biogate?replicaSet=rs0' };
  const b = await cli(['backup', '--out', '/tmp/x'], env);
  t.equal(b.code, 2);
  t.match(
    b.stderr,
    /^biogate backup: the store is MongoDB: BioGate does not copy it; use MongoDB's own tool:\n {2}mongodump --uri 'mongodb:\/\/\*\*\*@db\.example:27017\/biogate\?replicaSet=rs0' --gzip --archive=/,
  );
  const r = await cli(['restore', '--in', '/tmp/x'], env);
  t.equal(r.code, 2);
  t.match(r.stderr, /mongorestore --uri/);
  t.notMatch(b.stderr + r.stderr, /s3cret/);
});
