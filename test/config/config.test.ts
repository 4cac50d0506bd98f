/**
 * Configuration (STYLE.md §7): one schema with defaults, environment overrides
 * converted by type, every problem reported at once, and the table in src/config/README.md
 * generated from the schema.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { ConfigError, describeConfig, loadConfig } from '../../src/config/load.js';
import { configTableMarkdown } from '../../src/config/readme-table.js';
import { SETTINGS, type SettingKey } from '../../src/config/schema.js';
import { ADMIN_TOKEN, tempDir } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';

interface Asserts {
  type(value: unknown, klass: typeof ConfigError): unknown;
  fail(message: string): unknown;
}

/** The problems of a ConfigError thrown by `fn` (fails the test when nothing or something else is thrown). */
function problemsOf(t: Asserts, fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (err) {
    t.type(err, ConfigError);
    return err instanceof ConfigError ? err.problems : [];
  }
  t.fail('expected a ConfigError');
  return [];
}

t.test('defaults', async (t) => {
  const config = loadConfig({ env: {} });
  t.match(config, {
    port: 8080,
    host: '0.0.0.0',
    store: 'sqlite:data/biogate.db',
    adminToken: null,
    logLevel: 'info',
    onlineThresholdS: 60,
    bootstrap: 'on',
    bodyLimitMb: 16,
    tlsCert: null,
    tlsKey: null,
    shutdownGraceS: 10,
    rateLimitRps: 0,
  });
  t.strictSame(Object.keys(config).sort(), Object.keys(SETTINGS).sort(), 'exactly the schema settings');
  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    t.ok('default' in SETTINGS[key].schema, `${key} has a default`);
    t.strictSame(config[key], (SETTINGS[key].schema as { default?: unknown }).default, `${key} is its default`);
    t.match(SETTINGS[key].meta.env, /^BIOGATE_[A-Z0-9_]+$/, `${key}: env name`);
    t.ok(SETTINGS[key].meta.description.length > 10, `${key}: described`);
  }
  t.ok(Object.isFrozen(config), 'frozen');
});

t.test('environment overrides, converted to the setting type', async (t) => {
  const config = loadConfig({
    env: {
      BIOGATE_PORT: ' 9000 ',
      BIOGATE_HOST: '127.0.0.1',
      BIOGATE_STORE: 'sqlite::memory:',
      BIOGATE_ADMIN_TOKEN: ADMIN_TOKEN,
      BIOGATE_LOG_LEVEL: 'debug',
      BIOGATE_ONLINE_THRESHOLD_S: '5',
      BIOGATE_BOOTSTRAP: 'off',
      BIOGATE_BODY_LIMIT_MB: '0.5',
      BIOGATE_SHUTDOWN_GRACE_S: '0',
      BIOGATE_RATE_LIMIT_RPS: '2.5',
      UNRELATED: 'ignored',
    },
  });
  t.match(config, {
    port: 9000,
    host: '127.0.0.1',
    store: 'sqlite::memory:',
    adminToken: ADMIN_TOKEN,
    logLevel: 'debug',
    onlineThresholdS: 5,
    bootstrap: 'off',
    bodyLimitMb: 0.5,
    shutdownGraceS: 0,
    rateLimitRps: 2.5,
  });
  t.equal(typeof config.port, 'number');

  // An empty variable means "unset" for optional settings.
  t.equal(loadConfig({ env: { BIOGATE_ADMIN_TOKEN: '', BIOGATE_TLS_CERT: '' } }).adminToken, null);

  // overrides win over the environment
  t.equal(loadConfig({ env: { BIOGATE_PORT: '9000' }, overrides: { port: 0 } }).port, 0);
});

