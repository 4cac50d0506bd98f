/**
 * What backing up, restoring and checking a store file give back, and why they refuse: shared by
 * ./maintenance.ts (by store URL) and the SQLite code behind it (./sqlite/backup.ts).
 */

/** Why a backup or restore cannot go on, in words for the operator (the CLI exits 1 with it). */
export class StoreFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreFileError';
  }
}

export interface SqliteBackupResult {
  readonly path: string;
  readonly bytes: number;
  readonly pages: number;
  /** Highest migration applied in the copy. */
  readonly schemaVersion: number;
  /** Photo files copied beside it (`<file>.photos/`). */
  readonly photos: number;
}

export interface SqliteSchemaStatus {
  /** Highest migration applied in the file; 0 for a file BioGate never opened. */
  readonly version: number;
  /** Highest migration this BioGate knows. */
  readonly latest: number;
  /** `ok`, or what `PRAGMA quick_check` found. */
  readonly check: string;
}

export interface SqliteRestoreResult {
  readonly path: string;
  readonly schemaVersion: number;
  /** Where the replaced store was moved (kept, never deleted); undefined when there was none. */
  readonly previous: string | undefined;
}
