/** /api/users: list, upsert, read, delete, import, clear (SERVICE-SPEC "Endpoints"). */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Type } from 'typebox';
import type { Clock } from '../clock.js';
import { BioGateError, type ValidationIssue } from '../errors.js';
import type { EventBus } from '../devices/event-bus.js';
import type { Location, Store, User, UserFields } from '../store/types.js';
import { createSyncOutbox, type SyncOutbox } from '../sync/outbox.js';
import type { SyncCounts, SyncQueue } from '../sync/queue.js';
import { createLogger, type Logger } from '../log.js';
import { compiled, issuesFrom } from '../validation.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { EmptyObject, PageQuery, pageOf, pageWrapper } from './schemas.js';
import { checkUserFields, toUserFields } from './user-input.js';
import { ImportItem, IncludeQuery, Pin, Privilege, UserView, UserWrite } from './user-schemas.js';
import { userViews } from './user-views.js';

export const IMPORT_MAX_ITEMS = 10_000;

export interface UsersDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly sync: SyncQueue;
  readonly bus: EventBus;
  /**
   * The sync outbox processor. Absent (the CLI import without a server), the outbox is drained in
   * the foreground before the import returns.
   */
  readonly outbox?: SyncOutbox;
  readonly log?: Logger;
}

const PinParam = Type.Object({ pin: Pin });
const ImportResult = Type.Object({
  message: Type.String(),
  processed_count: Type.Integer(),
  error_count: Type.Integer(),
  processed_users: Type.Array(UserView),
  errors: Type.Array(Type.Object({ user_data: Type.Unknown(), error: Type.String(), code: Type.String() })),
});
const ClearBody = Type.Object({ pins: Type.Optional(Type.Union([Type.Array(Pin, { maxItems: IMPORT_MAX_ITEMS }), Type.Null()])) });
const ClearResult = Type.Object({ message: Type.String(), users_deleted: Type.Integer(), devices_affected: Type.Integer(), commands_created: Type.Integer() });

/** What a write did to device access: sync the upserts, revoke the deactivations. */
export interface WriteEffect {
  readonly upserted: number[];
  readonly revoked: number[];
}

export function effectOf(before: Map<number, User>, after: readonly { user: User; changed: boolean }[]): WriteEffect {
  const upserted: number[] = [];
  const revoked: number[] = [];
  for (const { user, changed } of after) {
    if (!changed) continue;
    if (user.is_active) upserted.push(user.pin);
    else if (before.get(user.pin)?.is_active) revoked.push(user.pin);
  }
  return { upserted, revoked };
}

/** Tells listeners what a write changed (its sync ops come from the outbox). */
export function announce(deps: UsersDeps, locationId: number, effect: WriteEffect): void {
  if (effect.upserted.length > 0) deps.bus.emit('user.changed', { location_id: locationId, pins: effect.upserted, change: 'upserted' });
  if (effect.revoked.length > 0) deps.bus.emit('user.changed', { location_id: locationId, pins: effect.revoked, change: 'deactivated' });
}

const NOTHING: SyncCounts = { devices: 0, commands: 0 };

/**
 * The request's happy path of the outbox: queue what these users owe now (a retried write that
 * changed nothing still finishes an earlier write's sync). The write is committed with its outbox
 * entry either way, so a store failure here defers the ops to the recovery sweep instead of
 * failing a request whose change already happened.
 */
export async function flushOutbox(deps: UsersDeps, locationId: number, pins: readonly number[]): Promise<SyncCounts> {
  const outbox = deps.outbox ?? createSyncOutbox({ store: deps.store, sync: deps.sync, clock: deps.clock, log: deps.log ?? silent });
  try {
    return await outbox.flush(locationId, pins);
  } catch (err) {
    deps.log?.error({ err, location: locationId, users: pins.length }, 'sync ops deferred to the outbox sweep');
    return NOTHING;
  }
}

const silent: Logger = createLogger({ level: 'silent' });

export interface ImportOutcome {
  readonly processed: User[];
  readonly errors: { user_data: unknown; error: string; code: string }[];
}

/**
 * Validates each item on its own and upserts the good ones (API import and CLI import share this).
 * `dryRun` (the CLI's `--dry-run`) runs every check, against the users already stored, and writes nothing.
 */
