/** /api/devices: list, assign, read, status, unassign, queue a command (SERVICE-SPEC "Endpoints"). */
import { Type } from 'typebox';
import type { Caller } from '../auth/authenticate.js';
import type { Clock } from '../clock.js';
import type { CommandQueue } from '../devices/command-queue.js';
import type { CommandLifecycle } from '../devices/lifecycle.js';
import { protocolVersionSchema } from '../../protocols/index.js';
import type { EventBus } from '../events/bus.js';
import { BioGateError, invalid } from '../errors.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { Device, Location } from '../store/ports/index.js';
import type { SyncQueue } from '../sync/queue.js';
import type { TerminalState } from '../sync/terminal-state.js';
import { SyncStateSchema } from '../views/device-sync.js';
import { CommandBody } from '../commands/schemas.js';
import { CommandView } from '../views/command.js';
import { DeviceStatusView, deviceStatusView } from '../views/device-status.js';
import { DeviceView, deviceView, type AreaNames, type DeviceAudience } from '../views/device.js';
import { queueFromRequest } from './commands.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { CIDR_PATTERN, EmptyObject, PageQuery, pageOf, pageWrapper } from './schemas.js';
import { canonicalCidr, MAX_ALLOWED_NETWORKS } from '../devices/networks.js';
import { hashCommKey } from '../devices/trust.js';
import { assignDevice, resetRegistration, unassignDevice } from '../devices/assignment.js';
import { patchDevice } from '../users/areas.js';

export interface DevicesDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly sync: SyncQueue;
  readonly commands: CommandQueue;
  readonly lifecycle: CommandLifecycle;
  /** Assignment changes are info lines for the operator. */
  readonly log: Logger;
  readonly onlineThresholdS: number;
  /** This node's fresher view of last_seen (the store's is written behind). */
  readonly liveLastSeen?: (sn: string) => string | undefined;
  /** Online on another node, as the cluster announced it (devices/presence.ts): the store's last_seen lags. */
  readonly onlineElsewhere?: (sn: string) => boolean;
  /** BIOGATE_REQUIRE_COMM_KEY: every location refuses devices without a comm key. */
  readonly requireCommKey?: boolean;
  /** BIOGATE_DEVICE_CLAIM: `admin`, a location token assigns only serials once assigned to its location. */
  readonly claim?: 'open' | 'admin';
  /** BIOGATE_QUOTA_DEVICES. */
  readonly quotaDevices?: number;
  /** Roster sync state of each device (DeviceResponse.sync, ?sync_state=). */
  readonly terminals: TerminalState;
}

/** Devices read for a sync_state filter (the state is derived, so the filter runs over the location's devices). */
const SYNC_FILTER_MAX = 100_000;

/** Validated, canonical, de-duplicated CIDRs; every bad entry is named. */
function allowedNetworks(list: readonly string[]): string[] {
  const problems = list.flatMap((text, i) =>
    canonicalCidr(text) === undefined
      ? [
          {
            loc: ['body', 'allowed_networks', i],
            msg: `"${text.slice(0, 60)}" is not an IPv4 or IPv6 CIDR (e.g. 192.0.2.0/24, 2001:db8::/32)`,
            type: 'format',
          },
        ]
      : [],
  );
  if (problems.length > 0) throw new BioGateError('VALIDATION_FAILED', problems);
  return [...new Set(list.map((text) => canonicalCidr(text) as string))];
}

/** Serial numbers as terminals print them: letters, digits, `-`, `_`. */
export const Serial = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_-]+$',
  description: 'Device serial number (letters, digits, - and _)',
});
const SerialParam = Type.Object({ device_serial: Serial });
const DeviceName = Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\t\\r\\n\\u0000]+$' });
/** An area of the location (GET /api/areas); null = none: the terminal holds every active user [issue #33]. */
const AreaId = Type.Union([Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), Type.Null()], {
  description: 'The area the terminal is in (GET /api/areas): it holds only the users listing it; null = every active user',
});

