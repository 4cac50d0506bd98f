/** A terminal's roster sync state as every door shows it (issue #31: DeviceResponse.sync, GET /api/devices/{sn}/sync, GET /api/sync). */
import { Type, type Static } from 'typebox';
import type { OwedPin, TerminalSyncState } from '../store/ports/index.js';
import { IsoDateTime, Nullable } from './common.js';

export const SYNC_STATES = ['in_sync', 'syncing', 'drift', 'unknown'] as const satisfies readonly TerminalSyncState[];

export const SyncStateSchema = Type.Union(
  [Type.Literal('in_sync'), Type.Literal('syncing'), Type.Literal('drift'), Type.Literal('unknown')],
  {
    description:
      'in_sync: nothing owed; syncing: lines owed (sent or waiting); drift: the terminal refused a line (retried with back-off); unknown: not assigned, or never connected',
  },
);

export const SyncView = Type.Object(
  {
    state: SyncStateSchema,
    owed: Type.Integer({ description: 'Sync lines owed to the terminal (pending or sent, unconfirmed)' }),
    revocations_owed: Type.Integer({ description: 'Of owed: deletes (removed, deactivated, access window ended); never expire' }),
    refused: Type.Integer({ description: 'Owed PINs whose last line the terminal refused (negative return code)' }),
    last_confirmed_at: Nullable(IsoDateTime),
    last_audit_at: Nullable(IsoDateTime),
    reason: Nullable(Type.String({ description: 'Why the terminal is not in_sync (the refusal code and text in drift)' })),
  },
  { title: 'DeviceSync' },
);
export type SyncViewData = Static<typeof SyncView>;

export const OwedPinView = Type.Object(
  {
    pin: Type.Integer(),
    since: IsoDateTime,
    code: Type.Optional(Type.Integer({ description: 'Return code of the refusal, when the terminal refused it' })),
  },
  { title: 'OwedPin' },
);

export const SyncSummaryView = Type.Object(
  {
    devices: Type.Integer({ description: 'Devices of the location' }),
    in_sync: Type.Integer(),
    syncing: Type.Integer(),
    drift: Type.Integer(),
    unknown: Type.Integer(),
    revocations_owed: Type.Integer(),
    oldest_owed_at: Nullable(IsoDateTime),
  },
  { title: 'SyncSummary' },
);

export const owedPinView = (p: OwedPin) =>
  p.code === undefined ? { pin: p.pin, since: p.since } : { pin: p.pin, since: p.since, code: p.code };