export async function importUsers(deps: UsersDeps, location: Location, items: readonly unknown[], onProgress?: (done: number) => void, options: { dryRun?: boolean } = {}): Promise<ImportOutcome> {
  const validator = compiled(ImportItem);
  // Kept with the item's index: errors are reported in input order, whichever check found them.
  const errors: (ImportOutcome['errors'][number] & { index: number })[] = [];
  const valid: { index: number; item: Record<string, unknown>; pin: number }[] = [];
  items.forEach((item, index) => {
    const issues = issuesFrom(validator, item, [index]);
    if (issues.length > 0) return errors.push({ index, user_data: item, error: describeIssues(issues), code: 'VALIDATION_FAILED' });
    const record = item as Record<string, unknown>;
    const pin = typeof record['pin'] === 'string' ? Number(record['pin'].trim()) : (record['pin'] as number);
    if (pin < 1) return errors.push({ index, user_data: item, error: 'pin: must be between 1 and 99999999', code: 'VALIDATION_FAILED' });
    valid.push({ index, item: record, pin });
  });
  const processed: User[] = [];
  const CHUNK = 500;
  for (let i = 0; i < valid.length; i += CHUNK) {
    const chunk = valid.slice(i, i + CHUNK);
    const existing = new Map((await deps.store.users.getMany(location.id, [...new Set(chunk.map((c) => c.pin))])).map((u) => [u.pin, u]));
    const writes: { pin: number; fields: UserFields }[] = [];
    // A PIN written earlier in the batch exists by the time a later item is written, with the
    // validity window that item left (the later item's order check runs against it).
    const windows = new Map<number, { start_time: string | null; end_time: string | null }>();
    for (const c of chunk) {
      try {
        const seen = windows.get(c.pin) ?? existing.get(c.pin);
        const fields = toUserFields({ ...c.item, pin: c.pin }, seen, []);
        writes.push({ pin: c.pin, fields });
        windows.set(c.pin, {
          start_time: fields.start_time !== undefined ? fields.start_time : (seen?.start_time ?? null),
          end_time: fields.end_time !== undefined ? fields.end_time : (seen?.end_time ?? null),
        });
      } catch (err) {
        const detail = err instanceof BioGateError ? err.detail : String(err);
        errors.push({ index: c.index, user_data: c.item, error: typeof detail === 'string' ? detail : describeIssues(detail), code: err instanceof BioGateError ? err.code : 'INTERNAL' });
      }
    }
    if (!options.dryRun) {
      const results = await deps.store.users.upsertMany(location.id, writes, deps.clock.now().toISOString());
      announce(deps, location.id, effectOf(existing, results));
      processed.push(...results.map((r) => r.user));
    }
    onProgress?.(Math.min(items.length, i + chunk.length + errors.length));
    // Other requests run between chunks (an embedded store answers without leaving the event loop).
    await yieldToLoop();
  }
  // The device fan-out (up to 10,000 users × every device) is the outbox's: in the background
  // when a server runs it, else (CLI) before returning.
  if (!options.dryRun) {
    if (deps.outbox) deps.outbox.kick();
    else await createSyncOutbox({ store: deps.store, sync: deps.sync, clock: deps.clock, log: deps.log ?? silent }).drain();
  }
  errors.sort((x, y) => x.index - y.index);
  deps.log?.info({ location_id: location.id, items: items.length, written: processed.length, errors: errors.length, dry_run: options.dryRun === true }, 'users imported');
  return { processed, errors: errors.map(({ index: _index, ...e }) => e) };
}

function describeIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((i) => `${i.loc.filter((p) => typeof p === 'string').join('.') || 'item'}: ${i.msg}`).join('; ');
}

