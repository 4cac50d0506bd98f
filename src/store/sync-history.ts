/**
 * Which users a device holds from other locations, from its history of successful sync ops
 * (API-CONTRACT §6: on assignment, users BioGate synced to that device for another location are
 * deleted from it first). Shared by the adapters; pure.
 */
export interface SyncHistoryRow {
  readonly location_id: number | null;
  readonly pin: unknown;
  readonly op: unknown;
}

/** Rows in delivery order (id ascending); the last op per PIN decides whether the device holds it. */
export function lastSyncedElsewhere(rows: readonly SyncHistoryRow[], locationId: number): number[] {
  const last = new Map<number, SyncHistoryRow>();
  for (const r of rows) if (typeof r.pin === 'number' && Number.isSafeInteger(r.pin)) last.set(r.pin, r);
  return [...last]
    .filter(([, r]) => r.op !== 'user.delete' && r.location_id !== locationId)
    .map(([pin]) => pin)
    .sort((a, b) => a - b);
}
