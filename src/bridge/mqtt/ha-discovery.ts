/**
 * Home Assistant MQTT discovery (opt-in BIOGATE_MQTT_HA_DISCOVERY=on): each terminal
 * becomes an HA device with a connectivity binary_sensor, a "last punch" sensor and one lock
 * per door. Config topics follow HA's `<discovery_prefix>/<component>/<node_id>/<object_id>/config`
 * with node_id `biogate_<location>_<sn>` (acl.ts reads the location back from it), retained, and
 * cleared (empty retained payload) when the terminal leaves the location.
 *
 * Field names are HA's MQTT integration options: binary_sensor needs `state_topic` (here the
 * availability topic with `payload_on`/`payload_off` = online/offline); lock needs
 * `command_topic` and takes `payload_lock`/`payload_unlock`; without a `state_topic` HA runs the
 * lock optimistic (a door relay reports no lock state). Every entity shares `availability_topic`
 * (`payload_available` online / `payload_not_available` offline) and a `device` block with
 * `identifiers`, so HA groups them.
 *
 * Each location is an HA device of its own with one sensor, its head count (issue #35 item 2): the retained
 * `presence` topic's `count`, node_id `biogate_<location>_presence`.
 */
import type { DeviceData } from '../../events/types.js';
import { ATTENDANCE_TOPIC, availabilityTopic, PRESENCE_TOPIC } from '../../events/topics.js';
import { HA_PREFIX, REQUEST_COMMAND, type Topics } from './acl.js';

export interface DiscoveryMessage {
  readonly topic: string;
  /** null clears the entity (empty retained message). */
  readonly payload: Record<string, unknown> | null;
}

/** [PUSH-v3 §6] LockCount from the device's options; 1 when not reported (v2 terminals drive one lock). */
export function doorCount(device: DeviceData): number {
  const options = device['options'] as Record<string, string> | null | undefined;
  const n = Number.parseInt(options?.['LockCount'] ?? '', 10);
  return Number.isInteger(n) && n > 0 ? Math.min(n, 4) : 1;
}

const nodeId = (locationId: number, sn: string) => `biogate_${locationId}_${sn}`;
const configTopic = (component: string, locationId: number, sn: string, object: string) =>
  `${HA_PREFIX}/${component}/${nodeId(locationId, sn)}/${object}/config`;

/** Topics a terminal can have; `doors` of them are locks (clearing removes up to 4). */
function entityTopics(locationId: number, sn: string, doors: number): { connectivity: string; lastPunch: string; locks: string[] } {
  return {
    connectivity: configTopic('binary_sensor', locationId, sn, 'connectivity'),
    lastPunch: configTopic('sensor', locationId, sn, 'last_punch'),
    locks: Array.from({ length: doors }, (_, i) => configTopic('lock', locationId, sn, `door_${i + 1}`)),
  };
}

/** Discovery messages for a terminal of `locationId` (assigned), or the clearing ones when it left. */
export function discoveryMessages(topics: Topics, locationId: number, device: DeviceData): DiscoveryMessage[] {
  const sn = device.serial_number;
  if (device.location_id !== locationId) {
    const t = entityTopics(locationId, sn, 4);
    return [t.connectivity, t.lastPunch, ...t.locks].map((topic) => ({ topic, payload: null }));
  }
  const doors = doorCount(device);
  const t = entityTopics(locationId, sn, doors);
  const availability = topics.location(locationId, availabilityTopic(sn));
  const name = typeof device['name'] === 'string' && device['name'] !== '' ? device['name'] : sn;
  const options = (device['options'] as Record<string, string> | null | undefined) ?? {};
  const common = {
    availability_topic: availability,
    payload_available: 'online',
    payload_not_available: 'offline',
    device: {
      identifiers: [nodeId(locationId, sn)],
      name,
      manufacturer: 'ZKTeco (via BioGate)',
      model: options['~DeviceName'] ?? options['DeviceName'] ?? 'PUSH terminal',
      serial_number: sn,
      ...(options['FirmVer'] ? { sw_version: options['FirmVer'] } : {}),
    },
  };
  const version = (device['version_override'] ?? device['version']) as string | null | undefined;
  const v2 = typeof version === 'string' && version.startsWith('2.');
  const command = (body: Record<string, unknown>) => JSON.stringify({ sn, ...body });
  return (
    [
      {
        topic: t.connectivity,
        payload: {
          ...common,
          name: 'Connectivity',
          unique_id: `${nodeId(locationId, sn)}_connectivity`,
          device_class: 'connectivity',
          entity_category: 'diagnostic',
          state_topic: availability,
          payload_on: 'online',
          payload_off: 'offline',
          // Connectivity must show "off" when the terminal is offline, not "unavailable".
          availability_topic: undefined,
          payload_available: undefined,
          payload_not_available: undefined,
        },
      },
      {
        topic: t.lastPunch,
        payload: {
          ...common,
          name: 'Last punch',
          unique_id: `${nodeId(locationId, sn)}_last_punch`,
          device_class: 'timestamp',
          state_topic: topics.location(locationId, ATTENDANCE_TOPIC),
          // The attendance topic carries every terminal of the location: keep the state unless the record is ours.
          value_template: `{% if value_json.sn == '${sn}' %}{{ value_json.timestamp }}{% else %}{{ this.state }}{% endif %}`,
          json_attributes_topic: topics.location(locationId, ATTENDANCE_TOPIC),
          json_attributes_template: `{% if value_json.sn == '${sn}' %}{{ {'pin': value_json.pin, 'user_id': value_json.user_id, 'local_time': value_json.local_time} | tojson }}{% else %}{{ this.attributes | tojson }}{% endif %}`,
        },
      },
      ...t.locks.map((topic, i) => ({
        topic,
        payload: {
          ...common,
          name: doors === 1 ? 'Door' : `Door ${i + 1}`,
          unique_id: `${nodeId(locationId, sn)}_door_${i + 1}`,
          command_topic: topics.location(locationId, REQUEST_COMMAND),
          optimistic: true,
          // [COMMANDS §3.3] door-open takes door_id on v3; v2 knows only door-unlock, and no remote lock.
          payload_unlock: v2 ? command({ command: 'door-unlock' }) : command({ command: 'door-open', params: { door_id: i + 1 } }),
          payload_lock: command({ command: 'door-lock' }),
        },
      })),
    ]
      .map((m): DiscoveryMessage => ({ topic: m.topic, payload: dropUndefined(m.payload) }))
      // A terminal that now reports fewer doors loses the extra locks (the publisher skips clearing what it never sent).
      .concat(
        entityTopics(locationId, sn, 4)
          .locks.slice(doors)
          .map((topic) => ({ topic, payload: null })),
      )
  );
}

function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** The location's head count sensor: how many users are in (the retained `<base>/<loc>/presence`, `{count}`). */
export function headCountDiscovery(topics: Topics, locationId: number): DiscoveryMessage {
  const node = `biogate_${locationId}_presence`;
  return {
    topic: `${HA_PREFIX}/sensor/${node}/head_count/config`,
    payload: {
      name: 'Head count',
      unique_id: `biogate_${locationId}_head_count`,
      state_topic: topics.location(locationId, PRESENCE_TOPIC),
      value_template: '{{ value_json.count }}',
      state_class: 'measurement',
      unit_of_measurement: 'people',
      icon: 'mdi:account-group',
      device: { identifiers: [`biogate_location_${locationId}`], name: `BioGate location ${locationId}`, manufacturer: 'BioGate' },
    },
  };
}
