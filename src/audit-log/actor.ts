/**
 * Who is acting (issue #36 item 1). A door runs the work of one request inside `actingAs`; the audited store
 * (./store.ts) records the changes made inside it. Changes made outside any door's scope (sweeps, terminals,
 * timers that outlive their request) are not the work of an actor and are not recorded.
 *
 * Invariant: a scope records only while its door is running it (`open`); a timer or promise that a request
 * left behind inherits the scope but finds it closed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditActor, AuditEntry } from '../store/ports/index.js';

export interface ActingScope {
  readonly actor: AuditActor;
  /** Told of the entries of each change, after the change and its entries are committed (the feed's `audit.recorded`). */
  readonly announce: ((entries: readonly AuditEntry[]) => void) | undefined;
  open: boolean;
}

const scopes = new AsyncLocalStorage<ActingScope>();

export const SYSTEM: AuditActor = { kind: 'system' };

/** Runs `fn` as `actor`: what it changes through the audited store is recorded in its name. */
export async function actingAs<T>(actor: AuditActor, announce: ActingScope['announce'], fn: () => Promise<T> | T): Promise<T> {
  const scope: ActingScope = { actor, announce, open: true };
  try {
    return await scopes.run(scope, fn);
  } finally {
    scope.open = false;
  }
}

/** The scope acting now, if its door is still running it. */
export function actingScope(): ActingScope | undefined {
  const scope = scopes.getStore();
  return scope?.open ? scope : undefined;
}

/** An actor as stored: the optional fields only when known (a label of null is left out). */
export function actor(
  kind: AuditActor['kind'],
  fields: { token_id?: number; label?: string | null; address?: string | null } = {},
): AuditActor {
  return {
    kind,
    ...(fields.token_id !== undefined ? { token_id: fields.token_id } : {}),
    ...(fields.label ? { label: fields.label } : {}),
    ...(fields.address ? { address: fields.address } : {}),
  };
}
