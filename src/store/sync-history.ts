/**
 * Which users a device holds from other locations, from its history of delivered sync ops
 * (API-CONTRACT §6: on assignment, users BioGate synced to that device for another location are
 * deleted from it first). Shared by the adapters; pure.
 *
 * Delivered: confirmed (`success`) or handed to the terminal with its result still on the way (`sent`).
 * A sent line may have been applied, so a PIN counts as held unless its last delivered op is a
 * confirmed delete (issue #31 item 4: a terminal moved mid-sync keeps none of the old location's users).
 */
export interface SyncHistoryRow {
  readonly location_id: number | null;
  readonly pin: unknown;
  readonly op: unknown;
  readonly status: unknown;
}

/**
 * Rows in delivery order (id ascending); the last op per PIN decides whether the device holds it.
 * `ever`: every PIN another location's delivered op carried, whatever its last op (an audit's test
 * of whose a PIN the terminal holds is: a PIN re-enrolled at the keypad stays the other location's).
 */
export function lastSyncedElsewhere(rows: readonly SyncHistoryRow[], locationId: number, ever = false): number[] {
  if (ever) {
    const pins = new Set<number>();
    for (const r of rows)
      if (typeof r.pin === 'number' && Number.isSafeInteger(r.pin) && r.location_id !== null && r.location_id !== locationId)
        pins.add(r.pin);
    return [...pins].sort((a, b) => a - b);
  }
  const last = new Map<number, SyncHistoryRow>();
  for (const r of rows) if (typeof r.pin === 'number' && Number.isSafeInteger(r.pin)) last.set(r.pin, r);
  return [...last]
    .filter(([, r]) => !(r.op === 'user.delete' && r.status === 'success') && r.location_id !== locationId)
    .map(([pin]) => pin)
    .sort((a, b) => a - b);
}
