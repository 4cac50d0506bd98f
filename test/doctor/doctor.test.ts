// `biogate doctor` (issue #19): one healthy configuration and broken ones, each problem named with
// its fix, exit 1 on problems. Real ports, real files, real certificates (openssl), the real store.
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { runChecks, type CheckResult } from '../../src/doctor/checks.js';
import { fakeClock, freePort, startApp, tempDir, TEST_STORE, type Teardown } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { NO_OPENSSL, selfSignedCert } from '../helpers/tls.js';

const selfSigned = (dir: string, name: string, days = 30) => selfSignedCert(dir, { name, days, ec: true });

async function listening(t: Teardown): Promise<number> {
  // Something that is not BioGate: it accepts connections and never answers (doctor's probe gives up on it).
  const server: Server = createServer((socket) => socket.on('error', () => undefined).resume());
  await new Promise<void>((r) => server.listen({ host: '127.0.0.1', port: 0 }, r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return (server.address() as { port: number }).port;
}

interface Report {
  ok: boolean;
  checks: CheckResult[];
}

const byName = (r: Report, prefix: string) => r.checks.find((c) => c.name.startsWith(prefix));

t.test('healthy: every check ok, exit 0', { skip: NO_OPENSSL }, async (t) => {
  const dir = await tempDir(t);
  const { cert, key } = selfSigned(dir, 'gateway');
  const ca = selfSigned(dir, 'broker-ca');
  const env = {
    BIOGATE_STORE: `sqlite:${join(dir, 'data', 'biogate.db')}`,
    BIOGATE_HOST: '127.0.0.1',
    BIOGATE_PORT: String(await freePort()),
    BIOGATE_TLS_CERT: cert,
    BIOGATE_TLS_KEY: key,
    BIOGATE_MQTT: 'mqtts://broker.example:8883',
    BIOGATE_MQTT_CA_FILE: ca.cert,
  };
  const r = await cli(['doctor', '--json'], env);
  t.equal(r.code, 0, r.stdout);
  const report = JSON.parse(r.stdout) as Report;
  t.same(
    report.checks.filter((c) => c.status !== 'ok'),
    [],
    'nothing but ok',
  );
  t.same(
    report.checks.map((c) => c.name),
    ['config', 'clock', 'http engine', 'store', `port ${env.BIOGATE_PORT}`, 'tls', 'mqtt'],
  );
  t.match(byName(report, 'store')?.detail, /does not exist yet; BioGate creates it at start/);
  t.match(byName(report, 'tls')?.detail, /certificate and key match; valid for 2\d more days/);
  t.match(byName(report, 'mqtt')?.detail, /external broker mqtts:\/\/broker\.example:8883 \(CA /);
  t.notOk(spawnSync('test', ['-e', join(dir, 'data')]).status === 0, 'doctor created nothing');

  const human = await cli(['doctor'], env);
  t.equal(human.code, 0);
  t.match(human.stdout, /^ {2}ok {7}config {7}every BIOGATE_\* setting is valid\n/);
  t.match(human.stdout, /\nNo problems found\.\n$/);
});

t.test("healthy against a running server's store: SQLite schema version current; MongoDB answers", async (t) => {
  const app = await startApp(t);
  const r = await cli(['doctor', '--json'], { BIOGATE_STORE: app.storeUrl, BIOGATE_HOST: '127.0.0.1', BIOGATE_PORT: '0' });
  const report = JSON.parse(r.stdout) as Report;
  t.equal(r.code, 0, r.stdout);
  const expected =
    TEST_STORE === 'mongodb' ? /^MongoDB at mongodb:\/\/\S+ answers/ : /reachable, schema version \d+ \(current\), quick check ok/;
  t.match(byName(report, 'store')?.detail, expected);
  t.match(byName(report, 'port')?.detail, /a free port is picked at start/);
});

t.test('broken 1: invalid settings are listed; the checks that need them are skipped; exit 1', async (t) => {
  const r = await cli(['doctor'], { BIOGATE_PORT: '99999', BIOGATE_LOG_LEVEL: 'loud', BIOGATE_STORE: 'postgres://x' });
  t.equal(r.code, 1);
  t.match(r.stdout, /PROBLEM {2}config +invalid settings: .*BIOGATE_PORT.*\n +fix: correct the variables named above/);
  t.match(r.stdout, /BIOGATE_LOG_LEVEL/);
  t.match(r.stdout, /BIOGATE_STORE/);
  t.match(r.stdout, /skipped +store +needs a valid configuration/);
  t.match(r.stdout, /\n1 problem\(s\) found/);
});

t.test('broken 2: port in use, TLS key of another certificate, MQTT CA file missing', { skip: NO_OPENSSL }, async (t) => {
  const dir = await tempDir(t);
  const a = selfSigned(dir, 'a');
  const b = selfSigned(dir, 'b');
  const busy = await listening(t);
  const r = await cli(['doctor', '--json'], {
    BIOGATE_STORE: `sqlite:${join(dir, 'biogate.db')}`,
    BIOGATE_HOST: '127.0.0.1',
    BIOGATE_PORT: String(busy),
    BIOGATE_TLS_CERT: a.cert,
    BIOGATE_TLS_KEY: b.key,
    BIOGATE_MQTT: 'mqtts://broker.example',
    BIOGATE_MQTT_CA_FILE: join(dir, 'missing-ca.pem'),
  });
  t.equal(r.code, 1);
  const report = JSON.parse(r.stdout) as Report;
  t.equal(report.ok, false);
  t.match(byName(report, 'port'), {
    status: 'problem',
    detail: `127.0.0.1:${busy} is already in use`,
    fix: /is BioGate already running\?.*or set BIOGATE_PORT to a free port/,
  });
  t.match(byName(report, 'tls'), {
    status: 'problem',
    detail: /b\.key is not the key of the certificate .*a\.crt \(CN=a\)/,
    fix: 'use the key the certificate was issued for',
  });
  t.match(byName(report, 'mqtt'), { status: 'problem', detail: /the CA file .*missing-ca\.pem cannot be used: ENOENT/ });
  t.match(byName(report, 'store'), { status: 'ok' });

  // A key file that is not a key, and a certificate that has expired.
  await writeFile(join(dir, 'junk.key'), 'not a key\n');
  const junk = await cli(['doctor', '--json'], {
    BIOGATE_STORE: `sqlite:${join(dir, 'biogate.db')}`,
    BIOGATE_PORT: '0',
    BIOGATE_TLS_CERT: a.cert,
    BIOGATE_TLS_KEY: join(dir, 'junk.key'),
  });
  t.match(byName(JSON.parse(junk.stdout) as Report, 'tls'), { status: 'problem', detail: /cannot be read as PEM/ });
  const only = await cli(['doctor', '--json'], {
    BIOGATE_STORE: `sqlite:${join(dir, 'biogate.db')}`,
    BIOGATE_PORT: '0',
    BIOGATE_TLS_CERT: a.cert,
  });
  t.match(byName(JSON.parse(only.stdout) as Report, 'config'), {
    status: 'problem',
    detail: /BIOGATE_TLS_KEY: required when BIOGATE_TLS_CERT is set/,
  });
  const later = await runChecks(
    { BIOGATE_STORE: `sqlite:${join(dir, 'biogate.db')}`, BIOGATE_PORT: '0', BIOGATE_TLS_CERT: a.cert, BIOGATE_TLS_KEY: a.key },
    fakeClock(new Date(Date.now() + 60 * 86_400_000)),
  );
  t.match(
    later.find((c) => c.name === 'tls'),
    { status: 'problem', detail: /the certificate expired on / },
  );
});

t.test(
  'broken 3: a store from a newer BioGate, a damaged one, a clock in the past',
  { skip: TEST_STORE === 'mongodb' && 'SQLite file checks' },
  async (t) => {
    const dir = await tempDir(t);
    const newer = join(dir, 'newer.db');
    const db = new Database(newer);
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    db.prepare('INSERT INTO schema_migrations VALUES (9999, ?, ?)').run('future', '2030-01-01T00:00:00Z');
    db.close();
    const past = await runChecks({ BIOGATE_STORE: `sqlite:${newer}`, BIOGATE_PORT: '0' }, fakeClock('2020-01-01T00:00:00Z'));
    t.match(
      past.find((c) => c.name === 'store'),
      {
        status: 'problem',
        detail: /schema version 9999, newer than this BioGate/,
        fix: /run the BioGate version that last used this store/,
      },
    );
    t.match(
      past.find((c) => c.name === 'clock'),
      { status: 'problem', detail: 'the system clock says 2020-01-01T00:00:00.000Z', fix: /enable NTP/ },
    );

    const damaged = join(dir, 'damaged.db');
    await writeFile(damaged, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4080, 0xab)]));
    const r = await cli(['doctor', '--json'], { BIOGATE_STORE: `sqlite:${damaged}`, BIOGATE_PORT: '0' });
    t.equal(r.code, 1);
    t.match(byName(JSON.parse(r.stdout) as Report, 'store'), { status: 'problem', fix: /restore/ });

    const unreachable = await cli(['doctor', '--json'], {
      BIOGATE_STORE: 'mongodb://127.0.0.1:1/biogate?serverSelectionTimeoutMS=500',
      BIOGATE_PORT: '0',
    });
    t.equal(unreachable.code, 1);
    t.match(byName(JSON.parse(unreachable.stdout) as Report, 'store'), {
      status: 'problem',
      detail: /MongoDB at mongodb:\/\/127\.0\.0\.1:1\/biogate.* cannot be reached/,
      fix: /mongosh/,
    });
  },
);