export function userRoutes(deps: UsersDeps): ApiRoute[] {
  const { store, clock } = deps;
  const tags = ['users'];
  const notFound = (pin: number) => new BioGateError('USER_NOT_FOUND', `User ${pin} not found`);
  return [
    defineRoute({
      method: 'GET', path: '/api/users', auth: 'location',
      query: Type.Object({ ...PageQuery, search: Type.Optional(Type.String({ maxLength: 100 })), privilege: Type.Optional(Privilege), is_active: Type.Optional(Type.Boolean()), include: IncludeQuery }),
      doc: { summary: 'Paginated user list', tags, responses: { 200: pageOf(UserView) } },
      handler: async ({ caller, query }) => {
        const filter = {
          ...(query.search ? { search: query.search } : {}),
          ...(query.privilege !== undefined ? { privilege: query.privilege } : {}),
          ...(query.is_active !== undefined ? { is_active: query.is_active } : {}),
        };
        const page = await store.users.list(caller.location.id, filter, { offset: (query.page - 1) * query.limit, limit: query.limit });
        const views = await userViews(store, caller.location, page.items, query.include === 'biometrics');
        return json(200, pageWrapper(views, page.total, query.page, query.limit));
      },
    }),
    defineRoute({
      // bodyMode 'raw': the handler validates, so schema problems and the rules that need the stored
      // user (first_name for a new PIN, the validity window) come back in one 422 [API-CONTRACT §3].
      method: 'POST', path: '/api/users', auth: 'location', body: UserWrite, bodyMode: 'raw',
      doc: { summary: 'Create or update a user by PIN; queues device sync', description: '201 when the PIN was new, 200 when an existing user was updated.', tags, responses: { 201: UserView, 200: UserView } },
      handler: async ({ caller, body }) => {
        const raw = body as unknown as Record<string, unknown>;
        const issues = issuesFrom(compiled(UserWrite), raw, ['body']);
        const failed = new Set(issues.map((i) => i.loc[1]));
        const pin = failed.has('pin') ? undefined : (raw['pin'] as number);
        const before = pin === undefined ? undefined : await store.users.get(caller.location.id, pin);
        const valid = Object.fromEntries(Object.entries(raw).filter(([k]) => !failed.has(k)));
        const checked = checkUserFields(valid, pin === undefined ? 'unknown' : before, ['body']);
        // A first_name the schema rejected is reported once, by the schema.
        issues.push(...checked.issues.filter((i) => !failed.has(i.loc[1])));
        if (issues.length > 0 || pin === undefined) throw new BioGateError('VALIDATION_FAILED', issues);
        const result = await store.users.upsert(caller.location.id, pin, checked.fields, clock.now().toISOString());
        await flushOutbox(deps, caller.location.id, [pin]);
        announce(deps, caller.location.id, effectOf(new Map(before ? [[before.pin, before]] : []), [result]));
        const [view] = await userViews(store, caller.location, [result.user], false);
        return json(result.created ? 201 : 200, view);
      },
    }),
    defineRoute({
      method: 'POST', path: '/api/users/import', auth: 'location', body: Type.Array(ImportItem), bodyMode: 'raw',
      doc: { summary: 'Bulk import or update (up to 10,000 items; per-item errors)', tags, responses: { 200: ImportResult }, errors: ['PAYLOAD_TOO_LARGE'] },
      handler: async ({ caller, body }) => {
        // bodyMode 'raw': items are validated one by one and failures reported per item.
        const raw = body as unknown[];
        if (raw.length > IMPORT_MAX_ITEMS) throw new BioGateError('PAYLOAD_TOO_LARGE', `At most ${IMPORT_MAX_ITEMS} users per import; got ${raw.length}`);
        const { processed, errors } = await importUsers(deps, caller.location, raw);
        return json(200, {
          message: `Processed ${processed.length} users, ${errors.length} errors`,
          processed_count: processed.length,
          error_count: errors.length,
          processed_users: await userViews(store, caller.location, processed, false),
          errors,
        });
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/api/users/clear', auth: 'location', body: ClearBody, bodyRequired: false,
      doc: { summary: 'Clear (deactivate) some or all users; queues delete commands', tags, responses: { 200: ClearResult } },
      handler: async ({ caller, body }) => {
        const pins = body?.pins ?? null;
        const cleared = await store.users.deactivate(caller.location.id, pins, clock.now().toISOString());
        const cleared_pins = cleared.map((u) => u.pin);
        const flushed = await flushOutbox(deps, caller.location.id, cleared_pins);
        const counts = flushed.devices > 0 ? flushed : { ...flushed, devices: (await store.devices.listAssigned(caller.location.id)).length };
        if (cleared_pins.length > 0) deps.bus.emit('user.changed', { location_id: caller.location.id, pins: cleared_pins, change: 'deactivated' });
        return json(200, {
          message: `Cleared ${cleared.length} users; ${counts.commands} delete commands queued for ${counts.devices} devices`,
          users_deleted: cleared.length,
          devices_affected: counts.devices,
          commands_created: counts.commands,
        });
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/users/{pin}', auth: 'location', params: PinParam, query: Type.Object({ include: IncludeQuery }),
      doc: { summary: 'One user', tags, responses: { 200: UserView }, errors: ['USER_NOT_FOUND'] },
      handler: async ({ caller, params, query }) => {
        const user = await store.users.get(caller.location.id, params.pin);
        if (!user) throw notFound(params.pin);
        const [view] = await userViews(store, caller.location, [user], query.include === 'biometrics');
        return json(200, view);
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/api/users/{pin}', auth: 'location', params: PinParam,
      doc: { summary: 'Delete a user; queues delete commands to the devices', tags, responses: { 200: EmptyObject }, errors: ['USER_NOT_FOUND'] },
      handler: async ({ caller, params }) => {
        const user = await store.users.delete(caller.location.id, params.pin, clock.now().toISOString());
        // A retried DELETE whose delete was committed but whose ops were not queued converges: the
        // outbox entry outlives the user until they are.
        if (!user && (await store.syncOutbox.get(caller.location.id, [params.pin])).length === 0) throw notFound(params.pin);
        await flushOutbox(deps, caller.location.id, [params.pin]);
        if (user) deps.bus.emit('user.changed', { location_id: caller.location.id, pins: [params.pin], change: 'deleted' });
        return json(200, {});
      },
    }),
  ];
}