t.test('a JSON file (BIOGATE_CONFIG) gives defaults; the environment wins', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'biogate.json');
  await writeFile(file, JSON.stringify({ port: 9100, logLevel: 'warn' }));
  const config = loadConfig({ env: { BIOGATE_CONFIG: file, BIOGATE_LOG_LEVEL: 'error' } });
  t.equal(config.port, 9100);
  t.equal(config.logLevel, 'error');

  await writeFile(file, '[1, 2]');
  t.strictSame(
    problemsOf(t, () => loadConfig({ env: { BIOGATE_CONFIG: file } })),
    [`${file}: must hold a JSON object`],
  );
  const missing = join(dir, 'missing.json');
  t.strictSame(
    problemsOf(t, () => loadConfig({ env: { BIOGATE_CONFIG: missing } })),
    [`${missing}: ENOENT: no such file or directory, open '${missing}'`],
  );
});

t.test('every problem is reported at once', async (t) => {
  const problems = problemsOf(t, () =>
    loadConfig({ env: { BIOGATE_PORT: 'abc', BIOGATE_LOG_LEVEL: 'loud', BIOGATE_ONLINE_THRESHOLD_S: '1' } }),
  );
  t.strictSame(problems, [
    'BIOGATE_PORT: "abc" is not a number',
    'BIOGATE_LOG_LEVEL: must be one of "fatal", "error", "warn", "info", "debug", "trace", "silent"',
    'BIOGATE_ONLINE_THRESHOLD_S: must be between 5 and 86400',
  ]);
  let message = '';
  try {
    loadConfig({ env: { BIOGATE_PORT: 'abc', BIOGATE_LOG_LEVEL: 'loud', BIOGATE_ONLINE_THRESHOLD_S: '1' } });
  } catch (err) {
    message = (err as Error).message;
  }
  t.equal(message, `invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);

  t.strictSame(
    problemsOf(t, () =>
      loadConfig({
        env: {
          BIOGATE_PORT: '70000',
          BIOGATE_STORE: 'postgres://db',
          BIOGATE_ADMIN_TOKEN: 'short',
          BIOGATE_BOOTSTRAP: 'yes',
          BIOGATE_BODY_LIMIT_MB: '0',
          BIOGATE_SHUTDOWN_GRACE_S: '1.5',
          BIOGATE_RATE_LIMIT_RPS: '-1',
        },
      }),
    ),
    [
      'BIOGATE_PORT: must be between 0 and 65535',
      'BIOGATE_STORE: has an invalid format (expected: sqlite:<path> or a mongodb:// URL)',
      'BIOGATE_ADMIN_TOKEN: must be at least 24 characters',
      'BIOGATE_BOOTSTRAP: must be one of "on", "off"',
      'BIOGATE_BODY_LIMIT_MB: must be > 0',
      'BIOGATE_SHUTDOWN_GRACE_S: must be an integer',
      'BIOGATE_RATE_LIMIT_RPS: must be >= 0',
    ],
  );
});

t.test('numbers are plain decimals', async (t) => {
  for (const raw of ['0x1F90', '1e3', 'Infinity', '', '  ', '80 80', '8080abc']) {
    t.strictSame(
      problemsOf(t, () => loadConfig({ env: { BIOGATE_PORT: raw } })),
      [`BIOGATE_PORT: "${raw}" is not a number`],
      JSON.stringify(raw),
    );
  }
});

t.test('TLS: certificate and key go together and must be readable', async (t) => {
  const dir = await tempDir(t);
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  await writeFile(cert, 'not checked here');
  await writeFile(key, 'not checked here');
  t.strictSame(
    problemsOf(t, () => loadConfig({ env: { BIOGATE_TLS_CERT: cert } })),
    ['BIOGATE_TLS_KEY: required when BIOGATE_TLS_CERT is set'],
  );
  t.strictSame(
    problemsOf(t, () => loadConfig({ env: { BIOGATE_TLS_KEY: key } })),
    ['BIOGATE_TLS_CERT: required when BIOGATE_TLS_KEY is set'],
  );
  const missing = join(dir, 'nope.pem');
  t.strictSame(
    problemsOf(t, () => loadConfig({ env: { BIOGATE_TLS_CERT: cert, BIOGATE_TLS_KEY: missing } })),
    [`BIOGATE_TLS_KEY: cannot read "${missing}" (ENOENT)`],
  );
  const both = loadConfig({ env: { BIOGATE_TLS_CERT: cert, BIOGATE_TLS_KEY: key } });
  t.equal(both.tlsCert, cert);
  t.equal(both.tlsKey, key);
});

t.test('src/config/README.md table is generated from the schema', async (t) => {
  const readme = readFileSync(new URL('../../src/config/README.md', import.meta.url), 'utf8');
  const m = /<!-- config:start -->\n([\s\S]*?)\n<!-- config:end -->/.exec(readme);
  t.ok(m, 'src/config/README.md has the config:start/config:end markers');
  // Compared line by line, so a failure shows the rows that differ.
  t.strictSame(
    m?.[1]?.split('\n'),
    configTableMarkdown().split('\n'),
    'src/config/README.md table is out of date: run `node dist/src/cli.js config --markdown` and paste its output between the markers',
  );
  for (const { meta } of Object.values(SETTINGS)) t.ok(configTableMarkdown().includes(`| \`${meta.env}\` |`), `${meta.env} has a row`);
});

