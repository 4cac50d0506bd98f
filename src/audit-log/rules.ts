/**
 * Which store writes are changes an actor made, and the entries each becomes (issue #36 item 1): users
 * (and their templates and photos), devices, areas, schedules, access levels, holidays, webhooks, alert rules, tokens,
 * locations and their settings and scenarios, commands queued or cancelled through the API, manual and
 * voided punches. Each wrapper has its port method's signature; `record` (./store.ts) runs the read of
 * the record as it was, the write and the append of its entries as one unit of work.
 */
import type { Store } from '../store/types.js';
import { CHANGED, changesOf } from './changes.js';
import { created, deleted, draft, updated, type Draft } from './drafts.js';

/** Runs `change` and appends the entries `describe` makes of its result and of what `read` found before it. */
export type Record = <R, B>(
  read: () => Promise<B>,
  change: () => Promise<R>,
  describe: (result: R, before: B) => readonly Draft[],
) => Promise<R>;

const nothing = async (): Promise<undefined> => undefined;

export function auditedPorts(s: Store, record: Record): Partial<Store> {
  const { locations, tokens, users, templates, areas, schedules, accessLevels, holidays, devices, webhooks, commands, attendance, alerts } =
    s;
  return {
    locations: {
      ...locations,
      create: (input, now) =>
        record(
          nothing,
          () => locations.create(input, now),
          (l) => created(l.id, 'location', l.id, l),
        ),
      update: (id, patch, now) =>
        record(
          () => locations.get(id),
          () => locations.update(id, patch, now),
          (l, b) => (l ? updated(id, 'location', id, b, l) : []),
        ),
      setScenario: (id, expected, scenario, now) =>
        record(
          () => locations.get(id),
          () => locations.setScenario(id, expected, scenario, now),
          // A scenario starts in two writes (claimed, then its command's id): the second is part of the start.
          (l, b) =>
            !l || (b?.scenario && scenario) ? [] : updated(id, 'location', id, b, l, scenario ? 'scenario_started' : 'scenario_released'),
        ),
    },
    tokens: {
      ...tokens,
      create: (input, now) =>
        record(
          nothing,
          () => tokens.create(input, now),
          (t) => created(t.location_id, 'token', t.id, t),
        ),
      revoke: (id, now) =>
        record(
          () => tokens.get(id),
          () => tokens.revoke(id, now),
          (t, b) => (t && b ? updated(t.location_id, 'token', id, b, t, 'revoked') : []),
        ),
    },
    users: {
      ...users,
      upsert: (loc, pin, fields, now) =>
        record(
          () => users.get(loc, pin),
          () => users.upsert(loc, pin, fields, now),
          (r, b) => (r.created ? created(loc, 'user', pin, r.user) : updated(loc, 'user', pin, b, r.user)),
        ),
      // An import (up to 10,000 users) is one entry with its counts: a read and an entry per user would cost it
      // more than the import itself on a slow store.
      upsertMany: (loc, items, now) =>
        record(
          nothing,
          () => users.upsertMany(loc, items, now),
          (rs) => {
            const created = rs.filter((r) => r.created).length;
            return rs.length > 0
              ? [draft(loc, 'user', 'imported', '*', { created: [null, created], updated: [null, rs.length - created] })]
              : [];
          },
        ),
      delete: (loc, pin, now) =>
        record(
          nothing,
          () => users.delete(loc, pin, now),
          (u) => deleted(loc, 'user', pin, u),
        ),
      deactivate: (loc, pins, now) =>
        record(
          nothing,
          () => users.deactivate(loc, pins, now),
          (us) => us.map((u) => draft(loc, 'user', 'deactivated', u.pin, { is_active: [true, false] })),
        ),
      setPhoto: (loc, pin, photo) =>
        record(
          nothing,
          () => users.setPhoto(loc, pin, photo),
          (u) => (u ? [draft(loc, 'user', photo ? 'photo_set' : 'photo_deleted', pin, { photo: CHANGED })] : []),
        ),
    },
    templates: {
      ...templates,
      upsert: (loc, input, now) =>
        record(
          nothing,
          () => templates.upsert(loc, input, now),
          (r) => (r.changed || r.created ? [draft(loc, 'user', 'template_set', input.user_pin, { templates: CHANGED })] : []),
        ),
      deleteForUser: (loc, pin) =>
        record(
          nothing,
          () => templates.deleteForUser(loc, pin),
          (n) => (n > 0 ? [draft(loc, 'user', 'templates_deleted', pin, { templates: CHANGED })] : []),
        ),
      deleteSlot: (loc, pin, typeIndex, fingerId) =>
        record(
          nothing,
          () => templates.deleteSlot(loc, pin, typeIndex, fingerId),
          (n) => (n > 0 ? [draft(loc, 'user', 'templates_deleted', pin, { templates: CHANGED })] : []),
        ),
    },
    areas: {
      ...areas,
      create: (loc, name, now) =>
        record(
          nothing,
          () => areas.create(loc, name, now),
          (a) => created(loc, 'area', a.id, a),
        ),
      rename: (loc, id, name, now) =>
        record(
          () => areas.get(loc, id),
          () => areas.rename(loc, id, name, now),
          (a, b) => (a ? updated(loc, 'area', id, b, a) : []),
        ),
      delete: (loc, id) =>
        record(
          () => areas.get(loc, id),
          () => areas.delete(loc, id),
          (r, b) => (r === 'deleted' ? deleted(loc, 'area', id, b) : []),
        ),
    },
    schedules: {
      ...schedules,
      create: (loc, name, days, now) =>
        record(
          nothing,
          () => schedules.create(loc, name, days, now),
          (x) => (x ? created(loc, 'schedule', x.id, x) : []),
        ),
      update: (loc, id, name, days, now) =>
        record(
          () => schedules.get(loc, id),
          () => schedules.update(loc, id, name, days, now),
          (x, b) => (x ? updated(loc, 'schedule', id, b, x) : []),
        ),
      delete: (loc, id) =>
        record(
          () => schedules.get(loc, id),
          () => schedules.delete(loc, id),
          (r, b) => (r === 'deleted' ? deleted(loc, 'schedule', id, b) : []),
        ),
    },
    accessLevels: {
      ...accessLevels,
      create: (loc, fields, now) =>
        record(
          nothing,
          () => accessLevels.create(loc, fields, now),
          (x) => created(loc, 'access_level', x.id, x),
        ),
      update: (loc, id, fields, now) =>
        record(
          () => accessLevels.get(loc, id),
          () => accessLevels.update(loc, id, fields, now),
          (x, b) => (x ? updated(loc, 'access_level', id, b, x) : []),
        ),
      delete: (loc, id) =>
        record(
          () => accessLevels.get(loc, id),
          () => accessLevels.delete(loc, id),
          (r, b) => (r ? deleted(loc, 'access_level', id, b) : []),
        ),
    },
    holidays: {
      ...holidays,
      create: (loc, fields, now) =>
        record(
          nothing,
          () => holidays.create(loc, fields, now),
          (x) => created(loc, 'holiday', x.id, x),
        ),
      update: (loc, id, fields, now) =>
        record(
          () => holidays.get(loc, id),
          () => holidays.update(loc, id, fields, now),
          (x, b) => (x ? updated(loc, 'holiday', id, b, x) : []),
        ),
      delete: (loc, id) =>
        record(
          () => holidays.get(loc, id),
          () => holidays.delete(loc, id),
          (r, b) => (r ? deleted(loc, 'holiday', id, b) : []),
        ),
    },
    devices: {
      ...devices,
      assign: (loc, sn, input, now, feedEvent) =>
        record(
          () => devices.get(loc, sn),
          () => devices.assign(loc, sn, input, now, feedEvent),
          (r, b) =>
            r.outcome === 'assigned'
              ? [draft(loc, 'device', 'assigned', sn, { location_id: [null, loc], ...changesOf(null, r.device) })]
              : r.outcome === 'already'
                ? updated(loc, 'device', sn, b, r.device)
                : [],
        ),
      update: (loc, sn, patch, now, feedEvent) =>
        record(
          nothing,
          () => devices.update(loc, sn, patch, now, feedEvent),
          (r) => (r ? updated(loc, 'device', sn, r.before, r.after) : []),
        ),
      unassign: (loc, sn, now, feedEvent) =>
        record(
          nothing,
          () => devices.unassign(loc, sn, now, feedEvent),
          (d) => (d ? [draft(loc, 'device', 'unassigned', sn, { location_id: [loc, null] })] : []),
        ),
      resetRegistration: (loc, sn, now, feedEvent) =>
        record(
          nothing,
          () => devices.resetRegistration(loc, sn, now, feedEvent),
          (d) => (d ? [draft(loc, 'device', 'registration_reset', sn, { registration: CHANGED })] : []),
        ),
      deleteUnassigned: (sn) =>
        record(
          () => devices.getBySerial(sn),
          () => devices.deleteUnassigned(sn),
          (r, b) => (r === 'deleted' ? deleted(null, 'device', sn, b) : []),
        ),
    },
    webhooks: {
      ...webhooks,
      create: (input, now) =>
        record(
          nothing,
          () => webhooks.create(input, now),
          (w) => created(w.location_id, 'webhook', w.id, w),
        ),
      update: (loc, id, patch, now) =>
        record(
          () => webhooks.get(loc, id),
          () => webhooks.update(loc, id, patch, now),
          (w, b) => (w ? updated(loc, 'webhook', id, b, w) : []),
        ),
      delete: (loc, id) =>
        record(
          () => webhooks.get(loc, id),
          () => webhooks.delete(loc, id),
          (r, b) => (r ? deleted(loc, 'webhook', id, b) : []),
        ),
    },
    alerts: {
      ...alerts,
      create: (loc, fields, now) =>
        record(
          nothing,
          () => alerts.create(loc, fields, now),
          (r) => created(loc, 'alert_rule', r.id, r),
        ),
      update: (loc, id, fields, now) =>
        record(
          () => alerts.get(loc, id),
          () => alerts.update(loc, id, fields, now),
          (r, b) => (r ? updated(loc, 'alert_rule', id, b, r) : []),
        ),
      delete: (loc, id) =>
        record(
          () => alerts.get(loc, id),
          () => alerts.delete(loc, id),
          (r, b) => (r ? deleted(loc, 'alert_rule', id, b) : []),
        ),
    },
    commands: {
      ...commands,
      // What a caller queued (a location-wide command once, as its parent); not the ops and children BioGate queues for it.
      create: (input, now) =>
        record(
          nothing,
          () => commands.create(input, now),
          (c) =>
            c.origin === 'api' && c.location_id !== null && !input.parent_id && !input.group_id
              ? [
                  draft(c.location_id, 'command', 'queued', c.id, {
                    command: [null, c.command],
                    sn: [null, c.sn || null],
                    priority: [null, c.priority],
                  }),
                ]
              : [],
        ),
      failIfPending: (id, message, now, feedEvent) =>
        record(
          nothing,
          () => commands.failIfPending(id, message, now, feedEvent),
          (c) => (c && c.location_id !== null ? [draft(c.location_id, 'command', 'cancelled', id, { status: ['pending', 'failed'] })] : []),
        ),
    },
    attendance: {
      ...attendance,
      record: (records, now, feedEvent) =>
        record(
          nothing,
          () => attendance.record(records, now, feedEvent),
          (rs) =>
            rs
              .filter((r) => r.source === 'manual')
              .map((r) => draft(r.location_id, 'attendance', 'created', r.id, { pin: [null, r.pin], timestamp: [null, r.timestamp] })),
        ),
      voidRecord: (loc, id, reason, at) =>
        record(
          nothing,
          () => attendance.voidRecord(loc, id, reason, at),
          (r) =>
            r && r !== 'voided'
              ? [draft(loc, 'attendance', 'voided', id, { voided_at: [null, r.voided_at], void_reason: [null, r.void_reason] })]
              : [],
        ),
    },
  };
}
