// Issue #32 item 18: `biogate config` prints no password inside the BIOGATE_STORE / BIOGATE_MQTT
// URLs (`mongodb://user:***@host`); the user, hosts and options stay readable, in the table and in --json.
import t from 'tap';
import { cli } from '../helpers/cli.js';

type Shown = Record<string, { value: unknown; source: string }>;

t.test('biogate config masks URL passwords of the store and the MQTT broker', async (t) => {
  const env = {
    BIOGATE_STORE: 'mongodb://gate:s3cr3t-Pa55@db1:27017,db2:27017/biogate?replicaSet=rs0',
    BIOGATE_MQTT: 'mqtts://bridge:mqtt-Pa55w0rd@broker.example:8883',
  };
  for (const argv of [['config'], ['config', '--json']]) {
    const r = await cli(argv, env);
    t.equal(r.code, 0, r.stderr);
    t.notOk(r.stdout.includes('s3cr3t-Pa55'), `${argv.join(' ')}: no store password`);
    t.notOk(r.stdout.includes('mqtt-Pa55w0rd'), `${argv.join(' ')}: no broker password`);
  }
  const printed = JSON.parse((await cli(['config', '--json'], env)).stdout) as Shown;
  t.same(
    printed['BIOGATE_STORE'],
    { value: 'mongodb://gate:***@db1:27017,db2:27017/biogate?replicaSet=rs0', source: 'environment' },
    'store: user and hosts kept, password masked',
  );
  t.same(printed['BIOGATE_MQTT'], { value: 'mqtts://bridge:***@broker.example:8883', source: 'environment' }, 'mqtt: likewise');
  const plain = await cli(['config', '--json'], { BIOGATE_STORE: 'mongodb://db1/biogate', BIOGATE_MQTT: 'mqtt://gate@broker:1883' });
  const shown = JSON.parse(plain.stdout) as Shown;
  t.equal(shown['BIOGATE_STORE']?.value, 'mongodb://db1/biogate', 'a URL without credentials is shown as it is');
  t.equal(shown['BIOGATE_MQTT']?.value, 'mqtt://gate@broker:1883', 'a user without a password too');
});