t.test("biogate config: effective configuration by environment name, with each value's source; secrets masked", async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'biogate.json');
  await writeFile(file, JSON.stringify({ logLevel: 'warn', port: 7000 }));
  const env = { BIOGATE_CONFIG: file, BIOGATE_ADMIN_TOKEN: ADMIN_TOKEN, BIOGATE_PORT: '9001', BIOGATE_STORE: 'sqlite::memory:' };
  const r = await cli(['config', '--json'], env);
  t.equal(r.code, 0);
  t.equal(r.stderr, '');
  t.notOk(r.stdout.includes(ADMIN_TOKEN), 'the admin token is not printed');
  const shown = JSON.parse(r.stdout) as Record<string, { value: unknown; source: string }>;
  t.strictSame(shown['BIOGATE_ADMIN_TOKEN'], { value: '(set)', source: 'environment' });
  t.strictSame(shown['BIOGATE_PORT'], { value: 9001, source: 'environment' }, 'the environment wins over the file');
  t.strictSame(shown['BIOGATE_STORE'], { value: 'sqlite::memory:', source: 'environment' });
  t.strictSame(shown['BIOGATE_LOG_LEVEL'], { value: 'warn', source: `file ${file}` });
  t.strictSame(shown['BIOGATE_HOST'], { value: '0.0.0.0', source: 'default' });
  t.strictSame(shown['BIOGATE_METRICS_TOKEN'], { value: null, source: 'default' });
  t.strictSame(
    Object.keys(shown).sort(),
    Object.values(SETTINGS)
      .map((s) => s.meta.env)
      .sort(),
    'every setting, by its environment name',
  );

  const text = await cli(['config'], env);
  t.equal(text.code, 0);
  const lines = text.stdout.trimEnd().split('\n');
  t.match(lines[0], /^SETTING +VALUE +SOURCE$/);
  t.equal(lines.length, Object.keys(SETTINGS).length + 1, 'a line a setting');
  t.match(text.stdout, /^BIOGATE_PORT +9001 +environment$/m);
  t.match(text.stdout, /^BIOGATE_ADMIN_TOKEN +\(set\) +environment$/m);
  t.match(text.stdout, /^BIOGATE_TLS_CERT +\(unset\) +default$/m);
  t.ok(text.stdout.includes(`BIOGATE_LOG_LEVEL`) && text.stdout.includes(`file ${file}`));
  t.notOk(/\b(adminToken|logLevel|port):/.test(text.stdout), 'no internal camelCase names');
  t.notOk(text.stdout.includes(ADMIN_TOKEN));

  t.equal(describeConfig(loadConfig({ env: {} }))['adminToken'], null, 'unset stays null');

  const md = await cli(['config', '--markdown'], {});
  t.equal(md.code, 0);
  t.equal(md.stdout, configTableMarkdown() + '\n');

  const bad = await cli(['config'], { BIOGATE_PORT: 'abc' });
  t.equal(bad.code, 1);
  t.equal(bad.stdout, '');
  t.equal(bad.stderr, 'biogate config: invalid configuration:\n  - BIOGATE_PORT: "abc" is not a number\n');
});
