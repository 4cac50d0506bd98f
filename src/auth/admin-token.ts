/** The admin token (BIOGATE_ADMIN_TOKEN): it guards /admin/… and, when set, /metrics [API-CONTRACT §7]. */
import { BioGateError } from '../errors.js';
import { bearer, secretsEqual } from './tokens.js';

/** @throws NOT_FOUND when no admin token is configured, UNAUTHORIZED when the bearer token is not it. */
export function checkAdmin(adminToken: string | null, authorization: string | undefined): void {
  // The admin API does not exist when no admin token is configured.
  if (adminToken === null) throw new BioGateError('NOT_FOUND', 'The admin API is disabled (set BIOGATE_ADMIN_TOKEN)');
  const given = bearer(authorization);
  if (!given || !secretsEqual(given, adminToken)) {
    throw new BioGateError('UNAUTHORIZED', 'Admin token required', { headers: { 'WWW-Authenticate': 'Bearer realm="biogate-admin"' } });
  }
}
