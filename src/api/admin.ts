/**
 * The admin API (/admin/…): locations and tokens, for operators. Exists only
 * when BIOGATE_ADMIN_TOKEN is set, and is authenticated with it.
 */
import { Type } from 'typebox';
import { MAX_DEBOUNCE_S, MAX_PHOTO_RETENTION_DAYS, type LocationService } from '../locations/service.js';
import type { Clock } from '../clock.js';
import { assignDevice, deleteUnassignedDevice, type AssignmentDeps } from '../devices/assignment.js';
import { invalid } from '../errors.js';
import type { Store } from '../store/types.js';
import { Serial } from './devices.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { TimeZoneName } from './schemas.js';
import { Nullable } from '../views/common.js';
import { DeviceView, deviceView, UnassignedDeviceView, unassignedDeviceView } from '../views/device.js';
import { LocationView, locationView } from '../views/location.js';
import { publicToken, TokenScopeSchema, TokenView } from '../views/token.js';
import { EmptyObject, PageQuery, pageOf, pageWrapper } from './schemas.js';

const Id = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const Scope = TokenScopeSchema;
const IssuedToken = Type.Object({
  id: Type.Integer(),
  token: Type.String(),
  location_id: Type.Integer(),
  scope: Scope,
  expires_at: Nullable(Type.String()),
});
const TokenRequest = Type.Object(
  {
    scope: Type.Optional(Scope),
    expires_in_days: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 3650 }))),
    label: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  },
  { additionalProperties: false },
);

export interface AdminDeps {
  readonly store: Store;
  readonly locations: LocationService;
  readonly clock: Clock;
  /** What assigning a terminal takes (devices/assignment.ts), as for POST /api/devices. */
  readonly assignment: AssignmentDeps;
  readonly onlineThresholdS: number;
}

