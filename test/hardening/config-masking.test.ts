// Issue #32 item 18: `biogate config` prints no password inside the BIOGATE_STORE / BIOGATE_MQTT
// URLs (`mongodb://user:***@host`); the user, hosts and options stay readable.
import t from 'tap';
import { cli } from '../helpers/cli.js';

t.test('biogate config masks URL passwords of the store and the MQTT broker', async (t) => {
  const r = await cli(['config'], {
    BIOGATE_STORE: 'mongodb://gate:s3cr3t-Pa55@db1:27017,db2:27017/biogate?replicaSet=rs0',
    BIOGATE_MQTT: 'mqtts://bridge:mqtt-Pa55w0rd@broker.example:8883',
  });
  t.equal(r.code, 0, r.stderr);
  t.notOk(r.stdout.includes('s3cr3t-Pa55'), 'no store password');
  t.notOk(r.stdout.includes('mqtt-Pa55w0rd'), 'no broker password');
  const printed = JSON.parse(r.stdout) as Record<string, unknown>;
  t.equal(printed['store'], 'mongodb://gate:***@db1:27017,db2:27017/biogate?replicaSet=rs0', 'store: user and hosts kept, password masked');
  t.equal(printed['mqtt'], 'mqtts://bridge:***@broker.example:8883', 'mqtt: likewise');
  const plain = await cli(['config'], { BIOGATE_STORE: 'mongodb://db1/biogate', BIOGATE_MQTT: 'mqtt://gate@broker:1883' });
  const shown = JSON.parse(plain.stdout) as Record<string, unknown>;
  t.equal(shown['store'], 'mongodb://db1/biogate', 'a URL without credentials is shown as it is');
  t.equal(shown['mqtt'], 'mqtt://gate@broker:1883', 'a user without a password too');
});
