/**
 * Versioned schema migrations, applied in order at startup inside one transaction each. Never edit
 * a released migration: add the next one (at the end of migration-list-4.ts).
 */
import { MIGRATIONS_1_TO_8 } from './migration-list-1.js';
import { MIGRATIONS_9_TO_16 } from './migration-list-2.js';
import { MIGRATIONS_FROM_17 } from './migration-list-3.js';
import { MIGRATIONS_FROM_45 } from './migration-list-4.js';

import type { Migration } from './migration.js';

export type { Migration } from './migration.js';

export const MIGRATIONS: readonly Migration[] = [...MIGRATIONS_1_TO_8, ...MIGRATIONS_9_TO_16, ...MIGRATIONS_FROM_17, ...MIGRATIONS_FROM_45];