export function adminRoutes(deps: AdminDeps): ApiRoute[] {
  const { store, locations } = deps;
  const tags = ['admin'];
  return [
    defineRoute({
      method: 'GET',
      path: '/admin/locations',
      auth: 'admin',
      doc: { summary: 'List every location', tags, responses: { 200: Type.Array(LocationView) } },
      handler: async () => json(200, await Promise.all((await locations.list()).map((l) => locationView(store, l)))),
    }),
    defineRoute({
      method: 'POST',
      path: '/admin/locations',
      auth: 'admin',
      body: Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 200 }),
          timezone: Type.Optional(TimeZoneName),
          require_comm_key: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
      doc: {
        summary: 'Create a location and its first token (shown once)',
        tags,
        responses: { 201: Type.Object({ location: LocationView, token: Type.String() }) },
      },
      handler: async ({ body }) => {
        const { location, token } = await locations.create({
          name: body.name,
          ...(body.timezone !== undefined ? { timezone: body.timezone } : {}),
          ...(body.require_comm_key !== undefined ? { require_comm_key: body.require_comm_key } : {}),
        });
        return json(201, { location: await locationView(store, location), token: token.token });
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/admin/locations/{id}',
      auth: 'admin',
      params: Id,
      body: Type.Object(
        {
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          timezone: Type.Optional(TimeZoneName),
          is_active: Type.Optional(Type.Boolean()),
          require_comm_key: Type.Optional(Type.Boolean({ description: 'Refuse to assign devices without a comm key' })),
          attendance_debounce_s: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: MAX_DEBOUNCE_S,
              description: 'Time cards: seconds within which a punch repeats the previous one',
            }),
          ),
          day_start_hour: Type.Optional(
            Type.Integer({ minimum: 0, maximum: 23, description: 'Time cards: the local hour a working day starts at' }),
          ),
          attendance_photos: Type.Optional(Type.Boolean({ description: 'Keep the punch photos terminals upload' })),
          attendance_photo_retention_days: Type.Optional(
            Type.Integer({ minimum: 1, maximum: MAX_PHOTO_RETENTION_DAYS, description: 'Days a punch photo is kept' }),
          ),
        },
        { additionalProperties: false },
      ),
      doc: {
        summary: 'Rename, change the time zone, require_comm_key, the time-card or punch-photo settings, disable or enable a location',
        tags,
        responses: { 200: LocationView },
        errors: ['LOCATION_NOT_FOUND'],
      },
      handler: async ({ params, body }) => json(200, await locationView(store, await locations.update(params.id, body))),
    }),
    defineRoute({
      method: 'GET',
      path: '/admin/locations/{id}/tokens',
      auth: 'admin',
      params: Id,
      doc: {
        summary: "List a location's tokens (never the token text)",
        tags,
        responses: { 200: Type.Array(TokenView) },
        errors: ['LOCATION_NOT_FOUND'],
      },
      handler: async ({ params }) => {
        await locations.get(params.id);
        return json(200, (await locations.listTokens(params.id)).map(publicToken));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/admin/locations/{id}/tokens',
      auth: 'admin',
      params: Id,
      body: TokenRequest,
      bodyRequired: false,
      doc: { summary: 'Issue a token for a location (shown once)', tags, responses: { 201: IssuedToken }, errors: ['LOCATION_NOT_FOUND'] },
      handler: async ({ params, body }) =>
        json(
          201,
          await locations.issueToken({
            location_id: params.id,
            scope: body?.scope ?? 'full',
            expires_in_days: body?.expires_in_days ?? null,
            label: body?.label ?? null,
          }),
        ),
    }),
    defineRoute({
      method: 'GET',
      path: '/admin/devices/unassigned',
      auth: 'admin',
      query: Type.Object(PageQuery),
      doc: {
        summary: 'Terminals that contacted the gateway without being assigned to a location, by serial number',
        description:
          '`first_seen` is when BioGate first recorded the serial; `last_seen` and `last_address` are as last stored (presence is written every few seconds).',
        tags,
        responses: { 200: pageOf(UnassignedDeviceView) },
      },
      handler: async ({ query }) => {
        const page = await store.devices.listUnassigned({ offset: (query.page - 1) * query.limit, limit: query.limit });
        return json(200, pageWrapper(page.items.map(unassignedDeviceView), page.total, query.page, query.limit));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/admin/devices/{device_serial}/assign',
      auth: 'admin',
      params: Type.Object({ device_serial: Serial }),
      body: Type.Object(
        {
          location_id: Type.Integer({ minimum: 1 }),
          name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\t\\r\\n\\u0000]+$' }))),
        },
        { additionalProperties: false },
      ),
      doc: {
        summary: 'Assign a terminal to a location (the admin\'s "assign to location" for unassigned terminals)',
        description:
          'The same assignment as `POST /api/devices` made with a token of that location: 201 when newly assigned (the roster sync is queued), ' +
          '200 when it already belonged to it, 403 when it belongs to another location. A location that requires a comm key (or BIOGATE_REQUIRE_COMM_KEY) ' +
          'refuses a device without one: assign it through `POST /api/devices` with `comm_key`. ' +
          'This is how a serial new to a location is assigned when BIOGATE_DEVICE_CLAIM=admin. 429 QUOTA_EXCEEDED past BIOGATE_QUOTA_DEVICES.',
        tags,
        responses: { 201: DeviceView, 200: DeviceView },
        errors: ['LOCATION_NOT_FOUND', 'DEVICE_OTHER_LOCATION', 'VALIDATION_FAILED', 'QUOTA_EXCEEDED'],
      },
      handler: async ({ params, body }) => {
        const location = await locations.get(body.location_id);
        const sn = params.device_serial;
        const now = deps.clock.now();
        const { outcome, device } = await assignDevice(deps.assignment, location, sn, { name: body.name ?? null }, now, (rule) =>
          invalid(
            ['body', 'location_id'],
            `a comm key is required (${rule}): assign ${sn} through POST /api/devices with comm_key and a token of the location`,
            'missing',
          ),
        );
        return json(
          outcome === 'assigned' ? 201 : 200,
          deviceView(device, location, now, deps.onlineThresholdS, 'full', await deps.store.areas.names(location.id)),
        );
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/admin/devices/{device_serial}',
      auth: 'admin',
      params: Type.Object({ device_serial: Serial }),
      doc: {
        summary: 'Delete an unassigned terminal',
        description:
          'Forgets a terminal no location holds (its options, address, registration). 404 when the serial is unknown, 409 DEVICE_ASSIGNED when a ' +
          'location holds it (unassign it first). A terminal that still calls is recorded again on its next request. Unassigned terminals not seen ' +
          'for 30 days are deleted by a periodic sweep.',
        tags,
        responses: { 200: EmptyObject },
        errors: ['DEVICE_NOT_FOUND', 'DEVICE_ASSIGNED'],
      },
      handler: async ({ params }) => {
        await deleteUnassignedDevice(deps.assignment, params.device_serial);
        return json(200, {});
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/admin/tokens/{id}',
      auth: 'admin',
      params: Id,
      doc: { summary: 'Revoke a token', tags, responses: { 200: TokenView }, errors: ['TOKEN_NOT_FOUND'] },
      handler: async ({ params }) => json(200, publicToken(await locations.revokeToken(params.id))),
    }),
  ];
}
