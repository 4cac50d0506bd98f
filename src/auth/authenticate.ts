/** Resolves a bearer token to its location and scope, or throws 401/403 [API-CONTRACT §3–4]. */
import { BioGateError } from '../errors.js';
import type { Location, Store, Token } from '../store/types.js';
import { bearer, hashToken, looksLikeToken, secretsEqual } from './tokens.js';

export interface Caller {
  readonly location: Location;
  readonly token: Token;
}

const unauthorized = (detail: string) =>
  new BioGateError('UNAUTHORIZED', detail, { headers: { 'WWW-Authenticate': 'Bearer realm="biogate"' } });

export async function authenticate(store: Store, authorization: string | undefined, now: Date): Promise<Caller> {
  const token = bearer(authorization);
  if (!token) throw unauthorized(authorization ? 'Authorization must use the Bearer scheme' : 'Missing bearer token');
  if (!looksLikeToken(token)) throw unauthorized('Invalid token');
  const hash = hashToken(token);
  const record = await store.tokens.findByHash(hash);
  // The index lookup finds the row; the comparison that decides is constant-time.
  if (!record || !secretsEqual(record.hash, hash)) throw unauthorized('Invalid token');
  if (record.revoked_at !== null) throw unauthorized('Token revoked');
  if (record.expires_at !== null && record.expires_at <= now.toISOString()) throw unauthorized('Token expired');
  const location = await store.locations.get(record.location_id);
  if (!location) throw unauthorized('Invalid token');
  if (!location.is_active) throw new BioGateError('LOCATION_DISABLED', `Location ${location.id} is disabled`);
  return { location, token: record };
}

/** `read` tokens may only read; `operator` tokens may not queue risky presets (checked by the command API). */
export function requireWrite(caller: Caller): void {
  if (caller.token.scope === 'read') throw new BioGateError('SCOPE_DENIED', 'This token has the read scope: only GET is allowed');
}
