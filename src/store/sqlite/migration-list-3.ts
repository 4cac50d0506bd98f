/** Schema migrations 17 onwards (see migrations.ts). Never edit a released migration: add the next one here. */
import type { Migration } from './migration.js';

export const MIGRATIONS_FROM_17: readonly Migration[] = [
  {
    version: 20,
    name: 'feed outbox: rows carry the marker of the feed event they still owe (issue #32)',
    sql: `
ALTER TABLE attendance ADD COLUMN feed_event TEXT;
ALTER TABLE door_events ADD COLUMN feed_event TEXT;
CREATE INDEX attendance_feed_event ON attendance(feed_event) WHERE feed_event IS NOT NULL;
CREATE INDEX door_events_feed_event ON door_events(feed_event) WHERE feed_event IS NOT NULL;
`,
  },
];
