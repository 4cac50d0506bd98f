/** The store ports, one per file; the `Store` aggregate that holds them is src/store/types.ts. */
export type * from './records.js';
export type * from './locations.js';
export type * from './tokens.js';
export type * from './users.js';
export type * from './templates.js';
export type * from './devices.js';
export type * from './commands.js';
export type * from './attendance.js';
export type * from './door-events.js';
export type * from './device-records.js';
export type * from './sync-outbox.js';
export type * from './jobs.js';
export type * from './cluster.js';
export type * from './webhooks.js';
export { ATTEMPT_SUPERSEDED, SYNC_SUPERSEDED } from './commands.js';
export { oneLocation } from './cluster.js';
