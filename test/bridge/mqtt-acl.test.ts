/** The embedded broker's topic rules (src/bridge/mqtt/acl.ts), edge by edge; the e2e test shows them on the wire. */
import t from 'tap';
import { mayReceive, maySubscribe, publishDecision, topicsFor, type Identity } from '../../src/bridge/mqtt/acl.js';

const loc1: Identity = { kind: 'location', locationId: 1, tokenId: 9, scope: 'full', token: 'x' };
const admin: Identity = { kind: 'admin' };

t.test('subscriptions: the own prefix, bridge state and discovery; never a wildcard over locations', async (t) => {
  for (const base of ['biogate', 'site/a']) {
    const topics = topicsFor(base);
    const ok = [
      `${base}/1/#`,
      `${base}/1/devices/+/availability`,
      `${base}/1/commands/7`,
      `${base}/bridge/state`,
      'homeassistant/#',
      'homeassistant/lock/+/+/config',
    ];
    const refused = [
      '#',
      '+/#',
      `${base}/#`,
      `${base}/+/#`,
      `${base}/12/#`,
      `${base}/1`,
      `${base}/bridge/#`,
      `${base}x/1/#`,
      '$SYS/#',
      `other/1/#`,
    ];
    for (const f of ok) t.ok(maySubscribe(topics, loc1, f), `${base}: ${f} allowed`);
    for (const f of refused) t.notOk(maySubscribe(topics, loc1, f), `${base}: ${f} refused`);
    t.ok(maySubscribe(topics, admin, '#'), 'the admin may subscribe to everything');
  }
});

t.test('deliveries: only the own location, its discovery topics and the bridge state', async (t) => {
  const topics = topicsFor('biogate');
  t.ok(mayReceive(topics, loc1, 'biogate/1/devices/A/availability'));
  t.ok(mayReceive(topics, loc1, 'biogate/bridge/state'));
  t.ok(mayReceive(topics, loc1, 'homeassistant/lock/biogate_1_SN1/door_1/config'));
  t.notOk(mayReceive(topics, loc1, 'homeassistant/lock/biogate_12_SN1/door_1/config'), 'location 12 is not location 1');
  t.notOk(mayReceive(topics, loc1, 'homeassistant/lock/other_1_SN1/door_1/config'), 'discovery of something else');
  t.notOk(mayReceive(topics, loc1, 'biogate/2/attendance'));
  t.notOk(mayReceive(topics, loc1, 'biogate/01/attendance'), 'no leading zeros: "01" is not a location id');
  t.ok(mayReceive(topics, admin, 'biogate/2/attendance'));
});

t.test('publishes: a command request of the own location (admin: any), everything else dropped', async (t) => {
  const topics = topicsFor('biogate');
  t.strictSame(publishDecision(topics, loc1, 'biogate/1/request/command'), { kind: 'request', locationId: 1 });
  t.strictSame(publishDecision(topics, loc1, 'biogate/2/request/command'), { kind: 'drop' });
  t.strictSame(
    publishDecision(topics, loc1, 'biogate/1/devices/A/availability'),
    { kind: 'drop' },
    "BioGate's own topics cannot be forged",
  );
  t.strictSame(publishDecision(topics, loc1, 'biogate/1/request/command/x'), { kind: 'drop' });
  t.strictSame(publishDecision(topics, loc1, 'biogate/bridge/state'), { kind: 'drop' });
  t.strictSame(publishDecision(topics, admin, 'biogate/5/request/command'), { kind: 'request', locationId: 5 });
  t.strictSame(publishDecision(topics, admin, 'biogate/5/attendance'), { kind: 'drop' });
});
