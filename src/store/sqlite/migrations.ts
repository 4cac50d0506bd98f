/**
 * Versioned schema migrations, applied in order at startup inside one transaction each. Never edit
 * a released migration: add the next one (at the end of migration-list-2.ts).
 */
import { MIGRATIONS_1_TO_8 } from './migration-list-1.js';
import { MIGRATIONS_FROM_9 } from './migration-list-2.js';

/** Schema migration: its version, a name recorded with it, and the SQL it runs. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [...MIGRATIONS_1_TO_8, ...MIGRATIONS_FROM_9];
