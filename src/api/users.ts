/** /api/users: list, upsert, read, delete, import, clear (SERVICE-SPEC "Endpoints"). */
import { Type } from 'typebox';
import { BioGateError } from '../errors.js';
import type { UsersDeps } from '../users/effects.js';
import { IMPORT_MAX_ITEMS, importUsers } from '../users/import.js';
import { ImportItem, Pin, Privilege, UserWrite } from '../users/schemas.js';
import { clearUsers, deleteUser, getUser, upsertUser } from '../users/service.js';
import { userAudienceOf, UserView, userViews } from '../views/user.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { EmptyObject, PageQuery, pageOf, pageWrapper } from './schemas.js';

const IncludeQuery = Type.Optional(Type.Literal('biometrics', { description: 'Include biometric_templates' }));
const PinParam = Type.Object({ pin: Pin });
const ImportResult = Type.Object({
  message: Type.String(),
  processed_count: Type.Integer(),
  error_count: Type.Integer(),
  processed_users: Type.Array(UserView),
  errors: Type.Array(Type.Object({ user_data: Type.Unknown(), error: Type.String(), code: Type.String() })),
});
const ClearBody = Type.Object({ pins: Type.Optional(Type.Union([Type.Array(Pin, { maxItems: IMPORT_MAX_ITEMS }), Type.Null()])) });
const ClearResult = Type.Object({
  message: Type.String(),
  users_deleted: Type.Integer(),
  devices_affected: Type.Integer(),
  commands_created: Type.Integer(),
});

export function userRoutes(deps: UsersDeps): ApiRoute[] {
  const { store } = deps;
  const tags = ['users'];
  return [
    defineRoute({
      method: 'GET',
      path: '/api/users',
      auth: 'location',
      query: Type.Object({
        ...PageQuery,
        search: Type.Optional(Type.String({ maxLength: 100 })),
        privilege: Type.Optional(Privilege),
        is_active: Type.Optional(Type.Boolean()),
        include: IncludeQuery,
      }),
      doc: { summary: 'Paginated user list', tags, responses: { 200: pageOf(UserView) } },
      handler: async ({ caller, query }) => {
        const filter = {
          ...(query.search ? { search: query.search } : {}),
          ...(query.privilege !== undefined ? { privilege: query.privilege } : {}),
          ...(query.is_active !== undefined ? { is_active: query.is_active } : {}),
        };
        const page = await store.users.list(caller.location.id, filter, { offset: (query.page - 1) * query.limit, limit: query.limit });
        const views = await userViews(
          store,
          caller.location,
          page.items,
          query.include === 'biometrics',
          userAudienceOf(caller.token.scope),
        );
        return json(200, pageWrapper(views, page.total, query.page, query.limit));
      },
    }),
    defineRoute({
      // bodyMode 'raw': the handler validates, so schema problems and the rules that need the stored
      // user (first_name for a new PIN, the validity window) come back in one 422 [API-CONTRACT §3].
      method: 'POST',
      path: '/api/users',
      auth: 'location',
      body: UserWrite,
      bodyMode: 'raw',
      doc: {
        summary: 'Create or update a user by PIN; queues device sync',
        description:
          '201 when the PIN was new, 200 when an existing user was updated. Fields left out keep their stored value, so ' +
          '`first_name` is required only for a new PIN (422 without it); `end_time` before `start_time` is a 422. ' +
          'A new PIN past BIOGATE_QUOTA_USERS gets 429 QUOTA_EXCEEDED.',
        tags,
        responses: { 201: UserView, 200: UserView },
        errors: ['QUOTA_EXCEEDED'],
      },
      handler: async ({ caller, body }) => {
        const result = await upsertUser(deps, caller.location, body as unknown as Record<string, unknown>);
        const [view] = await userViews(store, caller.location, [result.user], false, userAudienceOf(caller.token.scope));
        return json(result.created ? 201 : 200, view);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/users/import',
      auth: 'location',
      body: Type.Array(ImportItem, { maxItems: IMPORT_MAX_ITEMS }),
      bodyMode: 'raw',
      doc: {
        summary: 'Bulk import or update (up to 10,000 items; per-item errors)',
        description:
          'The body must be a JSON array (400 otherwise) of at most 10,000 items (413 beyond). Items are checked one by one against the item ' +
          'schema: an item that fails it (a required field missing, a value out of range, not an object) does not fail the request; it is ' +
          'reported in `errors` with its `code` (VALIDATION_FAILED) and the other items are still imported (200). Items naming a PIN new ' +
          'to the location beyond what BIOGATE_QUOTA_USERS leaves are refused as per-item errors with code QUOTA_EXCEEDED.',
        tags,
        responses: { 200: ImportResult },
        errors: ['PAYLOAD_TOO_LARGE'],
      },
      handler: async ({ caller, body }) => {
        // bodyMode 'raw': items are validated one by one and failures reported per item.
        const raw = body as unknown[];
        if (raw.length > IMPORT_MAX_ITEMS)
          throw new BioGateError('PAYLOAD_TOO_LARGE', `At most ${IMPORT_MAX_ITEMS} users per import; got ${raw.length}`);
        const { processed, errors } = await importUsers(deps, caller.location, raw);
        return json(200, {
          message: `Processed ${processed.length} users, ${errors.length} errors`,
          processed_count: processed.length,
          error_count: errors.length,
          processed_users: await userViews(store, caller.location, processed, false, userAudienceOf(caller.token.scope)),
          errors,
        });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/users/clear',
      auth: 'location',
      body: ClearBody,
      bodyRequired: false,
      doc: { summary: 'Clear (deactivate) some or all users; queues delete commands', tags, responses: { 200: ClearResult } },
      handler: async ({ caller, body }) => {
        const { cleared, counts } = await clearUsers(deps, caller.location, body?.pins ?? null);
        return json(200, {
          message: `Cleared ${cleared.length} users; ${counts.commands} delete commands queued for ${counts.devices} devices`,
          users_deleted: cleared.length,
          devices_affected: counts.devices,
          commands_created: counts.commands,
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/users/{pin}',
      auth: 'location',
      params: PinParam,
      query: Type.Object({ include: IncludeQuery }),
      doc: { summary: 'One user', tags, responses: { 200: UserView }, errors: ['USER_NOT_FOUND'] },
      handler: async ({ caller, params, query }) => {
        const user = await getUser(deps, caller.location, params.pin);
        const [view] = await userViews(store, caller.location, [user], query.include === 'biometrics', userAudienceOf(caller.token.scope));
        return json(200, view);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/users/{pin}',
      auth: 'location',
      params: PinParam,
      doc: {
        summary: 'Delete a user; queues delete commands to the devices',
        tags,
        responses: { 200: EmptyObject },
        errors: ['USER_NOT_FOUND'],
      },
      handler: async ({ caller, params }) => {
        await deleteUser(deps, caller.location, params.pin);
        return json(200, {});
      },
    }),
  ];
}