t.test('doctor beside a running BioGate: its port is served by it, not a problem', async (t) => {
  const app = await startApp(t);
  const r = await cli(['doctor', '--json'], { BIOGATE_STORE: app.storeUrl, BIOGATE_HOST: '127.0.0.1', BIOGATE_PORT: String(app.port) });
  const report = JSON.parse(r.stdout) as Report;
  t.equal(r.code, 0, r.stdout);
  t.match(byName(report, 'port'), {
    status: 'ok',
    detail: `127.0.0.1:${app.port} is served by a running BioGate (its /readyz: ready)`,
  });
});

t.test('a store path under a regular file, or a directory as the store: a problem, not "writable"', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'config.yaml');
  await writeFile(file, 'not a directory\n');
  const under = await cli(['doctor', '--json'], { BIOGATE_STORE: `sqlite:${join(file, 'data', 'biogate.db')}`, BIOGATE_PORT: '0' });
  t.equal(under.code, 1);
  t.match(byName(JSON.parse(under.stdout) as Report, 'store'), {
    status: 'problem',
    detail: `${join(file, 'data', 'biogate.db')} cannot be created: ${file} is a file, not a directory`,
  });
  const asDir = await cli(['doctor', '--json'], { BIOGATE_STORE: `sqlite:${dir}`, BIOGATE_PORT: '0' });
  t.equal(asDir.code, 1);
  t.match(byName(JSON.parse(asDir.stdout) as Report, 'store'), { status: 'problem', detail: `${dir} is a directory, not a database file` });
});
