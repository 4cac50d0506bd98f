/** Schema migrations 17 onwards (see migrations.ts). Never edit a released migration: add the next one here. */
import type { Migration } from './migration.js';

export const MIGRATIONS_FROM_17: readonly Migration[] = [
  {
    version: 18,
    // A webhook lane paused for a slow or unreachable receiver says so (paused_until, last_error);
    // a re-queued delivery gets a new 24 h retry window from requeued_at.
    name: 'webhooks: paused_until and last_error per subscription, requeued_at per delivery (issue #32)',
    sql: `
ALTER TABLE webhooks ADD COLUMN paused_until TEXT;
ALTER TABLE webhooks ADD COLUMN last_error TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN requeued_at TEXT;
`,
  },
];
