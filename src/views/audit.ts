/**
 * An audit log entry (issue #36 item 1) as GET /api/audit, GET /admin/audit and the feed's `audit.recorded`
 * show it: who (`actor`), what (`action` on `target`) and how (`changes`: field → [before, after]; a secret's
 * field is only `"(changed)"`). The admin's view names the location as well.
 */
import { Type } from 'typebox';
import type { AuditEntry } from '../store/ports/index.js';
import { IsoDateTime, Nullable } from './common.js';

export const AuditActorView = Type.Object(
  {
    kind: Type.Union([Type.Literal('token'), Type.Literal('admin'), Type.Literal('cli'), Type.Literal('system')], {
      description:
        '`token`: a location token (REST API, console, MQTT requests); `admin`: the admin token; `cli`: the `biogate` CLI; `system`: BioGate itself',
    }),
    token_id: Type.Optional(Type.Integer()),
    label: Type.Optional(Type.String()),
    address: Type.Optional(Type.String({ description: "The client's address (HTTP)" })),
  },
  { title: 'AuditActor', additionalProperties: false },
);

export const AuditEntryView = Type.Object(
  {
    id: Type.Integer({ description: 'Increasing in the order entries were written; the cursor of `after`' }),
    at: IsoDateTime,
    actor: AuditActorView,
    action: Type.String({ description: '`<target type>.<verb>`, e.g. `user.created`, `device.updated`, `location.scenario_started`' }),
    target: Type.Object({ type: Type.String(), id: Type.String() }, { title: 'AuditTarget', additionalProperties: false }),
    changes: Type.Record(Type.String(), Type.Union([Type.Array(Type.Unknown(), { minItems: 2, maxItems: 2 }), Type.Literal('(changed)')]), {
      description:
        'Field → [before, after]; secrets (passwords, cards, token hashes, signing secrets, templates, photos) are `"(changed)"`',
    }),
  },
  { title: 'AuditEntry', additionalProperties: false },
);

export const AdminAuditEntryView = Type.Object(
  { ...AuditEntryView.properties, location_id: Nullable(Type.Integer({ description: 'null: a record of no location' })) },
  { title: 'AdminAuditEntry', additionalProperties: false },
);

export function auditEntryView(e: AuditEntry) {
  return { id: e.id, at: e.at, actor: { ...e.actor }, action: e.action, target: { ...e.target }, changes: { ...e.changes } };
}

export const adminAuditEntryView = (e: AuditEntry) => ({ ...auditEntryView(e), location_id: e.location_id });
