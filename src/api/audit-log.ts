/**
 * GET /api/audit and GET /admin/audit (issue #36 item 1): who changed what, newest first a page at a time,
 * or with `after` the cursor feed (oldest first, for a program that copies the log elsewhere). A location
 * token reads its location's entries; the admin token every location's, or one with `location_id`.
 */
import { Type, type Static, type TSchema } from 'typebox';
import type { Clock } from '../clock.js';
import type { AuditEntry, AuditFilter, AuditScope } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import { AdminAuditEntryView, adminAuditEntryView, AuditEntryView, auditEntryView } from '../views/audit.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { DateOrDateTime, PageQuery, pageOf, pageWrapper, queryInstant } from './schemas.js';

/** An action or target type: lower-case words joined by `_` and `.`. */
const Name = (description: string) => Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z_]+(\\.[a-z_]+)*$', description });

const Query = {
  ...PageQuery,
  action: Type.Optional(Name('Only this action, e.g. `user.updated`')),
  target_type: Type.Optional(Name('Only changes to this kind of record, e.g. `device`')),
  from: Type.Optional(DateOrDateTime),
  to: Type.Optional(DateOrDateTime),
  after: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Cursor feed: `0` for the first entries, then the `next_cursor` of the previous answer; oldest first, `page` is ignored',
    }),
  ),
};

const feedOf = <T extends TSchema & { title?: string }>(view: T) =>
  Type.Object(
    {
      data: Type.Array(view, { description: 'Oldest first' }),
      next_cursor: Type.Integer({ description: 'Pass as `after` next time (the same cursor again when nothing new arrived)' }),
      has_more: Type.Boolean({ description: 'More entries are waiting: call again at once' }),
    },
    { title: `${view.title ?? 'AuditEntry'}Feed` },
  );

const description =
  'One entry per change made through the REST API, the admin API, MQTT requests, the console or the CLI: `changes` maps each field to ' +
  '`[before, after]`, and a secret (password, card, token hash, signing secret, templates, photo) only to `"(changed)"`. Without `after`: ' +
  'pages, newest first. With `after` (start with `0`): the entries after the cursor, oldest first, and a `next_cursor`; on MongoDB the feed ' +
  'trails real time by 5 s so that entries still being written are never passed over. Kept BIOGATE_AUDIT_RETENTION_DAYS (default 365).';

type Q = Static<Type.TObject<typeof Query>>;

async function answer(store: Store, clock: Clock, scope: AuditScope, query: Q, view: (e: AuditEntry) => unknown) {
  const filter: AuditFilter = {
    ...(query.action !== undefined ? { action: query.action } : {}),
    ...(query.target_type !== undefined ? { target_type: query.target_type } : {}),
    ...(query.from !== undefined ? { from: queryInstant(query.from, false, 'from') } : {}),
    ...(query.to !== undefined ? { to: queryInstant(query.to, true, 'to') } : {}),
  };
  if (query.after !== undefined) {
    const rows = await store.auditLog.after(scope, filter, query.after, clock.now().toISOString(), query.limit + 1);
    const data = rows.slice(0, query.limit);
    return json(200, { data: data.map(view), next_cursor: data.at(-1)?.id ?? query.after, has_more: rows.length > query.limit });
  }
  const page = await store.auditLog.page(scope, filter, { offset: (query.page - 1) * query.limit, limit: query.limit });
  return json(200, pageWrapper(page.items.map(view), page.total, query.page, query.limit));
}

export function auditLogRoutes(store: Store, clock: Clock): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/audit',
      auth: 'location',
      query: Type.Object(Query),
      doc: {
        summary: 'Who changed what in the location: the audit log, newest first, or with `after` the cursor feed',
        description,
        tags: ['audit'],
        responses: { 200: Type.Union([pageOf(AuditEntryView), feedOf(AuditEntryView)]) },
      },
      handler: ({ caller, query }) => answer(store, clock, { location_id: caller.location.id }, query, auditEntryView),
    }),
    defineRoute({
      method: 'GET',
      path: '/admin/audit',
      auth: 'admin',
      query: Type.Object({ ...Query, location_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })) }),
      doc: {
        summary: "Every location's audit log (or one's, with `location_id`), for the operator",
        description: `${description} Entries of no location (an unassigned device deleted) have \`location_id\` null.`,
        tags: ['admin'],
        responses: { 200: Type.Union([pageOf(AdminAuditEntryView), feedOf(AdminAuditEntryView)]) },
      },
      handler: ({ query }) => {
        const { location_id, ...rest } = query;
        return answer(store, clock, location_id !== undefined ? { location_id } : {}, rest, adminAuditEntryView);
      },
    }),
  ];
}
