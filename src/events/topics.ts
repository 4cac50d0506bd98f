/**
 * Feed events → the topic scheme shared by the MQTT bridge and the WebSocket stream (DESIGN.md
 * "Events"), relative to a location: MQTT prefixes `<base>/<location_id>/`, the WebSocket stream
 * uses the relative topics as they are. One mapping, so the two can never disagree.
 */
import type { AnyFeedEvent, PresenceData } from './types.js';

export interface TopicMessage {
  /** Relative to the location, e.g. `devices/A1B2/availability`. */
  readonly topic: string;
  /** A string is sent as is (availability: `online`/`offline`); anything else as JSON. `null` clears a retained topic. */
  readonly payload: unknown;
  /** Retained: the last value is what a late subscriber gets first (MQTT retain, WebSocket snapshot). */
  readonly retain: boolean;
}

export const availabilityTopic = (sn: string) => `devices/${sn}/availability`;
export const stateTopic = (sn: string) => `devices/${sn}/state`;
export const syncTopic = (sn: string) => `devices/${sn}/sync`;
export const commandTopic = (id: number) => `commands/${id}`;
export const ATTENDANCE_TOPIC = 'attendance';
/** Records voided through the API (issue #35 item 3). */
export const ATTENDANCE_VOIDED_TOPIC = 'attendance/voided';
/** Punch photos kept (issue #35 item 4): the record and the photo's URL. */
export const ATTENDANCE_PHOTO_TOPIC = 'attendance/photo';
export const doorEventsTopic = (sn: string) => `events/${sn}`;
/** The location's head count, `{count}` (issue #35 item 2); each user's presence under it. */
export const PRESENCE_TOPIC = 'presence';
/** Audit log entries as they are written (issue #36 item 1). */
export const AUDIT_TOPIC = 'audit';
/** Alert incidents raised and cleared, per rule (issue #36 item 4). */
export const alertTopic = (ruleId: number) => `alerts/${ruleId}`;
export const presenceTopic = (pin: string) => `${PRESENCE_TOPIC}/${pin}`;

/** The messages one event becomes; an event may map to none (user.changed has no topic). */
export function topicMessages(event: AnyFeedEvent): TopicMessage[] {
  switch (event.type) {
    case 'device.online':
    case 'device.offline':
      return [
        { topic: availabilityTopic(event.data.sn), payload: event.type === 'device.online' ? 'online' : 'offline', retain: true },
        { topic: stateTopic(event.data.sn), payload: event.data.device, retain: true },
      ];
    case 'device.updated':
      // Unassigned from this location: its retained topics are cleared, so no stale device lingers.
      if (event.data.device.location_id !== event.location_id) {
        return [
          { topic: availabilityTopic(event.data.sn), payload: null, retain: true },
          { topic: stateTopic(event.data.sn), payload: null, retain: true },
          { topic: syncTopic(event.data.sn), payload: null, retain: true },
        ];
      }
      return [{ topic: stateTopic(event.data.sn), payload: event.data.device, retain: true }];
    case 'device.sync':
      // Retained: a late subscriber gets the terminal's current state first.
      return [{ topic: syncTopic(event.data.sn), payload: event.data.sync, retain: true }];
    case 'command.updated':
      return [{ topic: commandTopic(event.data.command.id), payload: event.data.command, retain: false }];
    case 'attendance.recorded':
      return event.data.records.map((record) => ({ topic: ATTENDANCE_TOPIC, payload: record, retain: false }));
    case 'attendance.voided':
      return [{ topic: ATTENDANCE_VOIDED_TOPIC, payload: event.data.record, retain: false }];
    case 'attendance.photo':
      return [{ topic: ATTENDANCE_PHOTO_TOPIC, payload: event.data, retain: false }];
    case 'presence.changed':
      return [
        ...presenceMessages(event.data.count, event.data.users),
        // No punch this working day: the retained topic is cleared.
        ...event.data.absent.filter(isTopicLevel).map((pin) => ({ topic: presenceTopic(pin), payload: null, retain: true })),
      ];
    case 'door.event':
      return [{ topic: doorEventsTopic(event.data.sn), payload: event.data, retain: false }];
    case 'alert.raised':
    case 'alert.cleared':
      return [{ topic: alertTopic(event.data.rule.id), payload: event.data, retain: false }];
    case 'audit.recorded':
      return [{ topic: AUDIT_TOPIC, payload: event.data.entry, retain: false }];
    case 'user.changed':
    case 'area.changed':
    case 'schedule.changed':
    case 'access_level.changed':
      return [];
    default: {
      const never: never = event;
      return never;
    }
  }
}

/**
 * Who is in as retained messages (a late subscriber gets them first): the head count and each user's presence. A PIN
 * that is not one topic level is left out of the per-user topics (it still counts).
 */
export function presenceMessages(count: number, users: readonly PresenceData[]): TopicMessage[] {
  return [
    { topic: PRESENCE_TOPIC, payload: { count }, retain: true },
    ...users.filter((u) => isTopicLevel(u.pin)).map((u) => ({ topic: presenceTopic(u.pin), payload: u, retain: true })),
  ];
}

/** Whether `s` can stand as one topic level: no separator, no wildcard, no NUL [MQTT-4.7.1]. */
export const isTopicLevel = (s: string): boolean => s !== '' && !/[/+#]/.test(s) && !s.includes('\u0000');

/** MQTT-style matching: `+` is one level, `#` (last) the rest, including none. */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return i === f.length - 1;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}
