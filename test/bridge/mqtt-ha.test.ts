/** Home Assistant discovery payloads (src/bridge/mqtt/ha-discovery.ts) against what HA's MQTT integrations require. */
import t from 'tap';
import { topicsFor } from '../../src/bridge/mqtt/acl.js';
import { discoveryMessages, doorCount } from '../../src/bridge/mqtt/ha-discovery.js';
import type { DeviceData } from '../../src/events/types.js';

const device = (over: Record<string, unknown>): DeviceData =>
  ({
    serial_number: 'SN1',
    location_id: 3,
    is_active: true,
    name: 'Front',
    options: null,
    version: '3.0.0',
    version_override: null,
    ...over,
  }) as DeviceData;
const topics = topicsFor('biogate');

t.test('required fields per component (binary_sensor: state_topic; sensor: state_topic; lock: command_topic)', async (t) => {
  const msgs = discoveryMessages(topics, 3, device({ options: { LockCount: '2', FirmVer: 'Ver 8.0.4' } }));
  const byTopic = new Map(msgs.map((m) => [m.topic, m.payload]));
  const conn = byTopic.get('homeassistant/binary_sensor/biogate_3_SN1/connectivity/config');
  t.match(conn, {
    state_topic: 'biogate/3/devices/SN1/availability',
    device_class: 'connectivity',
    payload_on: 'online',
    payload_off: 'offline',
  });
  t.notOk(conn && 'availability_topic' in conn, 'connectivity is never "unavailable": it shows off');
  t.match(byTopic.get('homeassistant/sensor/biogate_3_SN1/last_punch/config'), {
    state_topic: 'biogate/3/attendance',
    device_class: 'timestamp',
    value_template: /value_json\.sn == 'SN1'/,
  });
  for (const d of [1, 2]) {
    t.match(byTopic.get(`homeassistant/lock/biogate_3_SN1/door_${d}/config`), {
      command_topic: 'biogate/3/request/command',
      payload_lock: String,
      payload_unlock: String,
      optimistic: true,
      availability_topic: 'biogate/3/devices/SN1/availability',
      device: { identifiers: ['biogate_3_SN1'], sw_version: 'Ver 8.0.4', name: 'Front' },
    });
  }
  t.strictSame(byTopic.get('homeassistant/lock/biogate_3_SN1/door_3/config'), null, 'doors beyond LockCount are cleared');
  for (const p of byTopic.values()) if (p) t.type(p['unique_id'], 'string', 'every entity has a unique_id (HA device registry)');
});

t.test('v2 terminals unlock with door-unlock; an unassigned terminal clears everything', async (t) => {
  const v2 = discoveryMessages(topics, 3, device({ version: '2.0.0' }));
  const lock = v2.find((m) => m.topic.endsWith('/door_1/config'))?.payload;
  t.strictSame(JSON.parse(String(lock?.['payload_unlock'])), { sn: 'SN1', command: 'door-unlock' });
  const gone = discoveryMessages(topics, 3, device({ location_id: null }));
  t.ok(gone.length >= 6 && gone.every((m) => m.payload === null), 'all cleared');
  t.equal(doorCount(device({ options: { LockCount: 'x' } })), 1);
  t.equal(doorCount(device({ options: { LockCount: '9' } })), 4, 'at most 4 doors (door_id 1–4)');
});
