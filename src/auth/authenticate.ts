/** Resolves a bearer token to its location and scope, or throws 401/403 [API-CONTRACT §3–4]. */
import { BioGateError } from '../errors.js';
import type { Store } from '../store/types.js';
import type { Location, Token } from '../store/ports/index.js';
import { bearer, hashToken, looksLikeToken, secretsEqual } from './tokens.js';

export interface Caller {
  readonly location: Location;
  readonly token: Token;
}

const unauthorized = (detail: string) =>
  new BioGateError('UNAUTHORIZED', detail, { headers: { 'WWW-Authenticate': 'Bearer realm="biogate"' } });

export async function authenticate(store: Store, authorization: string | undefined, now: Date): Promise<Caller> {
  const hash = tokenHashOf(authorization);
  return accepted(await lookUp(store, hash), now);
}

/** The SHA-256 of the bearer token of an Authorization header; 401 when there is none or it cannot be one. */
export function tokenHashOf(authorization: string | undefined): string {
  const token = bearer(authorization);
  if (!token) throw unauthorized(authorization ? 'Authorization must use the Bearer scheme' : 'Missing bearer token');
  if (!looksLikeToken(token)) throw unauthorized('Invalid token');
  return hashToken(token);
}

/** A token as stored, with its location (none for a revoked token: not read). */
export interface Found {
  readonly token: Token;
  readonly location: Location | undefined;
}

/** The token of `hash` and its location, as stored; 401 when unknown. */
export async function lookUp(store: Store, hash: string): Promise<Found> {
  const token = await store.tokens.findByHash(hash);
  // The index lookup finds the row; the comparison that decides is constant-time.
  if (!token || !secretsEqual(token.hash, hash)) throw unauthorized('Invalid token');
  return { token, location: token.revoked_at === null ? await store.locations.get(token.location_id) : undefined };
}

/** The checks that depend on the moment and on what may change: revoked, expired, location gone or disabled. */
export function accepted({ token, location }: Found, now: Date): Caller {
  if (token.revoked_at !== null) throw unauthorized('Token revoked');
  if (token.expires_at !== null && token.expires_at <= now.toISOString()) throw unauthorized('Token expired');
  if (!location) throw unauthorized('Invalid token');
  if (!location.is_active) throw new BioGateError('LOCATION_DISABLED', `Location ${location.id} is disabled`);
  return { token, location };
}

/** `read` tokens may only read; `operator` tokens may not queue risky presets (checked by the command API). */
export function requireWrite(caller: Caller): void {
  if (caller.token.scope === 'read') throw new BioGateError('SCOPE_DENIED', 'This token has the read scope: only GET is allowed');
}

/** What only a `full` token may do (manual punches, biometric templates): 403 SCOPE_DENIED naming it otherwise. */
export function requireFull(caller: Caller, what: string): void {
  if (caller.token.scope !== 'full') throw new BioGateError('SCOPE_DENIED', `${what} needs a token with the full scope`);
}
