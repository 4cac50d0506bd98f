/** Roster sync state (issue #31): one terminal's detail, and the location's summary. */
import { Type } from 'typebox';
import { BioGateError } from '../errors.js';
import type { Store } from '../store/types.js';
import type { Audit } from '../sync/audit.js';
import type { TerminalState } from '../sync/terminal-state.js';
import { commandView, CommandView } from '../views/command.js';
import { OwedPinView, SyncSummaryView, SyncView } from '../views/device-sync.js';
import { Serial } from './devices.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { PageQuery, pageOf, pageWrapper } from './schemas.js';

export interface SyncRoutesDeps {
  readonly store: Store;
  readonly terminals: TerminalState;
  readonly audit: Pick<Audit, 'request'>;
}

const PinPage = pageOf(OwedPinView);

/**
 * The DeviceResponse.sync object plus the paged PIN lists. `refused` is the list here: its `total` is
 * the count the summary object calls `refused`.
 */
const { refused: _count, ...stateFields } = SyncView.properties;
const SyncDetailView = Type.Object(
  {
    ...stateFields,
    missing: PinPage,
    extra: PinPage,
    refused: PinPage,
  },
  { title: 'DeviceSyncDetail' },
);

export function syncRoutes(deps: SyncRoutesDeps): ApiRoute[] {
  const { store, terminals } = deps;
  const tags = ['devices'];
  return [
    defineRoute({
      method: 'GET',
      path: '/api/devices/{device_serial}/sync',
      auth: 'location',
      params: Type.Object({ device_serial: Serial }),
      query: Type.Object(PageQuery),
      doc: {
        summary: "A terminal's roster sync state, with the owed PINs (paged: page and limit apply to each list)",
        description:
          '`missing`: owed upserts (users the terminal should hold, not confirmed); `extra`: owed revocations (users it should not hold, ' +
          'removal not confirmed); `refused`: owed PINs whose line the terminal refused, with the return code (its `total` is the count).',
        tags,
        responses: { 200: SyncDetailView },
        errors: ['DEVICE_NOT_FOUND'],
      },
      handler: async ({ caller, params, query }) => {
        const device = await store.devices.get(caller.location.id, params.device_serial);
        if (!device) throw new BioGateError('DEVICE_NOT_FOUND', `Device ${params.device_serial} not found`);
        const d = await terminals.detail(device, { offset: (query.page - 1) * query.limit, limit: query.limit });
        const page = <T>(p: { items: readonly T[]; total: number }) => pageWrapper(p.items, p.total, query.page, query.limit);
        const { missing, extra, refused_pins, ...state } = d;
        return json(200, { ...state, missing: page(missing), extra: page(extra), refused: page(refused_pins) });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/devices/{device_serial}/audit',
      auth: 'location',
      params: Type.Object({ device_serial: Serial }),
      doc: {
        summary: "Audit a terminal's roster now: read its user table and repair the difference",
        description:
          'Queues the query of the user table (`load-users`, origin `system`) and answers with it; when its answer arrives, users the ' +
          'terminal holds that the location does not are deleted from it and missing or stale ones are sent again (see `GET /api/devices/{sn}/sync`). ' +
          'An audit already outstanding is answered instead of starting a second.',
        tags,
        responses: { 202: CommandView },
        errors: ['DEVICE_NOT_FOUND', 'AUDIT_STARTING'],
      },
      handler: async ({ caller, params }) => {
        const device = await store.devices.get(caller.location.id, params.device_serial);
        if (!device) throw new BioGateError('DEVICE_NOT_FOUND', `Device ${params.device_serial} not found`);
        const command = await deps.audit.request(device);
        // Unassigned meanwhile.
        if (!command) throw new BioGateError('DEVICE_NOT_FOUND', `Device ${params.device_serial} not found`);
        return json(202, commandView(command, caller.location));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/sync',
      auth: 'location',
      doc: { summary: "The location's roster sync: terminals per state, revocations owed", tags, responses: { 200: SyncSummaryView } },
      handler: async ({ caller }) => json(200, await terminals.summary(await store.devices.listAssignedBrief(caller.location.id))),
    }),
  ];
}