/** [PUSH-v3 §5] the registry code and session id log in as the terminal: only a full-scope token sees them. */
const audienceOf = (caller: { token: { scope: string } }): DeviceAudience => (caller.token.scope === 'full' ? 'full' : 'masked');

export function deviceRoutes(deps: DevicesDeps): ApiRoute[] {
  const { store, clock } = deps;
  const tags = ['devices'];
  const fresh = (d: Device): Device => {
    const live = deps.liveLastSeen?.(d.serial_number);
    return live && (!d.last_seen || live > d.last_seen) ? { ...d, last_seen: live } : d;
  };
  /** A device's view as every node shows it: online on another node counts (presence everywhere). */
  const viewOf = (d: Device, location: Location, now: Date, audience: DeviceAudience, areas: AreaNames) => {
    const view = deviceView(fresh(d), location, now, deps.onlineThresholdS, audience, areas);
    return !view.is_active && deps.onlineElsewhere?.(d.serial_number) ? { ...view, is_active: true } : view;
  };
  const find = async (locationId: number, sn: string) => {
    const d = await store.devices.get(locationId, sn);
    if (!d) throw new BioGateError('DEVICE_NOT_FOUND', `Device ${sn} not found`);
    return fresh(d);
  };
  /** Both registration resets: forget the registry code, session and token (full scope), and show the terminal. */
  const forgetRegistration =
    (action: string) =>
    async ({ caller, params }: { caller: Caller; params: { device_serial: string } }) => {
      if (caller.token.scope !== 'full') throw new BioGateError('SCOPE_DENIED', `${action} needs a token with the full scope`);
      const device = await resetRegistration(deps, caller.location, params.device_serial, clock.now());
      if (!device) throw new BioGateError('DEVICE_NOT_FOUND', `Device ${params.device_serial} not found`);
      return json(200, {
        ...viewOf(device, caller.location, clock.now(), 'full', await store.areas.names(caller.location.id)),
        sync: await deps.terminals.view(device),
      });
    };
  return [
    defineRoute({
      method: 'GET',
      path: '/api/devices',
      auth: 'location',
      query: Type.Object({
        ...PageQuery,
        search: Type.Optional(Type.String({ maxLength: 100 })),
        is_active: Type.Optional(Type.Boolean()),
        sync_state: Type.Optional(SyncStateSchema),
      }),
      doc: {
        summary: 'Paginated device list (with each roster sync state; sync_state filters)',
        tags,
        responses: { 200: pageOf(DeviceView) },
      },
      handler: async ({ caller, query }) => {
        const now = clock.now();
        const since = new Date(now.getTime() - deps.onlineThresholdS * 1000).toISOString();
        const filter = {
          ...(query.search ? { search: query.search } : {}),
          ...(query.is_active !== undefined ? { online: { value: query.is_active, since } } : {}),
        };
        const offset = (query.page - 1) * query.limit;
        let items: readonly Device[];
        let total: number;
        let syncOf: Map<string, unknown>;
        if (query.sync_state === undefined) {
          const page = await store.devices.list(caller.location.id, filter, { offset, limit: query.limit });
          ({ items, total } = page);
          syncOf = await deps.terminals.views(items);
        } else {
          const all = (await store.devices.list(caller.location.id, filter, { offset: 0, limit: SYNC_FILTER_MAX })).items;
          syncOf = await deps.terminals.views(all);
          const matching = all.filter((d) => (syncOf.get(d.serial_number) as { state: string } | undefined)?.state === query.sync_state);
          total = matching.length;
          items = matching.slice(offset, offset + query.limit);
        }
        const areas = await store.areas.names(caller.location.id);
        return json(
          200,
          pageWrapper(
            items.map((d) => ({ ...viewOf(d, caller.location, now, audienceOf(caller), areas), sync: syncOf.get(d.serial_number) })),
            total,
            query.page,
            query.limit,
          ),
        );
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/devices',
      auth: 'location',
      body: Type.Object({
        sn: Serial,
        name: Type.Optional(Type.Union([DeviceName, Type.Null()])),
        version: Type.Optional(
          Type.Union([protocolVersionSchema(), Type.Null()], {
            description: 'Pin the protocol dialect (2.0.0 or 3.0.0) instead of detecting it',
          }),
        ),
        comm_key: Type.Optional(
          Type.Union([
            Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9]+$', description: 'Device comm key (digits); write-only' }),
            Type.Null(),
          ]),
        ),
        area_id: Type.Optional(AreaId),
        allowed_networks: Type.Optional(
          Type.Union([
            Type.Array(
              Type.String({ minLength: 1, maxLength: 64, pattern: CIDR_PATTERN, description: 'An IPv4 or IPv6 address or CIDR' }),
              {
                maxItems: MAX_ALLOWED_NETWORKS,
                description:
                  "IPv4/IPv6 CIDRs the device's requests must come from (socket address); other addresses get 403. null or [] = any address",
              },
            ),
            Type.Null(),
          ]),
        ),
      }),
      doc: {
        summary: 'Assign a device to the location and start user synchronisation',
        description:
          '201 when newly assigned, 200 when it already was (idempotent); 403 when it belongs to another location. ' +
          'Absent fields keep their stored value. 422 without a comm key when the location has `require_comm_key` or BIOGATE_REQUIRE_COMM_KEY is on. ' +
          '`comm_key` and `allowed_networks` decide how far the terminal is trusted: a request carrying either needs the full scope (403 SCOPE_DENIED). ' +
          'With BIOGATE_DEVICE_CLAIM=admin a serial never assigned to this location is refused (403 DEVICE_CLAIM_ADMIN): the admin assigns it. ' +
          'A device new to the location past BIOGATE_QUOTA_DEVICES gets 429 QUOTA_EXCEEDED.',
        tags,
        responses: { 201: DeviceView, 200: DeviceView },
        errors: ['DEVICE_OTHER_LOCATION', 'DEVICE_CLAIM_ADMIN', 'VALIDATION_FAILED', 'SCOPE_DENIED', 'QUOTA_EXCEEDED'],
      },
      handler: async ({ caller, body }) => {
        // [API-CONTRACT §6] the comm key and the allow-list are the terminal's trust: removing either
        // downgrades it, so (like reset-registration) they change only with the full scope.
        if ((body.comm_key !== undefined || body.allowed_networks !== undefined) && caller.token.scope !== 'full') {
          throw new BioGateError('SCOPE_DENIED', 'comm_key and allowed_networks change only with a token of the full scope');
        }
        const networks =
          body.allowed_networks === undefined || body.allowed_networks === null
            ? body.allowed_networks
            : allowedNetworks(body.allowed_networks);
        if (typeof body.area_id === 'number' && (await store.areas.existing(caller.location.id, [body.area_id])).length === 0)
          throw invalid(['body', 'area_id'], `no area ${body.area_id} in this location`, 'value_error');
        const input = {
          name: body.name ?? null,
          ...(body.area_id !== undefined ? { area_id: body.area_id } : {}),
          ...(body.version !== undefined ? { version_override: body.version } : {}),
          ...(body.comm_key !== undefined ? { comm_key_hash: body.comm_key === null ? null : hashCommKey(body.comm_key) } : {}),
          ...(networks !== undefined ? { allowed_networks: networks === null || networks.length === 0 ? null : networks } : {}),
        };
        const now = clock.now();
        const { outcome, device } = await assignDevice(
          { ...deps, requireCommKey: deps.requireCommKey === true },
          caller.location,
          body.sn,
          input,
          now,
          (rule) => invalid(['body', 'comm_key'], `a comm key is required: ${rule}`, 'missing'),
        );
        return json(outcome === 'assigned' ? 201 : 200, {
          ...viewOf(device, caller.location, now, audienceOf(caller), await store.areas.names(caller.location.id)),
          sync: await deps.terminals.view(device),
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/devices/{device_serial}',
      auth: 'location',
      params: SerialParam,
      doc: { summary: 'One device', tags, responses: { 200: DeviceView }, errors: ['DEVICE_NOT_FOUND'] },
      handler: async ({ caller, params }) => {
        const device = await find(caller.location.id, params.device_serial);
        return json(200, {
          ...viewOf(device, caller.location, clock.now(), audienceOf(caller), await store.areas.names(caller.location.id)),
          sync: await deps.terminals.view(device),
        });
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/devices/{device_serial}',
      auth: 'location',
      params: SerialParam,
      body: Type.Object({ name: Type.Optional(DeviceName), area_id: Type.Optional(AreaId) }, { additionalProperties: false }),
      doc: {
        summary: 'Rename a device or move it between areas (absent fields keep their value)',
        description:
          'A terminal moved into an area keeps only the users listing it; one moved out of every area (`area_id: null`) receives every active user. Exactly the difference is queued, deletions first.',
        tags,
        responses: { 200: DeviceView },
        errors: ['DEVICE_NOT_FOUND', 'VALIDATION_FAILED'],
      },
      handler: async ({ caller, params, body }) => {
        const device = fresh(await patchDevice(deps, caller.location, params.device_serial, body));
        const areas = await store.areas.names(caller.location.id);
        return json(200, {
          ...viewOf(device, caller.location, clock.now(), audienceOf(caller), areas),
          sync: await deps.terminals.view(device),
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/devices/{device_serial}/status',
      auth: 'location',
      params: SerialParam,
      doc: { summary: 'Connection status', tags, responses: { 200: DeviceStatusView }, errors: ['DEVICE_NOT_FOUND'] },
      handler: async ({ caller, params }) => {
        const status = deviceStatusView(await find(caller.location.id, params.device_serial), clock.now(), deps.onlineThresholdS);
        const elsewhere = !status.is_online && deps.onlineElsewhere?.(params.device_serial) === true;
        return json(200, elsewhere ? { ...status, is_online: true, status: 'online' } : status);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/devices/{device_serial}',
      auth: 'location',
      params: SerialParam,
      doc: {
        summary: 'Unassign a device (idempotent); its pending commands fail with "device unassigned"',
        tags,
        responses: { 200: EmptyObject },
      },
      handler: async ({ caller, params }) => {
        await unassignDevice(deps, caller.location, params.device_serial, clock.now());
        return json(200, {});
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/devices/{device_serial}/reset-registration',
      auth: 'location',
      params: SerialParam,
      bodyRequired: false,
      doc: {
        summary: 'Forget the registry code, session and token of a v3 terminal: its next registry request registers it again',
        description:
          'For a terminal that lost its registration (replaced, factory reset) and is refused with 401 (registration in the ZKTeco Security PUSH Communication Protocol). Needs the full scope.',
        tags,
        responses: { 200: DeviceView },
        errors: ['DEVICE_NOT_FOUND', 'SCOPE_DENIED'],
      },
      handler: forgetRegistration('reset-registration'),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/devices/{device_serial}/accept-registration',
      auth: 'location',
      params: SerialParam,
      bodyRequired: false,
      doc: {
        summary: 'Allow a terminal first seen as PUSH v2 (or over a registry request refused with 406) to register as PUSH v3',
        description:
          'A registry request is refused with 406 for a terminal whose first contact was not Security PUSH, so that nobody who knows its serial ' +
          'switches it to v3 and binds it to their token (registration in the ZKTeco Security PUSH Communication Protocol). Accepting forgets any registry code, session and token binding; ' +
          "the terminal's next registry request registers it. Needs the full scope.",
        tags,
        responses: { 200: DeviceView },
        errors: ['DEVICE_NOT_FOUND', 'SCOPE_DENIED'],
      },
      handler: forgetRegistration('accept-registration'),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/devices/{device_serial}/command',
      auth: 'location',
      params: SerialParam,
      body: CommandBody,
      doc: {
        summary: 'Queue a preset command for this device',
        tags,
        responses: { 201: CommandView },
        errors: ['DEVICE_NOT_FOUND', 'COMMAND_NOT_SUPPORTED', 'MAILBOX_FULL', 'SCOPE_DENIED', 'IDEMPOTENCY_KEY_REUSED'],
      },
      handler: async ({ caller, params, body, req }) => queueFromRequest(deps.commands, caller, params.device_serial, body, req),
    }),
  ];
}
